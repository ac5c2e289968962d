/* test_cgroup.c: the run's cgroup, against fake cgroup trees in a temporary
 * directory (the test machines have no v2 controller; plain directories
 * stand in for cgroupfs): where the probe puts it, and what the sweep
 * removes. */
#include <criterion/criterion.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "hostpaths/cgroup.h"
#include "procstat.h"
#include "unit_util.h"

static char tmp[64];
static struct limits_cgroup cpu; /* what the last probe found for the CPU time */

static void setup(void)
{
	(void)snprintf(tmp, sizeof(tmp), "/tmp/cordon-test-cgroup.XXXXXX");
	cr_assert_not_null(mkdtemp(tmp));
}

static void teardown(void)
{
	rm_rf(tmp);
}

/* A fake cgroup directory: cgroup.procs, and subtree_control if given. */
static void fake(const char *rel, const char *subtree)
{
	char path[512];
	(void)snprintf(path, sizeof(path), "%s/%s", tmp, rel);
	cr_assert(mkdir(path, 0755) == 0 || errno == EEXIST, "%s", path);
	(void)snprintf(path, sizeof(path), "%s/%s/cgroup.procs", tmp, rel);
	FILE *f = fopen(path, "w");
	cr_assert_not_null(f);
	fclose(f);
	if (!subtree)
		return;
	(void)snprintf(path, sizeof(path), "%s/%s/cgroup.subtree_control", tmp, rel);
	f = fopen(path, "w");
	cr_assert_not_null(f);
	fputs(subtree, f);
	fclose(f);
}

static void probe(const char *self, const char *parent_subtree, const char *own_subtree,
		  struct limits_cgroup *mem, struct limits_cgroup *pids)
{
	char mi[1024];
	fake("unified", "hugetlb\n");
	fake("unified/app.slice", parent_subtree);
	fake("unified/app.slice/a.scope", own_subtree);
	fake("memory", NULL);
	fake("memory/x", NULL);
	fake("cpuacct", NULL);
	(void)snprintf(mi, sizeof(mi),
		       "41 31 0:38 / %s/unified rw - cgroup2 cgroup2 rw\n"
		       "35 31 0:32 / %s/memory rw - cgroup cgroup rw,memory\n"
		       "36 31 0:33 / %s/cpuacct rw - cgroup cgroup rw,cpu,cpuacct\n", tmp, tmp, tmp);
	cgroup_probe_texts(self, mi, mem, pids, &cpu);
}

static void expect_dir(const struct limits_cgroup *g, enum cgroup_pick_way way, const char *rel)
{
	char want[512];
	(void)snprintf(want, sizeof(want), "%s/%s", tmp, rel);
	cr_assert_eq(g->way, way);
	cr_assert_str_eq(g->dir, want);
}

TestSuite(cgroup, .init = setup, .fini = teardown);

Test(cgroup, v2_delegated_parent_takes_both)
{
	struct limits_cgroup mem, pids;
	probe("0::/app.slice/a.scope\n", "memory pids\n", "\n", &mem, &pids);
	expect_dir(&pids, CGROUP_PICK_V2, "unified/app.slice");
	expect_dir(&mem, CGROUP_PICK_V2, "unified/app.slice");
	expect_dir(&cpu, CGROUP_PICK_V2, "unified/app.slice");
}

Test(cgroup, v2_cpu_time_in_the_own_cgroup_without_controllers)
{
	struct limits_cgroup mem, pids;
	/* The caller's cgroup is writable but delegates no controller: the
	 * run's cgroup beneath it still counts CPU time. */
	probe("0::/app.slice/a.scope\n", NULL, "\n", &mem, &pids);
	cr_assert_eq(pids.way, CGROUP_PICK_NONE);
	expect_dir(&cpu, CGROUP_PICK_V2, "unified/app.slice/a.scope");
}

Test(cgroup, v2_cpu_time_goes_with_the_limits)
{
	struct limits_cgroup mem, pids;
	/* pids beside the own cgroup: the CPU time must be counted in that
	 * same cgroup, the only v2 one the sandbox can be in. */
	probe("0::/app.slice/a.scope\n", "pids\n", "\n", &mem, &pids);
	expect_dir(&cpu, CGROUP_PICK_V2, "unified/app.slice");
}

