/* shared_counts.c: see shared_counts.h. */
#include "plan/shared_counts.h"

const int shared_counts_resources[SHARED_COUNTS_N] = {
	RLIMIT_SIGPENDING, RLIMIT_MSGQUEUE, RLIMIT_MEMLOCK,
};

/* 1024 queued signals; one POSIX queue of the default size (10 messages of
 * 8 KiB, 80 KiB and its overhead); 1 MiB locked (an eighth of the usual
 * 8 MiB). */
const rlim_t shared_counts_caps[SHARED_COUNTS_N] = { 1024, (rlim_t)100 * 1024, (rlim_t)1024 * 1024 };

const char *const shared_ucount_files[SHARED_UCOUNTS_N] = {
	"/proc/sys/user/max_inotify_instances",
	"/proc/sys/user/max_inotify_watches",
	"/proc/sys/user/max_fanotify_groups",
	"/proc/sys/user/max_fanotify_marks",
};

/* 8 watchers (a dev server, a test runner's watch mode, an editor's
 * language server at once); 65536 watches (one per directory of a large
 * monorepo); fanotify alike. */
const unsigned long shared_ucount_caps[SHARED_UCOUNTS_N] = { 8, 65536, 8, 65536 };

unsigned long long shared_counts_budget(unsigned long long limit, unsigned long long cap)
{
	if (limit == (unsigned long long)RLIM_INFINITY)
		return limit;
	unsigned long long share = limit / SHARED_COUNTS_DIVISOR;
	return share < cap ? share : cap;
}

struct rlimit shared_counts_rlimit(size_t i, struct rlimit own)
{
	rlim_t b = (rlim_t)shared_counts_budget(own.rlim_cur, shared_counts_caps[i]);
	return (struct rlimit){ b, b };
}
