/* test_cgroup_pick.c: reading /proc/PID/cgroup, mountinfo and the
 * controller lists, and where a run's cgroup goes (v2 only against these
 * texts: the test machines have no v2 controller to try). */
#include <criterion/criterion.h>

#include <errno.h>
#include <string.h>

#include "plan/cgroup_pick.h"

static const char hybrid[] =
	"9:name=systemd:/\n"
	"8:pids:/\n"
	"4:memory:/process_api/b310\n"
	"2:cpu,cpuacct:/user.slice\n"
	"0::/\n";

static const char unified[] = "0::/user.slice/user-1000.slice/user@1000.service/app.slice/a.scope\n";

Test(cgroup_pick, self_v1_lines_by_controller)
{
	char p[256];
	cr_assert_eq(cgroup_pick_self(hybrid, "memory", p, sizeof(p)), 0);
	cr_assert_str_eq(p, "/process_api/b310");
	cr_assert_eq(cgroup_pick_self(hybrid, "pids", p, sizeof(p)), 0);
	cr_assert_str_eq(p, "/");
	cr_assert_eq(cgroup_pick_self(hybrid, "cpuacct", p, sizeof(p)), 0, "a co-mounted controller");
	cr_assert_str_eq(p, "/user.slice");
	cr_assert_eq(cgroup_pick_self(hybrid, "cpuset", p, sizeof(p)), -ENOENT);
	cr_assert_eq(cgroup_pick_self(hybrid, "systemd", p, sizeof(p)), -ENOENT,
		     "name=systemd is no controller");
	cr_assert_eq(cgroup_pick_self(hybrid, "memory", p, 8), -ENAMETOOLONG);
}

Test(cgroup_pick, self_v2_line)
{
	char p[256];
	cr_assert_eq(cgroup_pick_self(hybrid, NULL, p, sizeof(p)), 0);
	cr_assert_str_eq(p, "/");
	cr_assert_eq(cgroup_pick_self(unified, NULL, p, sizeof(p)), 0);
	cr_assert_str_eq(p, "/user.slice/user-1000.slice/user@1000.service/app.slice/a.scope");
	cr_assert_eq(cgroup_pick_self(unified, "memory", p, sizeof(p)), -ENOENT,
		     "v2 controllers are not named in /proc/self/cgroup");
	cr_assert_eq(cgroup_pick_self("8:pids:/\n", NULL, p, sizeof(p)), -ENOENT);
	cr_assert_eq(cgroup_pick_self("", NULL, p, sizeof(p)), -ENOENT);
	cr_assert_eq(cgroup_pick_self("garbage\n0:/x\n", NULL, p, sizeof(p)), -ENOENT);
}

static const char mountinfo[] =
	"22 1 254:0 / / rw,relatime shared:1 - ext4 /dev/vda rw\n"
	"31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755\n"
	"32 31 0:29 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu\n"
	"35 31 0:32 / /sys/fs/cgroup/memory rw,relatime shared:9 master:3 - cgroup cgroup rw,memory\n"
	"39 31 0:36 / /sys/fs/cgroup/pids rw,relatime - cgroup cgroup rw,pids\n"
	"40 31 0:37 / /sys/fs/cgroup/systemd rw,relatime - cgroup cgroup rw,name=systemd\n"
	"41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw\n";

