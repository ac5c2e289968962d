/* test_child.c: what child_spawn lets the binary it starts inherit. */
#include <criterion/criterion.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
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
	struct child_spec spec = { "sh", sh, argv, envp, keep, 2, &mask, NULL, NULL, 0, 0 };
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
	struct child_spec spec = { "sh", sh, argv, envp, NULL, 0, &mask, stdio, NULL, 0, 0 };
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

/* A binary that cannot be executed: child_spawn says so itself (the child
 * shares cordon's memory until its exec, so it leaves the reason there
 * instead of printing), and nothing is left running or unreaped. */
Test(child_spawn, an_exec_failure_is_returned_with_its_reason)
{
	char path[] = "/tmp/cordon-test-child-XXXXXX";
	int w = mkstemp(path);
	cr_assert_geq(w, 0);
	cr_assert_eq(write(w, "\x7f" "ELF-not-really", 15), 15);
	cr_assert_eq(fchmod(w, 0755), 0);
	close(w);
	int notexec = open(path, O_PATH | O_CLOEXEC);
	cr_assert_geq(notexec, 0);
	unlink(path);
	char *argv[] = { "x", NULL };
	char *envp[] = { NULL };
	struct child_spec spec = { "the-helper", notexec, argv, envp, NULL, 0, NULL, NULL, NULL, 0, 0 };
	struct cordon_err e = { 0 };
	pid_t pid = child_spawn(&spec, &e);
	cr_assert_lt(pid, 0, "a file that is no program did not start");
	cr_assert_eq(-pid, ENOEXEC, "the exec's own errno comes back: %d", (int)-pid);
	cr_assert(strstr(e.msg, "cannot execute the-helper"), "%s", e.msg);
	cr_assert_eq(waitpid(-1, NULL, WNOHANG), -1, "the failed child was reaped");
	close(notexec);
}

/* Control: cordon's own descriptors and errno are its own after a start
 * (the child has a table of its own and closes everything in it). */
Test(child_spawn, the_callers_descriptors_and_errno_are_untouched)
{
	int mine = open("/dev/null", O_RDONLY | O_CLOEXEC);
	cr_assert_geq(mine, 0);
	int sh = open("/bin/sh", O_PATH | O_CLOEXEC);
	char *argv[] = { "sh", "-c", "exit 0", NULL };
	char *envp[] = { NULL };
	struct child_spec spec = { "sh", sh, argv, envp, NULL, 0, NULL, NULL, NULL, 0, 0 };
	struct cordon_err e = { 0 };
	errno = 1234;
	pid_t pid = child_spawn(&spec, &e);
	cr_assert_gt(pid, 0, "%s", e.msg);
	cr_assert_eq(errno, 1234, "errno as it was");
	cr_assert_eq(fcntl(mine, F_GETFD), FD_CLOEXEC, "still open, still close-on-exec");
	int st;
	cr_assert_eq(waitpid(pid, &st, 0), pid);
	cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	close(mine);
	close(sh);
}

/* The child leads a process group of its own (a terminal's Ctrl-C for
 * cordon's group must not reach bwrap); control: cordon's is unchanged. */
Test(child_spawn, the_child_has_a_process_group_of_its_own)
{
	int sh = open("/bin/sh", O_PATH | O_CLOEXEC);
	cr_assert_geq(sh, 0);
	char *argv[] = { "sh", "-c", "read -r _ _ _ _ g _ < /proc/$$/stat; [ \"$g\" = \"$$\" ]", NULL };
	char *envp[] = { NULL };
	struct child_spec spec = { "sh", sh, argv, envp, NULL, 0, NULL, NULL, NULL, 0, 0 };
	struct cordon_err e = { 0 };
	pid_t before = getpgrp();
	pid_t pid = child_spawn(&spec, &e);
	cr_assert_gt(pid, 0, "%s", e.msg);
	int st;
	cr_assert_eq(waitpid(pid, &st, 0), pid);
	cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "its group is its own pid");
	cr_assert_eq(getpgrp(), before, "cordon's own group is unchanged");
	close(sh);
}

/* ignore: the end signals set to SIG_IGN before the exec stay ignored in
 * the program (bwrap survives a SIGTERM meant for the command); others
 * keep their default. */
Test(child_spawn, the_end_signals_are_ignored_across_exec)
{
	int out[2];
	cr_assert_eq(pipe2(out, O_CLOEXEC), 0);
	int sh = open("/bin/sh", O_PATH | O_CLOEXEC);
	cr_assert_geq(sh, 0);
	char *argv[] = { "sh", "-c", "grep SigIgn /proc/self/status", NULL };
	char *envp[] = { "PATH=/usr/bin:/bin", NULL };
	int stdio[3] = { -1, out[1], -1 };
	sigset_t mask;
	sigemptyset(&mask);
	struct child_spec spec = { "sh", sh, argv, envp, NULL, 0, &mask, stdio, NULL, 0,
				   child_end_signals() };
	struct cordon_err e = { 0 };
	pid_t pid = child_spawn(&spec, &e);
	cr_assert_gt(pid, 0, "%s", e.msg);
	close(out[1]);
	char buf[128] = { 0 };
	size_t len = 0;
	ssize_t n;
	while ((n = read(out[0], buf + len, sizeof(buf) - 1 - len)) > 0)
		len += (size_t)n;
	int st;
	cr_assert_eq(waitpid(pid, &st, 0), pid);
	unsigned long long ign = strtoull(strchr(buf, ':') + 1, NULL, 16);
	unsigned long long want = child_end_signals();
	cr_assert_eq(ign & want, want, "ignored: %llx, wanted %llx", ign, want);
	cr_assert_eq(ign & (1ULL << (SIGCHLD - 1)), 0, "SIGCHLD keeps its default");
	struct sigaction sa;
	cr_assert_eq(sigaction(SIGTERM, NULL, &sa), 0);
	cr_assert(sa.sa_handler != SIG_IGN, "cordon's own disposition is untouched");
	close(out[0]);
	close(sh);
}
