/* test_userns.c: the parent check, and mapping a real user namespace the
 * way cordon maps bwrap's. */
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