Test(cgroup_pick, mount_by_controller_and_type)
{
	char m[256], r[256];
	cr_assert_eq(cgroup_pick_mount(mountinfo, "memory", m, sizeof(m), r, sizeof(r)), 0,
		     "optional fields before the separator");
	cr_assert_str_eq(m, "/sys/fs/cgroup/memory");
	cr_assert_str_eq(r, "/");
	cr_assert_eq(cgroup_pick_mount(mountinfo, "pids", m, sizeof(m), r, sizeof(r)), 0);
	cr_assert_str_eq(m, "/sys/fs/cgroup/pids");
	cr_assert_eq(cgroup_pick_mount(mountinfo, NULL, m, sizeof(m), r, sizeof(r)), 0);
	cr_assert_str_eq(m, "/sys/fs/cgroup/unified");
	cr_assert_eq(cgroup_pick_mount(mountinfo, "cpuset", m, sizeof(m), r, sizeof(r)), -ENOENT);
	cr_assert_eq(cgroup_pick_mount(mountinfo, "systemd", m, sizeof(m), r, sizeof(r)), -ENOENT,
		     "name=systemd is not the option systemd");
	cr_assert_eq(cgroup_pick_mount("1 2 0:1 / /x rw - tmpfs memory rw,memory\n", "memory", m,
				       sizeof(m), r, sizeof(r)), -ENOENT, "only cgroup mounts");
	cr_assert_eq(cgroup_pick_mount("1 2 0:1 / /a\\040b rw - cgroup2 cgroup2 rw\n", NULL, m,
				       sizeof(m), r, sizeof(r)), -ENOENT, "escaped paths are skipped");
	cr_assert_eq(cgroup_pick_mount("1 2 0:1 / /x rw -\n", NULL, m, sizeof(m), r, sizeof(r)),
		     -ENOENT, "a truncated line");
}

Test(cgroup_pick, mount_root_of_a_namespace)
{
	char m[256], r[256], d[256];
	const char mi[] = "50 40 0:30 /lxc/c1 /sys/fs/cgroup rw - cgroup2 cgroup2 rw,nsdelegate\n";
	cr_assert_eq(cgroup_pick_mount(mi, NULL, m, sizeof(m), r, sizeof(r)), 0);
	cr_assert_str_eq(r, "/lxc/c1");
	cr_assert_eq(cgroup_pick_dir(m, r, "/lxc/c1/app", d, sizeof(d)), 0);
	cr_assert_str_eq(d, "/sys/fs/cgroup/app");
	cr_assert_eq(cgroup_pick_dir(m, r, "/lxc/c1", d, sizeof(d)), 0);
	cr_assert_str_eq(d, "/sys/fs/cgroup");
	cr_assert_eq(cgroup_pick_dir(m, r, "/lxc/c10", d, sizeof(d)), -ENOENT, "a prefix is no root");
	cr_assert_eq(cgroup_pick_dir(m, r, "/other", d, sizeof(d)), -ENOENT);
	cr_assert_eq(cgroup_pick_dir("/m", "/", "/../up", d, sizeof(d)), -ENOENT,
		     "outside the namespace's sight");
	cr_assert_eq(cgroup_pick_dir("/m", "/", "/", d, sizeof(d)), 0);
	cr_assert_str_eq(d, "/m");
	cr_assert_eq(cgroup_pick_dir("/m", "/", "/a/b", d, 4), -ENAMETOOLONG);
}

Test(cgroup_pick, parent_stops_at_the_mount)
{
	char p[256];
	cr_assert_eq(cgroup_pick_parent("/sys/fs/cgroup/a/b", "/sys/fs/cgroup", p, sizeof(p)), 0);
	cr_assert_str_eq(p, "/sys/fs/cgroup/a");
	cr_assert_eq(cgroup_pick_parent("/sys/fs/cgroup/a", "/sys/fs/cgroup", p, sizeof(p)), 0);
	cr_assert_str_eq(p, "/sys/fs/cgroup");
	cr_assert_eq(cgroup_pick_parent("/sys/fs/cgroup", "/sys/fs/cgroup", p, sizeof(p)), -ENOENT);
	cr_assert_eq(cgroup_pick_parent("/elsewhere/a", "/sys/fs/cgroup", p, sizeof(p)), -ENOENT);
}

Test(cgroup_pick, controller_lists)
{
	cr_assert(cgroup_pick_lists("cpu memory pids\n", "pids"));
	cr_assert(cgroup_pick_lists("memory", "memory"));
	cr_assert_not(cgroup_pick_lists("cpu memoryx\n", "memory"));
	cr_assert_not(cgroup_pick_lists("\n", "memory"));
	cr_assert_not(cgroup_pick_lists(NULL, "memory"));
}

/* A systemd user session: the shell's scope C holds processes, app.slice
 * (P) enables memory and pids for its children, both the user's. */
