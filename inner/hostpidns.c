/* hostpidns.c: see hostpidns.h. */
#include "hostpidns.h"

#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <sys/prctl.h>
#include <sys/syscall.h>

#if defined(__x86_64__)
#define HOSTPIDNS_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define HOSTPIDNS_ARCH AUDIT_ARCH_AARCH64
#else
#error "hostpidns.c: add this architecture's AUDIT_ARCH"
#endif

/* The low half of argument n (the ones checked are ints). */
#define ARG_LO(n) (offsetof(struct seccomp_data, args) + (n) * sizeof(__u64))
#define LD(off) BPF_STMT(BPF_LD | BPF_W | BPF_ABS, (off))
#define JEQ(k, t, f) BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (k), (t), (f))
#define RET(v) BPF_STMT(BPF_RET | BPF_K, (v))
#define DENY (SECCOMP_RET_ERRNO | (EPERM & SECCOMP_RET_DATA))

/* Another architecture's calls are left to the command's main filter, which
 * kills them; this one only narrows the native ones.  Jumps count the
 * instructions skipped; the targets are named on the right. */
static const struct sock_filter prog[] = {
	LD(offsetof(struct seccomp_data, arch)),        /* 0 */
	JEQ(HOSTPIDNS_ARCH, 0, 18),                     /* 1: -> 20 allow */
	LD(offsetof(struct seccomp_data, nr)),          /* 2 */
	JEQ(__NR_setpriority, 7, 0),                    /* 3: -> 11 */
	JEQ(__NR_ioprio_set, 10, 0),                    /* 4: -> 15 */
	JEQ(__NR_sched_setaffinity, 3, 0),              /* 5: -> 9 */
	JEQ(__NR_sched_setscheduler, 2, 0),             /* 6: -> 9 */
	JEQ(__NR_sched_setparam, 1, 0),                 /* 7: -> 9 */
	JEQ(__NR_sched_setattr, 0, 11),                 /* 8: -> 9, else 20 allow */
	/* sched_*(pid, ...): pid 0, the caller */
	LD(ARG_LO(0)),                                  /* 9 */
	JEQ(0, 9, 8),                                   /* 10: -> 20 allow, else 19 deny */
	/* setpriority(which, who, prio): PRIO_PROCESS (0), who 0 */
	LD(ARG_LO(0)),                                  /* 11 */
	JEQ(0, 0, 6),                                   /* 12: -> 13, else 19 deny */
	LD(ARG_LO(1)),                                  /* 13 */
	JEQ(0, 5, 4),                                   /* 14: -> 20 allow, else 19 deny */
	/* ioprio_set(which, who, prio): IOPRIO_WHO_PROCESS (1), who 0 */
	LD(ARG_LO(0)),                                  /* 15 */
	JEQ(1, 0, 2),                                   /* 16: -> 17, else 19 deny */
	LD(ARG_LO(1)),                                  /* 17 */
	JEQ(0, 1, 0),                                   /* 18: -> 20 allow, else 19 deny */
	RET(DENY),                                      /* 19 */
	RET(SECCOMP_RET_ALLOW),                         /* 20 */
};

int hostpidns_filter_load(struct cordon_err *e)
{
	struct sock_fprog p = { (unsigned short)(sizeof(prog) / sizeof(prog[0])),
				(struct sock_filter *)prog };
	if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &p, 0, 0) < 0)
		return err_sys(e, errno, "cordon-inner: loading the filter that keeps the command "
			       "from renicing or pinning the caller's other processes failed");
	return 0;
}
