/* test_bwrap.c: the bwrap child's owner: the sandbox's pid read from
 * bwrap's --info-fd output, the unreleased child killed (and only bwrap's),
 * the whole handshake (options, map, release) against a stand-in bwrap, and
 * the running sandbox's signal, kill, end with its grace, and reap. */
#include <criterion/criterion.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "launch/bwrap.h"
#include "wire.h"

Test(bwrap_parse_child_pid, bwrap_output)
{
	cr_assert_eq(bwrap_parse_child_pid("{\n    \"child-pid\": 4242\n}\n"), 4242);
	cr_assert_eq(bwrap_parse_child_pid("{\n    \"child-pid\": 17,\n    \"cgroup-namespace\": 1\n}"), 17);
}

Test(bwrap_parse_child_pid, incomplete_or_bad)
{
	/* Still arriving: the number may not be complete yet. */
	cr_assert_eq(bwrap_parse_child_pid("{\n    \"child-pid\": 42"), 0);
	cr_assert_eq(bwrap_parse_child_pid("{\n    \"child-pid\": "), 0);
	cr_assert_eq(bwrap_parse_child_pid("{ \"other\": 5 }"), 0);
	cr_assert_eq(bwrap_parse_child_pid("{ \"child-pid\": 1 }"), 0, "pid 1 is never bwrap's child");
	cr_assert_eq(bwrap_parse_child_pid("{ \"child-pid\": -5 }"), 0);
	cr_assert_eq(bwrap_parse_child_pid("{ \"child-pid\": 99999999 }"), 0);
}

Test(bwrap_read_child, waits_for_the_whole_number)
{
	int p[2];
	cr_assert_eq(pipe2(p, O_CLOEXEC | O_NONBLOCK), 0);
	pid_t w = fork();
	cr_assert_geq(w, 0);
	if (w == 0) {
		static const char a[] = "{\n    \"child-pid\": 12";
		static const char b[] = "34\n}\n";
		ssize_t r1 = write(p[1], a, sizeof(a) - 1);
		usleep(20000);
		ssize_t r2 = write(p[1], b, sizeof(b) - 1);
		_exit(r1 > 0 && r2 > 0 ? 0 : 1);
	}
	close(p[1]);
	pid_t child = 0;
	struct cordon_err e = { 0 };
	cr_assert_eq(bwrap_read_child(p[0], -1, &child, &e), 0, "%s", e.msg);
	cr_assert_eq(child, 1234);
	close(p[0]);
	waitpid(w, NULL, 0);
}

Test(bwrap_read_child, end_of_file_is_bwrap_failing)
{
	int p[2];
	cr_assert_eq(pipe2(p, O_CLOEXEC | O_NONBLOCK), 0);
	cr_assert_eq(write(p[1], "{", 1), 1);
	close(p[1]);
	pid_t child = 0;
	struct cordon_err e = { 0 };
	cr_assert_lt(bwrap_read_child(p[0], -1, &child, &e), 0);
	cr_assert(strstr(e.msg, "bwrap could not build the sandbox"), "%s", e.msg);
	close(p[0]);
}

Test(bwrap_read_child, gives_up_after_its_timeout)
{
	int p[2];
	cr_assert_eq(pipe2(p, O_CLOEXEC | O_NONBLOCK), 0);
	pid_t child = 0;
	struct cordon_err e = { 0 };
	cr_assert_eq(bwrap_read_child(p[0], 50, &child, &e), -ETIMEDOUT, "%s", e.msg);
	close(p[0]);
	close(p[1]);
}

/* 'Z' or gone: the process has been killed. */
static int dead(pid_t pid)
{
	char path[64], buf[512];
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 1;
	ssize_t n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 1;
	buf[n] = '\0';
	const char *p = strrchr(buf, ')');
	return p && p[1] == ' ' && (p[2] == 'Z' || p[2] == 'X');
}

/* A stand-in for bwrap blocked before its release: it forks a child that
 * waits forever, reports the child's pid like bwrap's --info-fd, and waits. */
static pid_t fake_bwrap(int info[2], pid_t *grandchild)
{
	int back[2];
	cr_assert_eq(pipe2(info, O_CLOEXEC), 0);
	cr_assert_eq(pipe2(back, O_CLOEXEC), 0);
	pid_t b = fork();
	cr_assert_geq(b, 0);
	if (b == 0) {
		pid_t c = fork();
		if (c == 0) {
			for (;;)
				pause();
		}
		char msg[64];
		int n = snprintf(msg, sizeof(msg), "{\n    \"child-pid\": %d\n}\n", (int)c);
		if (write(info[1], msg, (size_t)n) != n || write(back[1], &c, sizeof(c)) != sizeof(c))
			_exit(1);
		for (;;)
			pause();
	}
	close(info[1]);
	close(back[1]);
	cr_assert_eq(read(back[0], grandchild, sizeof(*grandchild)), (ssize_t)sizeof(*grandchild));
	close(back[0]);
	cr_assert_eq(fcntl(info[0], F_SETFL, O_NONBLOCK), 0);
	return b;
}

