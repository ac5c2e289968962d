/* test_userns.c: reading the sandbox's pid from bwrap's --info-fd output,
 * the parent check, and mapping a real user namespace the way cordon maps
 * bwrap's. */
#include <criterion/criterion.h>

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "launch/userns.h"

Test(userns_parse_child_pid, bwrap_output)
{
	cr_assert_eq(userns_parse_child_pid("{\n    \"child-pid\": 4242\n}\n"), 4242);
	cr_assert_eq(userns_parse_child_pid("{\n    \"child-pid\": 17,\n    \"cgroup-namespace\": 1\n}"), 17);
}

Test(userns_parse_child_pid, incomplete_or_bad)
{
	/* Still arriving: the number may not be complete yet. */
	cr_assert_eq(userns_parse_child_pid("{\n    \"child-pid\": 42"), 0);
	cr_assert_eq(userns_parse_child_pid("{\n    \"child-pid\": "), 0);
	cr_assert_eq(userns_parse_child_pid("{ \"other\": 5 }"), 0);
	cr_assert_eq(userns_parse_child_pid("{ \"child-pid\": 1 }"), 0, "pid 1 is never bwrap's child");
	cr_assert_eq(userns_parse_child_pid("{ \"child-pid\": -5 }"), 0);
	cr_assert_eq(userns_parse_child_pid("{ \"child-pid\": 99999999 }"), 0);
}

Test(userns_read_child, waits_for_the_whole_number)
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
	cr_assert_eq(userns_read_child(p[0], -1, &child, &e), 0, "%s", e.msg);
	cr_assert_eq(child, 1234);
	close(p[0]);
	waitpid(w, NULL, 0);
}

Test(userns_read_child, end_of_file_is_bwrap_failing)
{
	int p[2];
	cr_assert_eq(pipe2(p, O_CLOEXEC | O_NONBLOCK), 0);
	cr_assert_eq(write(p[1], "{", 1), 1);
	close(p[1]);
	pid_t child = 0;
	struct cordon_err e = { 0 };
	cr_assert_lt(userns_read_child(p[0], -1, &child, &e), 0);
	cr_assert(strstr(e.msg, "bwrap could not build the sandbox"), "%s", e.msg);
	close(p[0]);
}

/* A child in a fresh user namespace, waiting until the parent has mapped
 * it; it then reports its ids through the pipe. */
static pid_t unshared_child(int report[2], int go[2])
{
	cr_assert_eq(pipe2(report, O_CLOEXEC), 0);
	cr_assert_eq(pipe2(go, O_CLOEXEC), 0);
	pid_t c = fork();
	cr_assert_geq(c, 0);
	if (c == 0) {
		char b;
		if (unshare(CLONE_NEWUSER) < 0)
			_exit(2);
		if (write(report[1], "u", 1) != 1 || read(go[0], &b, 1) != 1)
			_exit(3);
		char line[64];
		int n = snprintf(line, sizeof(line), "%u %u", (unsigned)getuid(), (unsigned)getgid());
		_exit(write(report[1], line, (size_t)n) == n ? 0 : 4);
	}
	close(report[1]);
	close(go[0]);
	char b;
	cr_assert_eq(read(report[0], &b, 1), 1, "the child could not unshare its user namespace");
	return c;
}

Test(userns_map, maps_the_callers_own_ids)
{
	int report[2], go[2];
	pid_t c = unshared_child(report, go);
	struct cordon_err e = { 0 };
	int r = userns_map(c, getpid(), geteuid(), getegid(), &e);
	cr_assert_eq(r, 0, "%s", e.msg);
	cr_assert_eq(write(go[1], "g", 1), 1);
	char got[64] = { 0 }, want[64];
	cr_assert_gt(read(report[0], got, sizeof(got) - 1), 0);
	snprintf(want, sizeof(want), "%u %u", (unsigned)geteuid(), (unsigned)getegid());
	cr_assert_str_eq(got, want, "inside the namespace the ids are the caller's own");
	int st;
	cr_assert_eq(waitpid(c, &st, 0), c);
	cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0);
}

Test(userns_map, refuses_a_process_that_is_not_bwraps_child)
{
	int report[2], go[2];
	pid_t c = unshared_child(report, go);
	struct cordon_err e = { 0 };
	/* Claim another parent: the map must not be written. */
	cr_assert_lt(userns_map(c, getppid(), geteuid(), getegid(), &e), 0);
	cr_assert(strstr(e.msg, "not bwrap's child"), "%s", e.msg);
	char path[64], buf[64] = { 0 };
	snprintf(path, sizeof(path), "/proc/%d/uid_map", (int)c);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	cr_assert_geq(fd, 0);
	cr_assert_eq(read(fd, buf, sizeof(buf)), 0, "the namespace stays unmapped: %s", buf);
	close(fd);
	kill(c, SIGKILL);
	waitpid(c, NULL, 0);
}

Test(userns_map, a_gone_process_fails)
{
	pid_t c = fork();
	cr_assert_geq(c, 0);
	if (c == 0)
		_exit(0);
	waitpid(c, NULL, 0);
	struct cordon_err e = { 0 };
	cr_assert_lt(userns_map(c, getpid(), geteuid(), getegid(), &e), 0);
}

Test(userns_read_child, gives_up_after_its_timeout)
{
	int p[2];
	cr_assert_eq(pipe2(p, O_CLOEXEC | O_NONBLOCK), 0);
	pid_t child = 0;
	struct cordon_err e = { 0 };
	cr_assert_eq(userns_read_child(p[0], 50, &child, &e), -ETIMEDOUT, "%s", e.msg);
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

Test(userns_kill_child, kills_the_waiting_child_of_bwrap)
{
	int info[2];
	pid_t c = 0, got = 0;
	pid_t b = fake_bwrap(info, &c);
	userns_kill_child(info[0], b, &got);
	cr_assert_eq(got, c, "the child's pid is read from the info stream");
	for (int i = 0; i < 200 && !dead(c); i++)
		usleep(5000);
	cr_assert(dead(c), "the waiting child is killed");
	kill(b, SIGKILL);
	waitpid(b, NULL, 0);
	close(info[0]);
}

Test(userns_kill_child, spares_a_process_that_is_not_bwraps_child)
{
	int info[2];
	pid_t c = 0, got = 0;
	pid_t b = fake_bwrap(info, &c);
	/* Name the wrong parent: nothing may be killed. */
	userns_kill_child(info[0], getpid(), &got);
	usleep(50000);
	cr_assert(!dead(c), "a process that is not bwrap's child is left alone");
	kill(c, SIGKILL);
	kill(b, SIGKILL);
	waitpid(b, NULL, 0);
	close(info[0]);
}