Test(cgroup_pick, v2_sibling_under_a_delegated_parent)
{
	struct cgroup_v2_dir own = { 1, 1, "\n" }, parent = { 1, 1, "memory pids\n" };
	cr_assert_eq(cgroup_pick_v2(&own, &parent, "memory"), 1);
	cr_assert_eq(cgroup_pick_v2(&own, &parent, "pids"), 1);
	cr_assert_eq(cgroup_pick_v2(&own, &parent, "cpu"), -1, "not enabled in P");
	parent.writable = 0;
	cr_assert_eq(cgroup_pick_v2(&own, &parent, "memory"), -1,
		     "P not the caller's (a login session's scope under user.slice): the sandbox "
		     "could not be moved from C");
}

Test(cgroup_pick, v2_child_of_own_when_it_enables_the_controller)
{
	/* Only the root (or a cgroup without processes) can have this. */
	struct cgroup_v2_dir own = { 1, 1, "cpu memory pids\n" }, parent = { 0, 0, NULL };
	cr_assert_eq(cgroup_pick_v2(&own, &parent, "pids"), 0);
	own.writable = 0;
	cr_assert_eq(cgroup_pick_v2(&own, &parent, "pids"), -1);
	struct cgroup_v2_dir hugetlb_only = { 1, 1, "hugetlb\n" };
	cr_assert_eq(cgroup_pick_v2(&hugetlb_only, &parent, "memory"), -1,
		     "this test machine's /sys/fs/cgroup/unified");
}

Test(cgroup_pick, run_names)
{
	long pid;
	unsigned long long start;
	cr_assert(cgroup_pick_run_name("cordon-1234-567890", &pid, &start));
	cr_assert_eq(pid, 1234);
	cr_assert_eq(start, 567890);
	cr_assert_not(cgroup_pick_run_name("cordon-1234", &pid, &start));
	cr_assert_not(cgroup_pick_run_name("cordon-0-5", &pid, &start));
	cr_assert_not(cgroup_pick_run_name("cordon-12-5x", &pid, &start));
	cr_assert_not(cgroup_pick_run_name("cordon--5", &pid, &start));
	cr_assert_not(cgroup_pick_run_name("user.slice", &pid, &start));
	cr_assert_not(cgroup_pick_run_name("cordon-12-", &pid, &start));
}

/* CPU time is counted by every v2 cgroup (cpu.stat) without a controller:
 * any writable cgroup of the caller's will do, its own first. */
Test(cgroup_pick, v2_cpu_time_needs_no_controller)
{
	struct cgroup_v2_dir own = { 1, 1, "\n" }, parent = { 1, 1, "\n" };
	cr_assert_eq(cgroup_pick_v2(&own, &parent, NULL), 0, "a child of a cgroup with processes");
	own.writable = 0;
	cr_assert_eq(cgroup_pick_v2(&own, &parent, NULL), 1);
	parent.writable = 0;
	cr_assert_eq(cgroup_pick_v2(&own, &parent, NULL), -1, "nothing of the caller's");
	struct cgroup_v2_dir none = { 0, 0, NULL };
	cr_assert_eq(cgroup_pick_v2(&none, &none, NULL), -1);
}

Test(cgroup_pick, cpu_usage_v2)
{
	unsigned long long u = 1;
	cr_assert_eq(cgroup_pick_cpu_usec("usage_usec 1234567\nuser_usec 1000\nsystem_usec 5\n",
					  1, &u), 0);
	cr_assert_eq(u, 1234567ULL);
	cr_assert_eq(cgroup_pick_cpu_usec("nr_periods 0\nusage_usec 0\n", 1, &u), 0);
	cr_assert_eq(u, 0ULL);
	cr_assert_eq(cgroup_pick_cpu_usec("usage_usec 42", 1, &u), 0, "no final newline");
	cr_assert_eq(u, 42ULL);
	cr_assert_eq(cgroup_pick_cpu_usec("user_usec 5\nsystem_usec 5\n", 1, &u), -EINVAL);
	cr_assert_eq(cgroup_pick_cpu_usec("xusage_usec 5\n", 1, &u), -EINVAL);
	cr_assert_eq(cgroup_pick_cpu_usec("usage_usec \n", 1, &u), -EINVAL);
	cr_assert_eq(cgroup_pick_cpu_usec("usage_usec 12x\n", 1, &u), -EINVAL);
	cr_assert_eq(cgroup_pick_cpu_usec("usage_usec 99999999999999999999999\n", 1, &u), -EINVAL,
		     "overflow");
	cr_assert_eq(cgroup_pick_cpu_usec("", 1, &u), -EINVAL);
	cr_assert_eq(cgroup_pick_cpu_usec(NULL, 1, &u), -EINVAL);
}

