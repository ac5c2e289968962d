/* limits.c: see limits.h. */
#include "plan/limits.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int limits_release_at_least(const char *release, unsigned major, unsigned minor)
{
	char *end;
	unsigned long ma = strtoul(release, &end, 10);
	if (end == release || *end != '.')
		return 0;
	const char *m = end + 1;
	unsigned long mi = strtoul(m, &end, 10);
	if (end == m)
		return 0;
	return ma > major || (ma == major && mi >= minor);
}

int limits_decide(const struct config *c, const struct limits_facts *f, struct limits_plan *out,
		  struct cordon_err *e)
{
	memset(out, 0, sizeof(*out));
	out->decided = 1;
	out->data = c->limit_memory;
	out->cpu = c->limit_cpu;
	out->watches_shared = !f->sysctl_ro;
	if (c->limit_memory && f->memory.way != CGROUP_PICK_NONE) {
		out->memory = c->limit_memory;
		out->memory_cg = f->memory;
	}
	if (c->limit_cpu && f->cpu.way != CGROUP_PICK_NONE) {
		out->cpu_tree = c->limit_cpu;
		out->cpu_cg = f->cpu;
	}
	unsigned long want = c->limit_pids ? c->limit_pids : LIMITS_DEFAULT_PIDS;
	if (f->pids.way != CGROUP_PICK_NONE) {
		out->pids_way = LIMITS_PIDS_CGROUP;
		out->pids = want;
		out->pids_cg = f->pids;
		return 0;
	}
	if (!f->root) {
		out->pids_way = LIMITS_PIDS_RLIMIT;
		out->pids = want;
		return 0;
	}
	if (f->sysctl_ro) {
		if (c->limit_pids)
			return err_set(e, ENOTSUP,
				       "--limit-pids: as root, cordon counts processes with a pid_max of "
				       "the sandbox's own PID namespace, and /proc/sys is read-only here "
				       "(a container's); run without --limit-pids, as a user, or where "
				       "cordon may make a cgroup with the pids controller");
		return 0; /* the run and cordon doctor say so */
	}
	if (!f->own_pidns || !f->pidns_pid_max) {
		if (c->limit_pids)
			return err_set(e, ENOTSUP,
				       "--limit-pids: as root, cordon counts processes with a pid_max of "
				       "the sandbox's own PID namespace, which needs Linux 6.14 or later "
				       "and --pid-ns isolate; run without --limit-pids, or as a user");
		return 0; /* cordon doctor says so */
	}
	if (want + 1 < LIMITS_PID_MAX_MIN)
		return err_set(e, ENOTSUP, "--limit-pids %lu: as root the lowest limit cordon can "
			       "enforce is %lu (the kernel's smallest pid_max)", want,
			       LIMITS_PID_MAX_MIN - 1);
	out->pids_way = LIMITS_PIDS_PIDNS;
	out->pids = want;
	return 0;
}

static const char *cgroup_how(const struct limits_cgroup *g, const char *v2, const char *v1)
{
	return g->way == CGROUP_PICK_V2 ? v2 : v1;
}

const char *limits_how(const struct limits_plan *p, enum limits_kind k)
{
	switch (k) {
	case LIMITS_MEMORY:
		if (!p->data)
			return "none";
		if (p->memory)
			return cgroup_how(&p->memory_cg,
					  "cgroup v2 memory.max on the whole tree, and RLIMIT_DATA per process",
					  "cgroup v1 memory.limit_in_bytes on the whole tree, and RLIMIT_DATA per process");
		return "RLIMIT_DATA per process";
	case LIMITS_PIDS:
		switch (p->pids_way) {
		case LIMITS_PIDS_CGROUP:
			return cgroup_how(&p->pids_cg, "cgroup v2 pids.max on the whole tree",
					  "cgroup v1 pids.max on the whole tree");
		case LIMITS_PIDS_RLIMIT:
			return "RLIMIT_NPROC in the sandbox's user namespace";
		case LIMITS_PIDS_PIDNS:
			return "pid_max of the sandbox's PID namespace";
		case LIMITS_PIDS_NONE:
			break;
		}
		return "none";
	case LIMITS_WATCHES:
		if (p->watches_shared && !p->watches_err)
			return "a share of the caller's inotify and fanotify counts, in the "
			       "sandbox's user namespace";
		return "none: /proc/sys is read-only here (a container's), so the command may "
		       "use all of the caller's inotify and fanotify instances";
	case LIMITS_CPU:
		if (!p->cpu)
			return "none";
		if (p->cpu_tree)
			return cgroup_how(&p->cpu_cg,
					  "cgroup v2 cpu.stat on the whole tree, and RLIMIT_CPU per process",
					  "cgroup v1 cpuacct.usage on the whole tree, and RLIMIT_CPU per process");
		return "RLIMIT_CPU per process";
	}
	return "none";
}
