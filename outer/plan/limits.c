/* limits.c: see limits.h. */
#include "plan/limits.h"

#include <errno.h>
#include <stdlib.h>

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
	*out = (struct limits_plan){ LIMITS_PIDS_NONE, 0, c->limit_memory, c->limit_cpu };
	unsigned long want = c->limit_pids ? c->limit_pids : LIMITS_DEFAULT_PIDS;
	if (!f->root) {
		out->pids_way = LIMITS_PIDS_RLIMIT;
		out->pids = want;
		return 0;
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
