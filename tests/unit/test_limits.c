/* test_limits.c: how each limit is enforced, from the facts; an explicit
 * limit the machine cannot enforce is refused. */
#include <criterion/criterion.h>

#include <errno.h>
#include <string.h>

#include "plan/limits.h"

static int decide(const struct config *c, int root, int pidns, int pidmax, struct limits_plan *p,
		  struct cordon_err *e)
{
	struct limits_facts f = { .root = root, .own_pidns = pidns, .pidns_pid_max = pidmax };
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

static const struct limits_cgroup v1_pids = { CGROUP_PICK_V1, "/sys/fs/cgroup/pids/a" };
static const struct limits_cgroup v2_here = { CGROUP_PICK_V2, "/sys/fs/cgroup/user.slice" };

Test(limits, a_cgroup_counts_processes_for_any_caller)
{
	struct config c = { .limit_pids = 100, .pid = PID_INHERIT };
	struct limits_facts f = { .root = 1, .pids = v1_pids };
	struct limits_plan p;
	struct cordon_err e = { 0 };
	cr_assert_eq(limits_decide(&c, &f, &p, &e), 0,
		     "root, no PID namespace, below 300: the cgroup's pids.max still holds");
	cr_assert_eq(p.pids_way, LIMITS_PIDS_CGROUP);
	cr_assert_eq(p.pids, 100);
	cr_assert_str_eq(p.pids_cg.dir, "/sys/fs/cgroup/pids/a");
	cr_assert_str_eq(limits_how(&p, LIMITS_PIDS), "cgroup v1 pids.max on the whole tree");
	f.root = 0;
	f.pids = v2_here;
	c.limit_pids = 0;
	cr_assert_eq(limits_decide(&c, &f, &p, &e), 0);
	cr_assert_eq(p.pids_way, LIMITS_PIDS_CGROUP, "a user's delegated v2 subtree wins over RLIMIT_NPROC");
	cr_assert_eq(p.pids, LIMITS_DEFAULT_PIDS);
	cr_assert_str_eq(limits_how(&p, LIMITS_PIDS), "cgroup v2 pids.max on the whole tree");
}

Test(limits, memory_in_a_cgroup_keeps_the_per_process_rlimit)
{
	struct config c = { 0 };
	struct limits_facts f = { .memory = v2_here };
	struct limits_plan p;
	struct cordon_err e = { 0 };
	cr_assert_eq(limits_decide(&c, &f, &p, &e), 0);
	cr_assert_eq(p.memory, 0, "no --limit-memory: no memory cgroup");
	cr_assert_str_eq(limits_how(&p, LIMITS_MEMORY), "none");
	c.limit_memory = 1 << 30;
	cr_assert_eq(limits_decide(&c, &f, &p, &e), 0);
	cr_assert_eq(p.memory, 1 << 30);
	cr_assert_eq(p.data, 1 << 30);
	cr_assert_eq(p.memory_cg.way, CGROUP_PICK_V2);
	cr_assert(strstr(limits_how(&p, LIMITS_MEMORY), "memory.max"));
	f.memory.way = CGROUP_PICK_NONE;
	cr_assert_eq(limits_decide(&c, &f, &p, &e), 0);
	cr_assert_eq(p.memory, 0);
	cr_assert_eq(p.data, 1 << 30, "without a cgroup: RLIMIT_DATA alone");
	cr_assert_str_eq(limits_how(&p, LIMITS_MEMORY), "RLIMIT_DATA per process");
	c.limit_cpu = 2;
	cr_assert_eq(limits_decide(&c, &f, &p, &e), 0);
	cr_assert_str_eq(limits_how(&p, LIMITS_CPU), "RLIMIT_CPU per process");
	cr_assert(p.decided);
}

Test(limits, cpu_time_of_the_tree_where_a_cgroup_counts_it)
{
	struct config c = { 0 };
	struct limits_facts f = { .cpu = v2_here };
	struct limits_plan p;
	struct cordon_err e = { 0 };
	cr_assert_eq(limits_decide(&c, &f, &p, &e), 0);
	cr_assert_eq(p.cpu_tree, 0, "no --limit-cpu: nothing counted");
	cr_assert_str_eq(limits_how(&p, LIMITS_CPU), "none");
	c.limit_cpu = 9;
	cr_assert_eq(limits_decide(&c, &f, &p, &e), 0);
	cr_assert_eq(p.cpu, 9, "RLIMIT_CPU stays on each process");
	cr_assert_eq(p.cpu_tree, 9);
	cr_assert_str_eq(p.cpu_cg.dir, "/sys/fs/cgroup/user.slice");
	cr_assert_str_eq(limits_how(&p, LIMITS_CPU),
			 "cgroup v2 cpu.stat on the whole tree, and RLIMIT_CPU per process");
	f.cpu = (struct limits_cgroup){ CGROUP_PICK_V1, "/sys/fs/cgroup/cpuacct" };
	cr_assert_eq(limits_decide(&c, &f, &p, &e), 0);
	cr_assert_str_eq(limits_how(&p, LIMITS_CPU),
			 "cgroup v1 cpuacct.usage on the whole tree, and RLIMIT_CPU per process");
	f.cpu.way = CGROUP_PICK_NONE;
	cr_assert_eq(limits_decide(&c, &f, &p, &e), 0);
	cr_assert_eq(p.cpu_tree, 0);
	cr_assert_str_eq(limits_how(&p, LIMITS_CPU), "RLIMIT_CPU per process");
}

Test(limits, read_only_proc_sys)
{
	struct config c = { 0 };
	struct limits_plan p;
	struct cordon_err e;
	struct limits_facts f = { .root = 1, .own_pidns = 1, .pidns_pid_max = 1, .sysctl_ro = 1 };
	cr_assert_eq(limits_decide(&c, &f, &p, &e), 0);
	cr_assert_eq(p.pids_way, LIMITS_PIDS_NONE, "pid_max cannot be written: not counted");
	cr_assert_eq(p.watches_shared, 0);
	cr_assert(strstr(limits_how(&p, LIMITS_WATCHES), "read-only"));
	c.limit_pids = 100;
	cr_assert_eq(limits_decide(&c, &f, &p, &e), -ENOTSUP, "an explicit limit is refused");
	cr_assert(strstr(e.msg, "--limit-pids") && strstr(e.msg, "read-only"));
	f.root = 0;
	cr_assert_eq(limits_decide(&c, &f, &p, &e), 0);
	cr_assert_eq(p.pids_way, LIMITS_PIDS_RLIMIT, "a user's RLIMIT_NPROC needs no sysctl");
	f.sysctl_ro = 0;
	cr_assert_eq(limits_decide(&c, &f, &p, &e), 0);
	cr_assert_eq(p.watches_shared, 1);
	cr_assert(strstr(limits_how(&p, LIMITS_WATCHES), "share"));
}
