/* test_vclone.c: the short-lived process that shares cordon's memory. */
#include <criterion/criterion.h>

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "launch/vclone.h"

struct job {
	pid_t seen_pid;
	int closed;
	int fd;
};

static int work(void *arg)
{
	struct job *j = arg;
	j->seen_pid = getpid();
	j->closed = close(j->fd) == 0;
	errno = EIO; /* on cordon's errno too: the memory is shared */
	return 7;
}

/* It runs to its end before vclone_run returns, in a process of its own,
 * writes where it was told, and cordon's errno and descriptors are as they
 * were: the child's close() was on its own table. */
Test(vclone, runs_apart_and_returns_after_it)
{
	struct job j = { 0, 0, open("/dev/null", O_RDONLY | O_CLOEXEC) };
	cr_assert_geq(j.fd, 0);
	errno = 4321;
	pid_t pid = vclone_run(work, &j);
	cr_assert_gt(pid, 0);
	cr_assert_eq(errno, 4321, "cordon's errno is restored");
	cr_assert_eq(j.seen_pid, pid, "it ran, as that process, before the return");
	cr_assert(j.closed, "it closed the descriptor in its own table");
	cr_assert_eq(fcntl(j.fd, F_GETFD), FD_CLOEXEC, "cordon's copy is still open");
	int st;
	cr_assert_eq(waitpid(pid, &st, 0), pid);
	cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 7, "its return value is its status");
	close(j.fd);
}

static int enter_userns(void *arg)
{
	int fd = *(int *)arg;
	return setns(fd, CLONE_NEWUSER) == 0 ? 0 : errno;
}

/* What it exists for: a user namespace can be entered from it (one thread
 * group, its own fs_struct), which a thread could not.  Control: cordon
 * itself is still in its own user namespace afterwards. */
Test(vclone, may_enter_a_user_namespace)
{
	int p[2], ready[2];
	char c;
	cr_assert_eq(pipe(p), 0);
	cr_assert_eq(pipe(ready), 0);
	pid_t holder = fork();
	cr_assert_geq(holder, 0);
	if (holder == 0) {
		close(p[1]);
		close(ready[0]);
		if (unshare(CLONE_NEWUSER) < 0)
			_exit(1);
		if (write(ready[1], "r", 1) != 1)
			_exit(3);
		_exit(read(p[0], &c, 1) < 0 ? 2 : 0);
	}
	close(p[0]);
	close(ready[1]);
	cr_assert_eq(read(ready[0], &c, 1), 1, "the holder has its user namespace");
	close(ready[0]);
	char path[64], before[64], after[64];
	snprintf(path, sizeof(path), "/proc/%d/ns/user", (int)holder);
	int ns = open(path, O_RDONLY | O_CLOEXEC);
	cr_assert_geq(ns, 0);
	ssize_t n = readlink("/proc/self/ns/user", before, sizeof(before) - 1);
	cr_assert_gt(n, 0);
	before[n] = '\0';
	pid_t pid = vclone_run(enter_userns, &ns);
	cr_assert_gt(pid, 0);
	int st;
	cr_assert_eq(waitpid(pid, &st, 0), pid);
	cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "setns(CLONE_NEWUSER) failed: %d",
		  WEXITSTATUS(st));
	n = readlink("/proc/self/ns/user", after, sizeof(after) - 1);
	cr_assert_gt(n, 0);
	after[n] = '\0';
	cr_assert_str_eq(before, after, "cordon stayed where it was");
	close(ns);
	close(p[1]);
	waitpid(holder, NULL, 0);
}