Test(bwrap_close, kills_the_waiting_child_of_bwrap)
{
	int info[2];
	pid_t c = 0;
	struct bwrap bw = BWRAP_INIT;
	bw.pid = fake_bwrap(info, &c);
	bw.args_sent = 1;
	bw.info[0] = info[0];
	bwrap_close(&bw);
	for (int i = 0; i < 200 && !dead(c); i++)
		usleep(5000);
	cr_assert(dead(c), "the waiting child is killed");
	cr_assert_eq(bw.pid, 0, "bwrap is reaped");
	cr_assert_eq(bw.info[0], -1);
}

/* A start that failed for want of descriptors (issue 30, item 13): the
 * list of bwrap's children, held since its start, still finds the child
 * waiting for its release; opening it then would fail with EMFILE. */
Test(bwrap_close, kills_the_waiting_child_with_no_descriptor_left)
{
	int info[2], fill[256];
	size_t nfill = 0;
	pid_t c = 0;
	char path[64];
	struct bwrap bw = BWRAP_INIT;
	bw.pid = fake_bwrap(info, &c);
	bw.args_sent = 1;
	bw.info[0] = info[0];
	snprintf(path, sizeof(path), "/proc/%d/task/%d/children", (int)bw.pid, (int)bw.pid);
	bw.children = open(path, O_RDONLY | O_CLOEXEC);
	cr_assert_geq(bw.children, 0);
	struct rlimit rl;
	cr_assert_eq(getrlimit(RLIMIT_NOFILE, &rl), 0);
	rl.rlim_cur = 64;
	cr_assert_eq(setrlimit(RLIMIT_NOFILE, &rl), 0);
	while (nfill < 256 && (fill[nfill] = open("/", O_PATH | O_CLOEXEC)) >= 0)
		nfill++;
	cr_assert_eq(errno, EMFILE, "every descriptor is taken");
	bwrap_close(&bw);
	for (size_t i = 0; i < nfill; i++)
		close(fill[i]);
	for (int i = 0; i < 200 && !dead(c); i++)
		usleep(5000);
	int killed = dead(c);
	kill(c, SIGKILL);
	cr_assert(killed, "bwrap's waiting child is killed");
	cr_assert_eq(bw.pid, 0, "bwrap is reaped");
	cr_assert_eq(bw.children, -1, "and the list closed");
}

/* bwrap between its clone and its --info-fd report (a loaded machine, or
 * the report never comes): the child is there, its pid unknown.  cordon
 * failing then must not leave it waiting for a release that never comes
 * (it read --info-fd for 2 s, then killed bwrap alone). */
Test(bwrap_close, kills_a_child_bwrap_has_not_reported)
{
	int info[2], back[2];
	cr_assert_eq(pipe2(info, O_CLOEXEC), 0);
	cr_assert_eq(pipe2(back, O_CLOEXEC), 0);
	pid_t b = fork();
	cr_assert_geq(b, 0);
	if (b == 0) {
		pid_t c = fork();
		if (c == 0) {
			for (;;)
				pause();
		}
		if (write(back[1], &c, sizeof(c)) != sizeof(c))
			_exit(1);
		for (;;)
			pause();
	}
	close(back[1]);
	pid_t c = 0;
	cr_assert_eq(read(back[0], &c, sizeof(c)), (ssize_t)sizeof(c));
	close(back[0]);
	struct bwrap bw = BWRAP_INIT;
	bw.pid = b;
	bw.args_sent = 1;
	bw.info[0] = info[0];
	bw.info[1] = info[1];
	bwrap_close(&bw);
	for (int i = 0; i < 200 && !dead(c); i++)
		usleep(5000);
	int killed = dead(c);
	kill(c, SIGKILL);
	cr_assert(killed, "bwrap's unreported child is left waiting");
	cr_assert_eq(bw.pid, 0, "bwrap is reaped");
}