Test(cgroup, v2_without_memory_falls_back_to_v1)
{
	struct limits_cgroup mem, pids;
	probe("4:memory:/x\n0::/app.slice/a.scope\n", "pids\n", "\n", &mem, &pids);
	expect_dir(&pids, CGROUP_PICK_V2, "unified/app.slice");
	expect_dir(&mem, CGROUP_PICK_V1, "memory/x");
}

Test(cgroup, one_v2_cgroup_for_both_limits)
{
	struct limits_cgroup mem, pids;
	/* memory offered beneath the own cgroup, pids only beside it: a
	 * process is in one v2 cgroup, so memory gives way (no v1 line). */
	probe("0::/app.slice/a.scope\n", "pids\n", "memory\n", &mem, &pids);
	expect_dir(&pids, CGROUP_PICK_V2, "unified/app.slice");
	cr_assert_eq(mem.way, CGROUP_PICK_NONE);
}

Test(cgroup, this_machines_hybrid_has_no_v2_controller)
{
	struct limits_cgroup mem, pids;
	probe("4:memory:/x\n0::/\n", "\n", "\n", &mem, &pids);
	cr_assert_eq(pids.way, CGROUP_PICK_NONE, "hugetlb alone in the v2 root, no pids mount");
	expect_dir(&mem, CGROUP_PICK_V1, "memory/x");
	/* The v2 root is writable here (the test runs as the owner of the
	 * fake tree), so it counts the CPU time. */
	expect_dir(&cpu, CGROUP_PICK_V2, "unified");
}

Test(cgroup, v1_cpuacct_counts_cpu_time_when_v2_cannot)
{
	struct limits_cgroup mem, pids;
	char path[512];
	probe("4:memory:/x\n2:cpu,cpuacct:/\n0::/app.slice/a.scope\n", "\n", "\n", &mem, &pids);
	(void)snprintf(path, sizeof(path), "%s/unified/app.slice/a.scope", tmp);
	cr_assert_eq(chmod(path, 0555), 0);
	(void)snprintf(path, sizeof(path), "%s/unified/app.slice", tmp);
	cr_assert_eq(chmod(path, 0555), 0);
	if (geteuid() == 0) {
		/* root writes anywhere: no unwritable v2 cgroup to fall back from */
		expect_dir(&cpu, CGROUP_PICK_V2, "unified/app.slice/a.scope");
		return;
	}
	probe("4:memory:/x\n2:cpu,cpuacct:/\n0::/app.slice/a.scope\n", "\n", "\n", &mem, &pids);
	expect_dir(&cpu, CGROUP_PICK_V1, "cpuacct");
}

Test(cgroup, unreadable_proc_means_no_cgroup)
{
	struct limits_cgroup mem, pids;
	cgroup_probe_texts(NULL, NULL, &mem, &pids, &cpu);
	cr_assert_eq(cpu.way, CGROUP_PICK_NONE);
	cr_assert_eq(mem.way, CGROUP_PICK_NONE);
	cr_assert_eq(pids.way, CGROUP_PICK_NONE);
}

static int exists(const char *name)
{
	char path[512];
	struct stat st;
	(void)snprintf(path, sizeof(path), "%s/%s", tmp, name);
	return stat(path, &st) == 0;
}

static void make(const char *name)
{
	char path[512];
	(void)snprintf(path, sizeof(path), "%s/%s", tmp, name);
	cr_assert_eq(mkdir(path, 0755), 0, "%s", path);
}

Test(cgroup, sweep_removes_only_dead_runs)
{
	uint64_t start;
	char live[64], reused[64], dead[64];
	cr_assert_eq(procstat_start(getpid(), &start), 0);
	pid_t gone = fork();
	if (gone == 0)
		_exit(0);
	cr_assert_eq(waitpid(gone, NULL, 0), gone);
	(void)snprintf(live, sizeof(live), "cordon-%d-%llu", (int)getpid(), (unsigned long long)start);
	(void)snprintf(reused, sizeof(reused), "cordon-%d-%llu", (int)getpid(),
		       (unsigned long long)start + 1);
	(void)snprintf(dead, sizeof(dead), "cordon-%d-1", (int)gone);
	make(live);
	make(reused);
	make(dead);
	make("cordon-other");
	make("user.slice");
	cgroup_sweep_in(tmp);
	cr_assert(exists(live), "its cordon runs");
	cr_assert_not(exists(reused), "a pid reused by another process: its cordon is gone");
	cr_assert_not(exists(dead));
	cr_assert(exists("cordon-other"), "not a run's name");
	cr_assert(exists("user.slice"));
}

