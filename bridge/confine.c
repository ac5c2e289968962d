/* confine.c: see confine.h. */
#include "confine.h"

#include <errno.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/seccomp.h>

#include "seccomp_bpf.h"

int confine_apply(int allow_unix, struct cordon_err *e)
{
	struct sock_fprog prog;
	seccomp_bpf_bridge_program(allow_unix, &prog);
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return err_sys(e, errno, "cordon-bridge: no_new_privs");
	if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) < 0)
		return err_sys(e, errno, "cordon-bridge: PR_SET_DUMPABLE");
	if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog) < 0)
		return err_sys(e, errno, "cordon-bridge: cannot load its seccomp filter");
	return 0;
}
