/* cgroup.h: the run's own cgroup, which holds the whole sandbox so that
 * --limit-memory and the process count bound its tree, not each process
 * (where it goes: plan/cgroup_pick.h; what it limits: plan/limits.h).
 *
 * It is named cordon-RANDOM (plan/cgroup_pick.h), so two runs never share
 * one and the name tells the command nothing of cordon, and made beneath
 * the caller's own cgroup (v2: or beside it).  cordon holds an exclusive
 * flock on it from right after it made it: a sweep tells a dead run's
 * cgroup by that lock being free.  bwrap is moved into it before it has its
 * options, so before it clones the sandbox's PID 1 into a new cgroup
 * namespace: PID 1 is born in the run's cgroup, which is then the root of
 * its namespace, so /proc/self/cgroup inside shows "/" and not the run's
 * name, which holds cordon's host pid.  Once PID 1 exists bwrap goes back
 * to cordon's own cgroup, so that the limits count the sandbox alone
 * (bwrap's child forks nothing before it execs cordon-inner, and
 * cordon-inner nothing before the checks, which go after that): every
 * process of the command is born inside.  cordon removes it after the run, ending anything still
 * in it; if cordon dies, its guardian does once the sandbox is gone; if the
 * guardian dies too, the next run's sweep does, for every such cgroup whose
 * cordon is no longer running. */
#ifndef CORDON_CGROUP_H
#define CORDON_CGROUP_H

#include <limits.h>
#include <sys/types.h>
#include "err.h"
#include "plan/limits.h"

struct cgroup_run {
	char dir[3][PATH_MAX];  /* the directories made, one per hierarchy */
	const char *ctrl[3];    /* the v1 controller of each, NULL: v2 */
	int lock[3];            /* each one opened and flock()ed, owned */
	size_t n;
	int cpu_fd;             /* the CPU-time file of the one counting it, -1: none */
	int kill_fd;            /* cgroup.kill of the v2 one (5.14+), -1: none; written
				   by bwrap_kill (launch/bwrap.h), which borrows it */
	int cpu_v2;             /* it is v2's cpu.stat (else v1's cpuacct.usage) */
};

#define CGROUP_RUN_INIT { .lock = { -1, -1, -1 }, .n = 0, .cpu_fd = -1, .kill_fd = -1, .cpu_v2 = 0 }

/* Pick this run's cgroup name, before the guardian is forked: it inherits
 * the name and, once cordon is gone, removes that cgroup whatever its lock
 * says (cordon's death released it).  0 or -errno. */
int cgroup_run_name_pick(struct cordon_err *e) __attribute__((warn_unused_result));

/* Where this process may make a run's cgroup for the memory and the pids
 * controller, and one that counts CPU time (way NONE: nowhere).  Reads
 * /proc and cgroupfs only. */
void cgroup_probe(struct limits_cgroup *memory, struct limits_cgroup *pids,
		  struct limits_cgroup *cpu);

/* The same from the texts of /proc/self/cgroup and /proc/self/mountinfo
 * (NULL: unreadable), looking at the directories they name. */
void cgroup_probe_texts(const char *self, const char *mountinfo, struct limits_cgroup *memory,
			struct limits_cgroup *pids, struct limits_cgroup *cpu);

/* Make the run's cgroup(s) the plan asks for, set their limits and move
 * bwrap into them, before bwrap has its options (it has no child yet).
 * Any failure is an error: the caller kills bwrap unreleased, and
 * cgroup_run_remove removes what was made. */
int cgroup_run_make(struct cgroup_run *r, const struct limits_plan *p, pid_t bwrap,
		    struct cordon_err *e) __attribute__((warn_unused_result));

/* bwrap's child, the sandbox (before it has started anything), was born
 * in the run's cgroups: it is written there again (nothing moves), and
 * bwrap goes back to cordon's own cgroup in each hierarchy, so that the
 * limits count the sandbox's processes alone.  Any failure is an error, as
 * for cgroup_run_make.  Nothing made: 0. */
int cgroup_run_enter(struct cgroup_run *r, pid_t bwrap, pid_t sandbox, struct cordon_err *e)
	__attribute__((warn_unused_result));

/* The CPU time the sandbox's processes have used so far, in
 * microseconds, where the plan counts it on the whole tree (cpu_fd >= 0).
 * 0 or -errno. */
int cgroup_run_cpu_usec(const struct cgroup_run *r, unsigned long long *usec)
	__attribute__((warn_unused_result));

/* After the run: end whatever is left in the run's cgroups and remove
 * them.  Best effort: what cannot be removed is left to the next sweep. */
void cgroup_run_remove(struct cgroup_run *r);

/* Remove every run's cgroup, where this process would make one, whose
 * cordon is no longer running (the guardian after cordon died, its own run's
 * first; every run before it makes its own). */
void cgroup_sweep(void);

/* The same in one directory: each cordon-RANDOM in parent whose run is gone
 * (cgroup_pick_sweep_random), and each cordon-PID-START of an older cordon
 * whose cordon is gone. */
void cgroup_sweep_in(const char *parent);

#endif