Test(bwrap_close, spares_a_process_that_is_not_bwraps_child)
{
	int info[2];
	pid_t c = 0;
	pid_t b = fake_bwrap(info, &c);
	pid_t other = fork();
	cr_assert_geq(other, 0);
	if (other == 0) {
		for (;;)
			pause();
	}
	/* A struct naming the wrong parent: nothing but it may be killed. */
	struct bwrap bw = BWRAP_INIT;
	bw.pid = other;
	bw.args_sent = 1;
	bw.info[0] = info[0];
	bwrap_close(&bw);
	usleep(50000);
	cr_assert(!dead(c), "a process that is not bwrap's child is left alone");
	kill(c, SIGKILL);
	kill(b, SIGKILL);
	waitpid(b, NULL, 0);
}

Test(bwrap_close, no_child_before_the_options)
{
	int info[2];
	pid_t c = 0;
	struct bwrap bw = BWRAP_INIT;
	bw.pid = fake_bwrap(info, &c);
	bw.info[0] = info[0];
	pid_t b = bw.pid;
	bwrap_close(&bw); /* args_sent == 0: bwrap cannot have cloned yet */
	usleep(50000);
	cr_assert(!dead(c), "without options sent, no child is looked for");
	cr_assert(dead(b));
	kill(c, SIGKILL);
}

/* A stand-in for bwrap: it records its options, reports a child in a user
 * namespace of its own on --info-fd, and once released records the byte
 * and the child's uid_map (what cordon wrote) in the directory it is given
 * through the environment.  STANDIN_EXIT=1 makes it exit after reading its
 * options, the way bwrap does when it refuses them. */
static const char standin[] =
	"#!/bin/bash\n"
	"[ \"$1\" = --args ] || exit 9\n"
	"eval \"exec 7<&$2\"\n"
	"tr '\\000' '\\n' <&7 >\"$OUT/opts\"\n"
	"exec 7<&-\n"
	"[ -n \"$STANDIN_EXIT\" ] && exit 1\n"
	"info=$(sed -n '/^--info-fd$/{n;p}' \"$OUT/opts\")\n"
	"block=$(sed -n '/^--userns-block-fd$/{n;p}' \"$OUT/opts\")\n"
	"unshare -U sleep 1000 & c=$!\n"
	"while [ \"$(readlink /proc/$c/ns/user)\" = \"$(readlink /proc/self/ns/user)\" ]; do :; done\n"
	"eval \"printf '{\\n    \\\"child-pid\\\": %d\\n}\\n' $c >&$info\"\n"
	"eval \"head -c1 <&$block\" >\"$OUT/released\"\n"
	"cat /proc/$c/uid_map >\"$OUT/uid_map\"\n"
	"kill -KILL $c\n" /* SIGTERM is ignored: bwrap starts with the end signals ignored */
	"wait\n"
	"exit 0\n";

static int write_standin(char dir[64])
{
	strcpy(dir, "/tmp/cordon-test-bwrap.XXXXXX");
	cr_assert_not_null(mkdtemp(dir));
	char path[128];
	snprintf(path, sizeof(path), "%s/bwrap", dir);
	FILE *f = fopen(path, "w");
	cr_assert_not_null(f);
	fputs(standin, f);
	fclose(f);
	chmod(path, 0755);
	/* Not O_CLOEXEC: the kernel runs a script through /dev/fd/N, which a
	 * close-on-exec descriptor would no longer be by then. */
	int fd = open(path, O_PATH);
	cr_assert_geq(fd, 0);
	return fd;
}

/* The stand-in's directory and what it wrote, gone after the test. */
static void drop_standin(const char *dir, int exe)
{
	static const char *const files[] = { "bwrap", "opts", "released", "uid_map" };
	char path[128];
	close(exe);
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, files[i]);
		(void)unlink(path);
	}
	cr_assert_eq(rmdir(dir), 0, "%s: nothing else is left in it", dir);
}

static char *slurp(const char *dir, const char *name)
{
	static char buf[4096];
	char path[128];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);
	if (fd >= 0)
		close(fd);
	buf[n > 0 ? n : 0] = '\0';
	return buf;
}

