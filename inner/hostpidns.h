/* hostpidns.h: what cordon-inner adds where the sandbox shares the caller's
 * PID namespace (--pid-inherit, inner/pid1.h).
 *
 * Landlock's signal scope and ptrace rule keep the command from signalling,
 * tracing or reading the caller's other processes there (kill, tkill,
 * tgkill, rt_sigqueueinfo, pidfd_send_signal and F_SETOWN's SIGIO are
 * signals; ptrace, process_vm_*, pidfd_getfd, kcmp, process_madvise,
 * get_robust_list, move_pages, migrate_pages and /proc/PID/mem go through
 * the kernel's ptrace access check, which Landlock answers; inherit mode
 * refuses to run without Landlock ABI 6).  ptrace, process_vm_* and
 * perf_event_open are refused by the command's main filter anyway.  A few
 * system calls act on another process of the same uid (for root: of uid 0)
 * with no such check: its resource limits (prlimit64: a RLIMIT_NOFILE of
 * 3 breaks cordon's own poll, a RLIMIT_CPU of 1 kills the caller's editor),
 * its nice value (setpriority, of a pid, a process group or every process
 * of the uid), its CPU affinity and scheduling policy (sched_set*) and its
 * I/O priority (ioprio_set).  In a PID namespace of the sandbox's own they
 * reach only its processes; in the caller's they would reach cordon, the
 * agent and the caller's shells.  A filter cannot tell the sandbox's pids
 * from the caller's there, so this one lets them act on the caller itself
 * only (pid 0 / who 0), prlimit64 also to read another's limits (new value
 * NULL), and answers EPERM otherwise; migrate_pages, move_pages and
 * get_robust_list, ptrace-checked already, take the same pid 0 rule.  The
 * rules are a table (common/seccomp_table.c: seccomp_policy_hostpid_table(),
 * which `cordon explain` prints), compiled at build time. */
#ifndef CORDON_HOSTPIDNS_H
#define CORDON_HOSTPIDNS_H

#include "err.h"

/* Load the filter on the calling process (no_new_privs already set);
 * whatever it forks afterwards inherits it.  0 or -errno with *e. */
int hostpidns_filter_load(struct cordon_err *e) __attribute__((warn_unused_result));

#endif
