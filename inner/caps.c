/* caps.c: see caps.h. */
#include "caps.h"

#include <errno.h>
#include <linux/capability.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

int caps_read(struct cap_sets *s, struct cordon_err *e)
{
	struct __user_cap_header_struct hdr = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct data[2] = { { 0, 0, 0 }, { 0, 0, 0 } };
	*s = (struct cap_sets){ 0 };
	if (syscall(SYS_capget, &hdr, data) < 0)
		return err_sys(e, errno, "capget");
	s->effective = data[0].effective | ((uint64_t)data[1].effective << 32);
	s->permitted = data[0].permitted | ((uint64_t)data[1].permitted << 32);
	s->inheritable = data[0].inheritable | ((uint64_t)data[1].inheritable << 32);
	/* Walk every capability number the kernel knows: it answers EINVAL
	 * past the last one, so a newer kernel's capabilities are covered. */
	for (int cap = 0; cap < 64; cap++) {
		int b = prctl(PR_CAPBSET_READ, cap, 0, 0, 0);
		if (b < 0) {
			if (errno == EINVAL)
				break;
			return err_sys(e, errno, "reading the capability bounding set");
		}
		if (b)
			s->bounding |= (uint64_t)1 << cap;
		int a = prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_IS_SET, cap, 0, 0);
		if (a < 0 && errno != EINVAL)
			return err_sys(e, errno, "reading the ambient capability set");
		if (a > 0)
			s->ambient |= (uint64_t)1 << cap;
	}
	return 0;
}

int caps_check_empty(const struct cap_sets *s, struct cordon_err *e)
{
	static const char *const names[] = {
		"effective", "permitted", "inheritable", "ambient", "bounding",
	};
	const uint64_t sets[] = {
		s->effective, s->permitted, s->inheritable, s->ambient, s->bounding,
	};
	for (int i = 0; i < 5; i++)
		if (sets[i])
			return err_set(e, EPERM,
				       "the sandbox still holds capabilities (%s set 0x%llx); "
				       "refusing to run the command; check that bwrap supports --cap-drop ALL",
				       names[i], (unsigned long long)sets[i]);
	return 0;
}
