/* hostpidns.h: what cordon-inner adds where the sandbox shares the caller's
 * PID namespace (--pid-inherit, inner/pid1.h).
 *
 * Landlock's signal scope and ptrace rule keep the command from signalling,
 * tracing or reading the caller's other processes there, but a few system
 * calls act on another process of the same uid with no such check: the
 * nice value (setpriority, of a pid, a process group or every process of
 * the uid), the CPU affinity and scheduling policy (sched_set*) and the I/O
 * priority (ioprio_set).  In a PID namespace of the sandbox's own they reach
 * only its processes; in the caller's they would slow or pin the caller's
 * editor, agent and shells.  This filter lets them act on the caller itself
 * only (pid 0 / who 0), and answers EPERM otherwise. */
#ifndef CORDON_HOSTPIDNS_H
#define CORDON_HOSTPIDNS_H

#include "err.h"

/* Load the filter on the calling process (no_new_privs already set);
 * whatever it forks afterwards inherits it.  0 or -errno with *e. */
int hostpidns_filter_load(struct cordon_err *e) __attribute__((warn_unused_result));

#endif
