/* test_shared_counts.c: the budget each sandbox gets of the caller's
 * per-user counts. */
#include <criterion/criterion.h>

#include <sys/resource.h>

#include "plan/shared_counts.h"

/* The defaults of a Debian 12 machine with 24 GiB: each sandbox an eighth,
 * so four that take all they may leave the caller half. */
Test(shared_counts, an_eighth_of_the_soft_limit_soft_and_hard)
{
	struct rlimit r = shared_counts_rlimit(0, (struct rlimit){ 4000, 4000 });
	cr_assert_eq(r.rlim_cur, 500);
	cr_assert_eq(r.rlim_max, 500, "the sandbox cannot raise it back");
	r = shared_counts_rlimit(1, (struct rlimit){ 819200, RLIM_INFINITY });
	cr_assert_eq(r.rlim_cur, 102400);
	cr_assert_eq(r.rlim_max, 102400);
	r = shared_counts_rlimit(0, (struct rlimit){ 0, 0 });
	cr_assert_eq(r.rlim_cur, 0);
}

/* A large limit does not make a large budget: 96363 pending signals give a
 * sandbox 1024, 8 MiB of locked memory 1 MiB; 128 inotify instances 8. */
Test(shared_counts, capped)
{
	cr_assert_eq(shared_counts_rlimit(0, (struct rlimit){ 96363, 96363 }).rlim_cur, 1024);
	cr_assert_eq(shared_counts_rlimit(2, (struct rlimit){ 8 << 20, 8 << 20 }).rlim_cur,
		     1 << 20);
	cr_assert_eq(shared_counts_budget(128, shared_ucount_caps[0]), 8);
	cr_assert_eq(shared_counts_budget(192536, shared_ucount_caps[1]), 24067);
	cr_assert_eq(shared_counts_budget(1048576, shared_ucount_caps[1]), 65536);
	cr_assert_eq(shared_counts_budget(1 << 20, shared_ucount_caps[3]), 65536);
}

/* However many sandboxes, each takes at most an eighth: the count is
 * bounded per sandbox, and four leave the caller at least half. */
Test(shared_counts, four_sandboxes_leave_half)
{
	for (unsigned long long lim = 0; lim < 5000; lim++)
		for (size_t i = 0; i < SHARED_UCOUNTS_N; i++)
			cr_assert_leq(4 * shared_counts_budget(lim, shared_ucount_caps[i]), lim / 2);
}

/* Control: nothing of an unlimited caller's can run out: left as it is. */
Test(shared_counts, unlimited_stays_unlimited)
{
	struct rlimit r = shared_counts_rlimit(2, (struct rlimit){ RLIM_INFINITY, RLIM_INFINITY });
	cr_assert_eq(r.rlim_cur, RLIM_INFINITY);
	cr_assert_eq(r.rlim_max, RLIM_INFINITY);
}

Test(shared_counts, the_counts)
{
	cr_assert_eq(shared_counts_resources[0], RLIMIT_SIGPENDING);
	cr_assert_eq(shared_counts_resources[1], RLIMIT_MSGQUEUE);
	cr_assert_eq(shared_counts_resources[2], RLIMIT_MEMLOCK);
	cr_assert_str_eq(shared_ucount_files[0], "/proc/sys/user/max_inotify_instances");
	cr_assert_str_eq(shared_ucount_files[1], "/proc/sys/user/max_inotify_watches");
}