static void start(struct bwrap *bw, int exe, const char *dir, int fail)
{
	static char out_env[128];
	snprintf(out_env, sizeof(out_env), "OUT=%s", dir);
	char *envp[] = { out_env, "PATH=/usr/bin:/bin", fail ? "STANDIN_EXIT=1" : NULL, NULL };
	char *inner_args[] = { "--control", "9", NULL };
	char *cmd[] = { "true", NULL };
	struct bwrap_opts o = { .bwrap_name = "bwrap", .inner_exec = "/proc/self/fd/9",
				.inner_args = inner_args, .cmd = cmd };
	struct cordon_err e = { 0 };
	cr_assert_eq(bwrap_open(bw, &e), 0, "%s", e.msg);
	bwrap_fill_opts(bw, &o);
	int keep[3];
	size_t nkeep = bwrap_keep(bw, keep);
	sigset_t mask;
	sigemptyset(&mask);
	struct bwrap_start s = { exe, &o, envp, keep, nkeep, &mask, NULL };
	cr_assert_eq(bwrap_start(bw, &s, &e), 0, "%s", e.msg);
	cr_assert_gt(bw->pid, 0);
	cr_assert_eq(bw->info[1], -1, "cordon keeps no copy of bwrap's end of --info-fd");
	char info[16], block[16];
	snprintf(info, sizeof(info), "%d", o.info_fd);
	snprintf(block, sizeof(block), "%d", o.userns_block_fd);
	char *opts[] = { "bwrap", "--info-fd", info, "--userns-block-fd", block, "--unshare-all" };
	cr_assert_eq(bwrap_send_args(bw, opts, 6, &e), 0, "%s", e.msg);
	cr_assert(bw->args_sent);
}

Test(bwrap, options_map_and_release_through_a_stand_in)
{
	char dir[64];
	int exe = write_standin(dir);
	struct bwrap bw = BWRAP_INIT;
	struct cordon_err e = { 0 };
	start(&bw, exe, dir, 0);
	cr_assert_eq(bwrap_map(&bw, geteuid(), getegid(), &e), 0, "%s", e.msg);
	cr_assert_gt(bw.child, 0);
	cr_assert_eq(bwrap_release(&bw, &e), 0, "%s", e.msg);
	int st, reaped;
	struct rusage ru;
	while ((reaped = bwrap_reap(&bw, &st, &ru)) == 0)
		usleep(5000);
	cr_assert_eq(reaped, 1);
	cr_assert_eq(bw.pid, 0, "reaped once");
	cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "status 0x%x", st);
	cr_assert(strstr(slurp(dir, "opts"), "--unshare-all\n"), "the options arrive: %s",
		  slurp(dir, "opts"));
	cr_assert_str_eq(slurp(dir, "released"), "m");
	char want[64];
	snprintf(want, sizeof(want), "%u", (unsigned)geteuid());
	cr_assert(strstr(slurp(dir, "uid_map"), want), "the child is mapped: %s", slurp(dir, "uid_map"));
	bwrap_close(&bw);
	drop_standin(dir, exe);
}

Test(bwrap, a_bwrap_that_exits_fails_the_map_and_is_reaped)
{
	char dir[64];
	int exe = write_standin(dir);
	struct bwrap bw = BWRAP_INIT;
	struct cordon_err e = { 0 };
	start(&bw, exe, dir, 1);
	cr_assert_eq(bwrap_map(&bw, geteuid(), getegid(), &e), -EIO);
	cr_assert(strstr(e.msg, "bwrap could not build the sandbox"), "%s", e.msg);
	cr_assert_eq(bw.pid, 0, "reaped by bwrap_fail");
	bwrap_close(&bw);
	drop_standin(dir, exe);
}

/* A stand-in for bwrap and its child at once (bwrap_signal and bwrap_kill
 * reach the child, bwrap_reap waits for bwrap): waits forever; ignores
 * WIRE_END_SIGNAL if asked, as a PID 1 that does not end the sandbox. */
static void running(struct bwrap *b, int ignore_end)
{
	int ready[2];
	char c;
	cr_assert_eq(pipe2(ready, O_CLOEXEC), 0);
	pid_t p = fork();
	cr_assert_geq(p, 0);
	if (p == 0) {
		if (ignore_end)
			signal(WIRE_END_SIGNAL, SIG_IGN);
		if (write(ready[1], "r", 1) != 1)
			_exit(1);
		for (;;)
			pause();
	}
	close(ready[1]);
	cr_assert_eq(read(ready[0], &c, 1), 1, "the stand-in is ready");
	close(ready[0]);
	b->pid = p;
	b->child = p;
}

/* Reap the stand-in: its wait status. */
static int reap(struct bwrap *b)
{
	int st = 0, r;
	struct rusage ru;
	while ((r = bwrap_reap(b, &st, &ru)) == 0)
		usleep(2000);
	cr_assert_eq(r, 1);
	cr_assert_eq(bwrap_reap(b, &st, &ru), -ECHILD, "reaped once");
	return st;
}

Test(bwrap_running, kill_is_sigkill_and_the_cgroups_kill)
{
	struct bwrap b = BWRAP_INIT;
	char path[] = "/tmp/cordon-test-cgkill.XXXXXX", got[8] = { 0 };
	int fd = mkstemp(path);
	cr_assert_geq(fd, 0);
	(void)unlink(path);
	running(&b, 0);
	bwrap_kill_cgroup(&b, fd);
	bwrap_kill(&b);
	int st = reap(&b);
	cr_assert(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL, "status 0x%x", st);
	cr_assert_eq(pread(fd, got, sizeof(got) - 1, 0), 1);
	cr_assert_str_eq(got, "1", "every process of the run's cgroup killed too");
	close(fd);
}