Test(cgroup, a_limit_that_cannot_be_set_is_an_error_and_nothing_is_left)
{
	struct limits_plan p = { .pids_way = LIMITS_PIDS_CGROUP, .pids = 10, .decided = 1 };
	struct cgroup_run r = CGROUP_RUN_INIT;
	struct cordon_err e = { 0 };
	fake("unified", NULL);
	p.pids_cg.way = CGROUP_PICK_V2;
	(void)snprintf(p.pids_cg.dir, sizeof(p.pids_cg.dir), "%s/unified", tmp);
	cr_assert_eq(cgroup_run_name_pick(&e), 0);
	/* A plain directory has no pids.max: as a cgroup without the
	 * controller would not. */
	cr_assert_lt(cgroup_run_make(&r, &p, getpid(), &e), 0);
	cr_assert(strstr(e.msg, "pids.max"), "%s", e.msg);
	cr_assert_eq(r.n, 1, "the directory made is recorded for removal");
	cr_assert(strstr(r.dir[0], "/unified/cordon-"), "%s", r.dir[0]);
	cgroup_run_remove(&r);
	cr_assert_eq(r.n, 0);
	cr_assert_not(exists(r.dir[0] + strlen(tmp) + 1));
}

Test(cgroup, no_cgroup_asked_for_makes_nothing)
{
	struct limits_plan p = { .pids_way = LIMITS_PIDS_RLIMIT, .pids = 10, .data = 1 << 20 };
	struct cgroup_run r = CGROUP_RUN_INIT;
	struct cordon_err e = { 0 };
	cr_assert_eq(cgroup_run_make(&r, &p, getpid(), &e), 0);
	cr_assert_eq(r.n, 0);
}

Test(cgroup, nothing_made_has_nothing_to_enter)
{
	struct cgroup_run r = CGROUP_RUN_INIT;
	struct cordon_err e = { 0 };
	cr_assert_eq(cgroup_run_enter(&r, getpid(), getpid(), &e), 0);
}

/* Runs' cgroups named at random: the sweep tells a dead run's by its lock.
 * Plain empty directories stand in. */
Test(cgroup, sweep_of_random_names_by_their_lock)
{
	char path[512];
	make("cordon-00000000000000aa");      /* locked by its cordon */
	make("cordon-00000000000000bb");      /* no lock: dead */
	make("user.slice");
	(void)snprintf(path, sizeof(path), "%s/cordon-00000000000000aa", tmp);
	int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	cr_assert_geq(fd, 0);
	cr_assert_eq(flock(fd, LOCK_EX), 0);
	/* From another process: a flock is per open file, and the sweep must
	 * see this one held by someone else. */
	pid_t pid = fork();
	if (pid == 0) {
		cgroup_sweep_in(tmp);
		_exit(0);
	}
	cr_assert_eq(waitpid(pid, NULL, 0), pid);
	cr_assert(exists("cordon-00000000000000aa"), "held by a live run");
	cr_assert_not(exists("cordon-00000000000000bb"), "no lock: a dead run");
	cr_assert(exists("user.slice"), "not a run's name");
	(void)close(fd);
	cgroup_sweep_in(tmp);
	cr_assert_not(exists("cordon-00000000000000aa"), "its lock released: a dead run");
}

/* The v2 cgroup.kill it holds (bwrap_kill writes it, test_bwrap.c) is
 * closed with the run's cgroup. */
Test(cgroup, cgroup_kill_closed_with_the_run)
{
	char path[512];
	struct cgroup_run r = CGROUP_RUN_INIT;
	(void)snprintf(path, sizeof(path), "%s/cgroup.kill", tmp);
	r.kill_fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	cr_assert_geq(r.kill_fd, 0);
	cgroup_run_remove(&r);
	cr_assert_eq(r.kill_fd, -1, "closed with the run's cgroup");
}
