/* test_shared_counts.c: the sandbox's share of the caller's per-user counts. */
#include <criterion/criterion.h>

#include <sys/resource.h>

#include "plan/shared_counts.h"

Test(shared_counts, half_of_the_soft_limit_soft_and_hard)
{
	struct rlimit r = shared_counts_half((struct rlimit){ 96363, 96363 });
	cr_assert_eq(r.rlim_cur, 48181);
	cr_assert_eq(r.rlim_max, 48181, "the sandbox cannot raise it back");
	r = shared_counts_half((struct rlimit){ 819200, RLIM_INFINITY });
	cr_assert_eq(r.rlim_cur, 409600);
	cr_assert_eq(r.rlim_max, 409600);
	r = shared_counts_half((struct rlimit){ 0, 0 });
	cr_assert_eq(r.rlim_cur, 0);
}

/* Control: nothing of an unlimited caller's can run out: left as it is. */
Test(shared_counts, unlimited_stays_unlimited)
{
	struct rlimit r = shared_counts_half((struct rlimit){ RLIM_INFINITY, RLIM_INFINITY });
	cr_assert_eq(r.rlim_cur, RLIM_INFINITY);
	cr_assert_eq(r.rlim_max, RLIM_INFINITY);
}

Test(shared_counts, the_three_counts)
{
	cr_assert_eq(shared_counts_resources[0], RLIMIT_SIGPENDING);
	cr_assert_eq(shared_counts_resources[1], RLIMIT_MSGQUEUE);
	cr_assert_eq(shared_counts_resources[2], RLIMIT_MEMLOCK);
}