Test(bwrap_running, signal_reaches_pid1)
{
	struct bwrap b = BWRAP_INIT;
	running(&b, 0);
	bwrap_signal(&b, SIGTERM);
	int st = reap(&b);
	cr_assert(WIFSIGNALED(st) && WTERMSIG(st) == SIGTERM, "status 0x%x", st);
}

/* Before bwrap_map PID 1 is unknown (child 0: kill(0, sig) would reach
 * cordon's own process group), and after bwrap_reap its pid may be
 * anyone's: nothing is sent either time. */
Test(bwrap_running, nothing_is_sent_without_a_sandbox)
{
	struct bwrap b = BWRAP_INIT;
	running(&b, 0);
	pid_t p = b.child;
	b.child = 0;
	bwrap_signal(&b, SIGUSR1); /* would end this test process */
	bwrap_kill(&b);
	bwrap_end(&b, 1000);
	cr_assert_eq(b.end_by, 0, "no grace: nothing was asked");
	struct rusage ru;
	int st;
	cr_assert_eq(bwrap_reap(&b, &st, &ru), 0, "the stand-in still runs");
	b.child = p;
	bwrap_kill(&b);
	(void)reap(&b);
	b.child = getpid();
	bwrap_signal(&b, SIGUSR1);
	bwrap_kill(&b);
	cr_assert_eq(b.pid, 0);
}

Test(bwrap_running, end_asks_pid1)
{
	struct bwrap b = BWRAP_INIT;
	running(&b, 0);
	bwrap_end(&b, 1000);
	cr_assert_eq(b.end_by, 1000 + BWRAP_END_GRACE_MS);
	int st = reap(&b);
	cr_assert(WIFSIGNALED(st) && WTERMSIG(st) == WIRE_END_SIGNAL, "status 0x%x", st);
	cr_assert_eq(bwrap_end_due(&b, 1000 + BWRAP_END_GRACE_MS), 0, "no grace left once reaped");
}

Test(bwrap_running, a_pid1_that_does_not_end_it_is_killed_after_the_grace)
{
	struct bwrap b = BWRAP_INIT;
	running(&b, 1);
	bwrap_end(&b, 1000);
	bwrap_end(&b, 1200); /* asked again: the grace still runs from the first */
	cr_assert_eq(bwrap_end_due(&b, 1000 + BWRAP_END_GRACE_MS - 1), 1000 + BWRAP_END_GRACE_MS);
	struct rusage ru;
	int st;
	cr_assert_eq(bwrap_reap(&b, &st, &ru), 0, "within the grace: still there");
	cr_assert_eq(bwrap_end_due(&b, 1000 + BWRAP_END_GRACE_MS), 0);
	st = reap(&b);
	cr_assert(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL, "status 0x%x", st);
}

/* In the caller's PID namespace PID 1's death ends nothing else: a kill
 * asks it first (its scoped kill(-1) ends every process), with the
 * cgroup's kill, and SIGKILLs it only after the grace. */
Test(bwrap_running, shared_pidns_kill_asks_pid1_first)
{
	struct bwrap b = BWRAP_INIT;
	char path[] = "/tmp/cordon-test-cgkill.XXXXXX", got[8] = { 0 };
	int fd = mkstemp(path);
	cr_assert_geq(fd, 0);
	(void)unlink(path);
	bwrap_share_pidns(&b);
	running(&b, 0);
	bwrap_kill_cgroup(&b, fd);
	bwrap_kill(&b);
	cr_assert_gt(b.end_by, 0, "the grace runs");
	int st = reap(&b);
	cr_assert(WIFSIGNALED(st) && WTERMSIG(st) == WIRE_END_SIGNAL, "status 0x%x", st);
	cr_assert_eq(pread(fd, got, sizeof(got) - 1, 0), 1);
	cr_assert_str_eq(got, "1", "the run's cgroup killed too");
	close(fd);
}

Test(bwrap_running, shared_pidns_kill_wait_ends_a_pid1_that_ignores_it)
{
	struct bwrap b = BWRAP_INIT;
	bwrap_share_pidns(&b);
	running(&b, 1);
	int st = 0;
	struct rusage ru;
	cr_assert_eq(bwrap_kill_wait(&b, &st, &ru), 1);
	cr_assert(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL, "status 0x%x", st);
	cr_assert_eq(b.pid, 0, "reaped");
}
