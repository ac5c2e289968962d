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

/* The low and high halves of argument n: a pid is an int (its low half),
 * a pointer is both. */
#define ARG_LO(n) (offsetof(struct seccomp_data, args) + (n) * sizeof(__u64))
#define ARG_HI(n) (ARG_LO(n) + sizeof(__u32))
#define LD(off) BPF_STMT(BPF_LD | BPF_W | BPF_ABS, (off))
/* A jump at instruction `at` to instruction t if equal, else f. */
#define JEQ(at, k, t, f) BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (k), (t) - (at) - 1, (f) - (at) - 1)
#define RET(v) BPF_STMT(BPF_RET | BPF_K, (v))
#define DENY (SECCOMP_RET_ERRNO | (EPERM & SECCOMP_RET_DATA))

/* Where each part of the program starts. */
enum { AT_NR = 2, AT_PID0 = 14, AT_PRIO = 16, AT_IOPRIO = 20, AT_PRLIMIT = 24, AT_DENY = 30,
       AT_ALLOW = 31, PROG_LEN = 32 };

/* Another architecture's calls are left to the command's main filter, which
 * kills them; this one only narrows the native ones. */
static const struct sock_filter prog[] = {
	LD(offsetof(struct seccomp_data, arch)),                        /* 0 */
	JEQ(1, HOSTPIDNS_ARCH, AT_NR, AT_ALLOW),                        /* 1 */
	LD(offsetof(struct seccomp_data, nr)),                          /* 2: AT_NR */
	JEQ(3, __NR_setpriority, AT_PRIO, 4),                           /* 3 */
	JEQ(4, __NR_ioprio_set, AT_IOPRIO, 5),                          /* 4 */
	JEQ(5, __NR_prlimit64, AT_PRLIMIT, 6),                          /* 5 */
	JEQ(6, __NR_sched_setaffinity, AT_PID0, 7),                     /* 6 */
	JEQ(7, __NR_sched_setscheduler, AT_PID0, 8),                    /* 7 */
	JEQ(8, __NR_sched_setparam, AT_PID0, 9),                        /* 8 */
	JEQ(9, __NR_sched_setattr, AT_PID0, 10),                        /* 9 */
	JEQ(10, __NR_migrate_pages, AT_PID0, 11),                       /* 10 */
	JEQ(11, __NR_move_pages, AT_PID0, 12),                          /* 11 */
	JEQ(12, __NR_get_robust_list, AT_PID0, 13),                     /* 12 */
	RET(SECCOMP_RET_ALLOW),                                         /* 13 */
	/* call(pid, ...): pid 0, the caller */
	LD(ARG_LO(0)),                                                  /* 14: AT_PID0 */
	JEQ(15, 0, AT_ALLOW, AT_DENY),                                  /* 15 */
	/* setpriority(which, who, prio): PRIO_PROCESS (0), who 0 */
	LD(ARG_LO(0)),                                                  /* 16: AT_PRIO */
	JEQ(17, 0, 18, AT_DENY),                                        /* 17 */
	LD(ARG_LO(1)),                                                  /* 18 */
	JEQ(19, 0, AT_ALLOW, AT_DENY),                                  /* 19 */
	/* ioprio_set(which, who, prio): IOPRIO_WHO_PROCESS (1), who 0 */
	LD(ARG_LO(0)),                                                  /* 20: AT_IOPRIO */
	JEQ(21, 1, 22, AT_DENY),                                        /* 21 */
	LD(ARG_LO(1)),                                                  /* 22 */
	JEQ(23, 0, AT_ALLOW, AT_DENY),                                  /* 23 */
	/* prlimit64(pid, resource, new, old): pid 0, or only reading (new
	 * NULL): ulimit, getrlimit and `prlimit --pid N` without a new value */
	LD(ARG_LO(0)),                                                  /* 24: AT_PRLIMIT */
	JEQ(25, 0, AT_ALLOW, 26),                                       /* 25 */
	LD(ARG_LO(2)),                                                  /* 26 */
	JEQ(27, 0, 28, AT_DENY),                                        /* 27 */
	LD(ARG_HI(2)),                                                  /* 28 */
	JEQ(29, 0, AT_ALLOW, AT_DENY),                                  /* 29 */
	RET(DENY),                                                      /* 30: AT_DENY */
	RET(SECCOMP_RET_ALLOW),                                         /* 31: AT_ALLOW */
};

_Static_assert(sizeof(prog) / sizeof(prog[0]) == PROG_LEN, "hostpidns: the labels are off");

int hostpidns_filter_load(struct cordon_err *e)
{
	struct sock_fprog p = { (unsigned short)(sizeof(prog) / sizeof(prog[0])),
				(struct sock_filter *)prog };
	if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &p, 0, 0) < 0)
		return err_sys(e, errno, "cordon-inner: loading the filter that keeps the command "
			       "from renicing, pinning or limiting the caller's other processes failed");
	return 0;
}
