/* test_child.c: what child_spawn lets the binary it starts inherit. */
#include <criterion/criterion.h>

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "launch/child.h"

/* bwrap inherits the keep list and nothing else the caller left open: the
 * stand-in "bwrap" here is a shell that lists its descriptors. */
Test(child_spawn, only_the_keep_list_crosses_into_bwrap)
{
	int stray = open("/dev/null", O_RDONLY);         /* no O_CLOEXEC: the caller's */
	int kept = open("/dev/null", O_RDONLY | O_CLOEXEC);
	int out[2];
	cr_assert(stray >= 0 && kept >= 0);
	cr_assert_eq(pipe2(out, O_CLOEXEC), 0);
	int sh = open("/bin/sh", O_PATH | O_CLOEXEC);
	cr_assert_geq(sh, 0);
	char script[128];
	snprintf(script, sizeof(script), "exec ls /proc/self/fd >/proc/self/fd/%d", out[1]);
	char *argv[] = { "sh", "-c", script, NULL };
	char *envp[] = { "PATH=/usr/bin:/bin", NULL };
	int keep[] = { kept, out[1] };
	sigset_t mask;
	sigemptyset(&mask);
	struct child_spec spec = { "sh", sh, argv, envp, keep, 2, &mask, NULL };
	struct cordon_err e = { 0 };
	pid_t pid = child_spawn(&spec, &e);
	cr_assert_gt(pid, 0, "%s", e.msg);
	close(out[1]);
	char buf[512] = { 0 };
	size_t len = 0;
	ssize_t n;
	while ((n = read(out[0], buf + len, sizeof(buf) - 1 - len)) > 0)
		len += (size_t)n;
	int st;
	cr_assert_eq(waitpid(pid, &st, 0), pid);
	cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "status 0x%x", st);
	int saw_kept = 0, saw_stray = 0;
	for (char *t = strtok(buf, "\n"); t; t = strtok(NULL, "\n")) {
		saw_kept |= atoi(t) == kept;
		saw_stray |= atoi(t) == stray;
	}
	cr_assert(saw_kept, "a descriptor on the keep list reaches bwrap: %s", buf);
	cr_assert_not(saw_stray, "a descriptor the caller left open reaches bwrap");
	close(stray);
	close(kept);
	close(out[0]);
	close(sh);
}

/* stdio puts a descriptor on 1 (the pty's slave for bwrap); -1 keeps ours. */
Test(child_spawn, stdio_goes_where_it_is_asked)
{
	int out[2];
	cr_assert_eq(pipe2(out, O_CLOEXEC), 0);
	int sh = open("/bin/sh", O_PATH | O_CLOEXEC);
	cr_assert_geq(sh, 0);
	char *argv[] = { "sh", "-c", "echo on-one; echo on-two >&2", NULL };
	char *envp[] = { "PATH=/usr/bin:/bin", NULL };
	int stdio[3] = { -1, out[1], out[1] };
	sigset_t mask;
	sigemptyset(&mask);
	struct child_spec spec = { "sh", sh, argv, envp, NULL, 0, &mask, stdio };
	struct cordon_err e = { 0 };
	pid_t pid = child_spawn(&spec, &e);
	cr_assert_gt(pid, 0, "%s", e.msg);
	close(out[1]);
	char buf[64] = { 0 };
	size_t len = 0;
	ssize_t n;
	while ((n = read(out[0], buf + len, sizeof(buf) - 1 - len)) > 0)
		len += (size_t)n;
	int st;
	cr_assert_eq(waitpid(pid, &st, 0), pid);
	cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	cr_assert_str_eq(buf, "on-one\non-two\n");
	close(out[0]);
	close(sh);
}
