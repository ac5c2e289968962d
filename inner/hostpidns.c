/* hostpidns.c: see hostpidns.h. */
#include "hostpidns.h"

#include <errno.h>
#include <linux/seccomp.h>
#include <sys/prctl.h>

#include "seccomp_bpf.h"

int hostpidns_filter_load(struct cordon_err *e)
{
	struct sock_fprog p;
	seccomp_bpf_hostpid_program(&p);
	if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &p, 0, 0) < 0)
		return err_sys(e, errno, "cordon-inner: loading the filter that keeps the command "
			       "from renicing, pinning or limiting the caller's other processes failed");
	return 0;
}
