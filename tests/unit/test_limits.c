/* test_limits.c: how each limit is enforced, from the facts; an explicit
 * limit the machine cannot enforce is refused. */
#include <criterion/criterion.h>

#include <errno.h>
#include <string.h>

#include "plan/limits.h"

static int decide(const struct config *c, int root, int pidns, int pidmax, struct limits_plan *p,
		  struct cordon_err *e)
{
	struct limits_facts f = { root, pidns, pidmax };
	memset(e, 0, sizeof(*e));
	return limits_decide(c, &f, p, e);
}

Test(limits, user_counts_by_rlimit_with_a_default)
{
	struct config c = { 0 };
	struct limits_plan p;
	struct cordon_err e;
	cr_assert_eq(decide(&c, 0, 1, 0, &p, &e), 0);
	cr_assert_eq(p.pids_way, LIMITS_PIDS_RLIMIT);
	cr_assert_eq(p.pids, LIMITS_DEFAULT_PIDS, "every run is counted");
	c.limit_pids = 7;
	c.limit_memory = 1 << 20;
	c.limit_cpu = 3;
	cr_assert_eq(decide(&c, 0, 0, 0, &p, &e), 0, "no PID namespace needed");
	cr_assert_eq(p.pids, 7);
	cr_assert_eq(p.data, 1 << 20);
	cr_assert_eq(p.cpu, 3);
}

Test(limits, root_counts_by_pidns_pid_max)
{
	struct config c = { 0 };
	struct limits_plan p;
	struct cordon_err e;
	cr_assert_eq(decide(&c, 1, 1, 1, &p, &e), 0);
	cr_assert_eq(p.pids_way, LIMITS_PIDS_PIDNS);
	cr_assert_eq(p.pids, LIMITS_DEFAULT_PIDS);
	c.limit_pids = 300;
	cr_assert_eq(decide(&c, 1, 1, 1, &p, &e), 0);
	c.limit_pids = 299;
	cr_assert_eq(decide(&c, 1, 1, 1, &p, &e), -ENOTSUP, "below the kernel's smallest pid_max");
	cr_assert(strstr(e.msg, "--limit-pids 299"), "%s", e.msg);
}

Test(limits, root_without_pidns_pid_max)
{
	struct config c = { 0 };
	struct limits_plan p;
	struct cordon_err e;
	cr_assert_eq(decide(&c, 1, 1, 0, &p, &e), 0, "the default is not asked for: doctor says");
	cr_assert_eq(p.pids_way, LIMITS_PIDS_NONE);
	c.limit_pids = 1000;
	cr_assert_eq(decide(&c, 1, 1, 0, &p, &e), -ENOTSUP, "an explicit limit is never dropped");
	cr_assert(strstr(e.msg, "--limit-pids"), "%s", e.msg);
	cr_assert_eq(decide(&c, 1, 0, 1, &p, &e), -ENOTSUP, "--pid-ns inherit has no namespace");
}

Test(limits, release_parsing)
{
	cr_assert(limits_release_at_least("6.18.44-fc-v1045", 6, 14));
	cr_assert(limits_release_at_least("6.14", 6, 14));
	cr_assert(limits_release_at_least("7.0.1", 6, 14));
	cr_assert_not(limits_release_at_least("6.13.9", 6, 14));
	cr_assert_not(limits_release_at_least("5.15.0-91-generic", 6, 14));
	cr_assert_not(limits_release_at_least("garbage", 6, 14));
	cr_assert_not(limits_release_at_least("6", 6, 14));
}
