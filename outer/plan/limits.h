/* limits.h: which resource limits a run gets, and by what means (pure).
 *
 * Every run counts its processes (a fork loop must not exhaust the host's
 * pid space): LIMITS_DEFAULT_PIDS tasks, threads included, or --limit-pids.
 * What the kernel offers without privilege decides how:
 *   - a caller other than root: RLIMIT_NPROC set on the sandbox's first
 *     process after its user namespace exists.  Since Linux 5.14 the count
 *     is kept per user namespace, so it counts the sandbox's tasks only, and
 *     the namespace's own ceiling stays the caller's limit at its creation.
 *   - root: the kernel never applies RLIMIT_NPROC to uid 0, so the sandbox's
 *     PID namespace gets its own pid_max (Linux 6.14+), which the kernel
 *     enforces on every process in it.  pid_max cannot be below 301.
 * Where the caller may make a cgroup with the pids controller
 * (plan/cgroup_pick.h), pids.max of the run's own cgroup counts instead, on
 * the whole tree and for any caller.
 * --limit-memory is RLIMIT_DATA (each process's private writable memory),
 * and besides, where the caller may make a cgroup with the memory
 * controller, the memory limit of the run's cgroup (v2 memory.max with
 * memory.swap.max 0, v1 memory.limit_in_bytes and memory.memsw.limit_in_bytes)
 * on the sum of the tree's memory, page cache and tmpfs pages included: the
 * kernel's OOM killer ends a process of the sandbox past it.
 * --limit-cpu is RLIMIT_CPU (each process's CPU seconds: SIGXCPU, then
 * SIGKILL a second later), and besides, where the caller may make a cgroup
 * that counts CPU time (any v2 cgroup: cpu.stat; v1: the cpuacct
 * controller), the sum over the whole tree: the kernel has a cap on a
 * cgroup's CPU rate only, not on its total, so cordon reads the run's
 * cgroup's usage while the command runs and kills the sandbox once it
 * reaches the limit (status 152, as SIGXCPU; supervise.h).
 * A limit the machine cannot enforce the way the flag asks is refused, never
 * dropped. */
#ifndef CORDON_LIMITS_H
#define CORDON_LIMITS_H

#include <limits.h>
#include "config.h"
#include "err.h"
#include "plan/cgroup_pick.h"

#define LIMITS_DEFAULT_PIDS 4096UL
#define LIMITS_PID_MAX_MIN 301UL /* the kernel's RESERVED_PIDS + 1 */

enum limits_pids_way { LIMITS_PIDS_NONE, LIMITS_PIDS_RLIMIT, LIMITS_PIDS_PIDNS, LIMITS_PIDS_CGROUP };

/* Where a run's cgroup for one controller can be made: in dir, a cgroup of
 * the caller's (way NONE: nowhere). */
struct limits_cgroup {
	enum cgroup_pick_way way;
	char dir[PATH_MAX];
};

struct limits_facts {
	int root;             /* the caller's euid is 0 */
	int own_pidns;        /* the sandbox gets a PID namespace */
	int pidns_pid_max;    /* the kernel has a pid_max per PID namespace */
	int sysctl_ro;        /* /proc/sys is read-only here (a container's): no
				 per-namespace sysctl can be written */
	struct limits_cgroup memory, pids, cpu;
};

struct limits_plan {
	enum limits_pids_way pids_way;
	unsigned long pids;          /* tasks; with LIMITS_PIDS_PIDNS, pid_max is pids + 1 */
	unsigned long long data;     /* RLIMIT_DATA bytes, 0: none */
	unsigned cpu;                /* RLIMIT_CPU seconds, 0: none */
	unsigned long long memory;   /* bytes in the run's cgroup, 0: none */
	unsigned cpu_tree;           /* seconds of CPU time of the whole tree, read from
					cpu_cg; 0: none */
	struct limits_cgroup memory_cg, pids_cg, cpu_cg; /* way NONE: not used */
	/* The sandbox's user namespace gets its share of the caller's inotify
	 * and fanotify counts (launch/sandbox_limits.c); 0 where /proc/sys is
	 * read-only (a container's), or set to the errno when writing them
	 * failed so: the command may then use all of the caller's. */
	int watches_shared;
	int watches_err;
	int decided;                 /* 0: not decided yet (a run refused early) */
};

/* Decide from the config and the facts; an explicit limit this machine
 * cannot enforce is an error (ENOTSUP) naming the flag. */
int limits_decide(const struct config *c, const struct limits_facts *f, struct limits_plan *out,
		  struct cordon_err *e) __attribute__((warn_unused_result));

enum limits_kind { LIMITS_MEMORY, LIMITS_PIDS, LIMITS_CPU, LIMITS_WATCHES };

/* How the plan enforces one kind of limit, in words ("cgroup v1 pids.max
 * on the whole tree"), for doctor, explain and --report. */
const char *limits_how(const struct limits_plan *p, enum limits_kind k);

/* 1 if a uname release string ("6.18.44-foo") is at least major.minor. */
int limits_release_at_least(const char *release, unsigned major, unsigned minor);

#endif
