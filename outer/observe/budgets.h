/* budgets.h: the per-user kernel counts a sandbox is charged to, the
 * caller's limit of each and the budget each sandbox gets of it
 * (plan/shared_counts.h), for explain and doctor.  Reads /proc/sys and the
 * caller's rlimits; writes nothing. */
#ifndef CORDON_BUDGETS_H
#define CORDON_BUDGETS_H

#include <stddef.h>

#define BUDGETS_N 7

struct budget {
	const char *name;           /* "inotify instances", ... */
	const char *raise;          /* how the caller raises its limit */
	int known;                  /* 0: the limit could not be read (or the count does not exist) */
	unsigned long long limit;   /* the caller's; ULLONG_MAX: unlimited */
	unsigned long long sandbox; /* each sandbox's */
};

/* Fill b[BUDGETS_N]; an unreadable count is left unknown. */
void budgets_read(struct budget b[BUDGETS_N]);

/* How many inotify instances the caller's processes hold now (every process
 * of its uid that /proc shows, sandboxed ones too); -1 when /proc cannot be
 * read.  For doctor: a scan of /proc, never on a run's path. */
long budgets_inotify_in_use(void);

#endif
