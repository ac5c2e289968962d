/* cgroup.h: the run's own cgroup, which holds the whole sandbox so that
 * --limit-memory and the process count bound its tree, not each process
 * (where it goes: plan/cgroup_pick.h; what it limits: plan/limits.h).
 *
 * It is named cordon-PID-START after the cordon that made it (its pid and
 * start time), so two runs never share one, and made beneath the caller's
 * own cgroup (v2: or beside it).  bwrap's child, the sandbox's PID 1 to be,
 * is moved into it before cordon-inner gets its checks (bwrap's child forks
 * nothing before it execs cordon-inner, and cordon-inner nothing before the
 * checks): every process of the command is born inside.  cordon removes it after the run, ending anything still
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
	size_t n;
	int cpu_fd;             /* the CPU-time file of the one counting it, -1: none */
	int cpu_v2;             /* it is v2's cpu.stat (else v1's cpuacct.usage) */
};

#define CGROUP_RUN_INIT { .n = 0, .cpu_fd = -1, .cpu_v2 = 0 }

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
 * sandbox (bwrap's child, before it has started anything) into them.  Any failure is an
 * error: the caller kills bwrap unreleased, and cgroup_run_remove removes
 * what was made. */
int cgroup_run_enter(struct cgroup_run *r, const struct limits_plan *p, pid_t sandbox,
		     struct cordon_err *e) __attribute__((warn_unused_result));

/* The CPU time the sandbox's processes have used so far, in
 * microseconds, where the plan counts it on the whole tree (cpu_fd >= 0).
 * 0 or -errno. */
int cgroup_run_cpu_usec(const struct cgroup_run *r, unsigned long long *usec)
	__attribute__((warn_unused_result));

/* After the run: end whatever is left in the run's cgroups and remove
 * them.  Best effort: what cannot be removed is left to the next sweep. */
void cgroup_run_remove(struct cgroup_run *r);

/* Remove every run's cgroup, where this process would make one, whose
 * cordon is no longer running (the guardian after cordon died; every run
 * before it makes its own). */
void cgroup_sweep(void);

/* The same in one directory: each cordon-PID-START in parent whose cordon
 * is gone. */
void cgroup_sweep_in(const char *parent);

#endif