Test(cgroup_pick, cpu_usage_v1_is_nanoseconds)
{
	unsigned long long u = 0;
	cr_assert_eq(cgroup_pick_cpu_usec("2500000999\n", 0, &u), 0);
	cr_assert_eq(u, 2500000ULL);
	cr_assert_eq(cgroup_pick_cpu_usec("-1\n", 0, &u), -EINVAL);
	cr_assert_eq(cgroup_pick_cpu_usec("\n", 0, &u), -EINVAL);
	cr_assert_eq(cgroup_pick_cpu_usec("12 34\n", 0, &u), -EINVAL);
}

Test(cgroup_pick, random_run_names)
{
	cr_assert(cgroup_pick_run_random("cordon-0123456789abcdef"));
	cr_assert_not(cgroup_pick_run_random("cordon-0123456789abcde"), "15 digits");
	cr_assert_not(cgroup_pick_run_random("cordon-0123456789abcdef0"), "17 digits");
	cr_assert_not(cgroup_pick_run_random("cordon-0123456789ABCDEF"), "upper case");
	cr_assert_not(cgroup_pick_run_random("cordon-1234-567890"), "the older form");
	cr_assert_not(cgroup_pick_run_random("user.slice"));
}

/* facts in, verdict out: what a sweep does with a cordon-RANDOM cgroup. */
Test(cgroup_pick, sweep_of_random_names)
{
	struct cgroup_sweep_facts f = { .mine = 1, .held = 1 };
	cr_assert(cgroup_pick_sweep_random(&f), "the guardian's own run: whatever the lock says");
	f = (struct cgroup_sweep_facts){ .held = 1 };
	cr_assert_not(cgroup_pick_sweep_random(&f), "its cordon holds the lock: a live run");
	f = (struct cgroup_sweep_facts){ 0 };
	cr_assert(cgroup_pick_sweep_random(&f), "no lock, or one held from inside: its cordon is gone");
}

Test(cgroup_pick, lock_holders)
{
	const char *locks =
		"1: FLOCK  ADVISORY  WRITE 17582 00:24:11258 0 EOF\n"
		"1: -> FLOCK  ADVISORY  WRITE 999 00:24:11258 0 EOF\n"
		"2: FLOCK  ADVISORY  READ 42 00:24:11258 0 EOF\n"
		"3: POSIX  ADVISORY  WRITE 7 00:24:11258 0 EOF\n"
		"4: FLOCK  ADVISORY  WRITE 8 00:24:11259 0 EOF\n"
		"5: FLOCK  ADVISORY  WRITE 9 00:25:11258 0 EOF\n";
	long pids[4];
	size_t n = cgroup_pick_lock_holders(locks, 0, 0x24, 11258, pids, 4);
	cr_assert_eq(n, 2, "holders only, FLOCK only, that inode of that device");
	cr_assert_eq(pids[0], 17582);
	cr_assert_eq(pids[1], 42);
	cr_assert_eq(cgroup_pick_lock_holders(locks, 0, 0x24, 11258, pids, 1), 1, "at most max");
	cr_assert_eq(cgroup_pick_lock_holders("", 0, 0x24, 11258, pids, 4), 0);
	cr_assert_eq(cgroup_pick_lock_holders(NULL, 0, 0x24, 11258, pids, 4), 0);
}
