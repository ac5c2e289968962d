/* userns.c: see userns.h. */
#include "launch/userns.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "procstat.h"
#include "sys.h"

static int write_file(int dirfd, const char *name, const char *text, pid_t child,
		      struct cordon_err *e)
{
	AUTO_FD fd = openat(dirfd, name, O_WRONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return err_sys(e, errno, "cannot open /proc/%d/%s to map the sandbox's user namespace",
			       (int)child, name);
	ssize_t n = write(fd, text, strlen(text));
	if (n < 0 && errno == EPERM && strcmp(name, "uid_map") == 0 && userns_root_lacks_setfcap())
		return err_set(e, EPERM, "cannot write /proc/%d/%s: " USERNS_SETFCAP_ADVICE,
			       (int)child, name);
	if (n != (ssize_t)strlen(text))
		return err_sys(e, n < 0 ? errno : EIO,
			       "cannot write /proc/%d/%s to map the sandbox's user namespace",
			       (int)child, name);
	return 0;
}

int userns_root_lacks_setfcap(void)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[2];
	memset(d, 0, sizeof(d));
	if (geteuid() != 0 || syscall(SYS_capget, &h, d) < 0)
		return 0;
	return !(d[CAP_TO_INDEX(CAP_SETFCAP)].effective & CAP_TO_MASK(CAP_SETFCAP));
}

int userns_check_parent(int dirfd, pid_t parent)
{
	char stat[512];
	unsigned long long ppid;
	ssize_t n = procstat_read(dirfd, 0, stat, sizeof(stat));
	if (n < 0)
		return (int)n;
	return procstat_field(stat, 4, &ppid) == 0 && ppid == (unsigned long long)parent ? 0 : -ESRCH;
}

int userns_map(pid_t child, pid_t bwrap, uid_t uid, gid_t gid, struct cordon_err *e)
{
	char path[32], line[64];
	(void)snprintf(path, sizeof(path), "/proc/%d", (int)child);
	AUTO_FD dir = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (dir < 0)
		return err_sys(e, errno, "bwrap's sandbox process %d is gone", (int)child);
	/* The pid came from bwrap: make sure it is bwrap's child, through the
	 * same directory the maps are written through. */
	int c = userns_check_parent(dir, bwrap);
	if (c == -ESRCH)
		return err_set(e, ESRCH, "process %d, named by bwrap, is not bwrap's child; "
			       "refusing to map its user namespace", (int)child);
	if (c < 0)
		return err_sys(e, -c, "cannot read %s/stat", path);

	(void)snprintf(line, sizeof(line), "%u %u 1\n", (unsigned)uid, (unsigned)uid);
	int r = write_file(dir, "uid_map", line, child, e);
	/* Without "deny" an unprivileged gid_map write is refused; it also
	 * keeps the command from dropping supplementary groups (which could
	 * lift a group's negative permissions). */
	if (r == 0)
		r = write_file(dir, "setgroups", "deny", child, e);
	(void)snprintf(line, sizeof(line), "%u %u 1\n", (unsigned)gid, (unsigned)gid);
	if (r == 0)
		r = write_file(dir, "gid_map", line, child, e);
	return r;
}
