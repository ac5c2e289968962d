/* test_supervisor.c: supervisor_exit_code, the status cordon ends with,
 * and what supervisor_spawn lets bwrap inherit. */
#include <criterion/criterion.h>

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "launch/supervisor.h"

/* Wait statuses as the kernel encodes them. */
#define EXITED(n) (((n) & 0xff) << 8)
#define SIGNALED(s) ((s) & 0x7f)

static struct run_outcome started(int wstatus)
{
	struct run_outcome o;
	memset(&o, 0, sizeof(o));
	o.started = 1;
	o.wstatus = wstatus;
	return o;
}

Test(supervisor_exit_code, encodings_are_what_the_kernel_uses)
{
	cr_assert(WIFEXITED(EXITED(3)) && WEXITSTATUS(EXITED(3)) == 3);
	cr_assert(WIFSIGNALED(SIGNALED(9)) && WTERMSIG(SIGNALED(9)) == 9);
}

Test(supervisor_exit_code, exited_n_is_n)
{
	int codes[] = { 0, 1, 2, 42, 124, 125, 126, 127, 255 };
	for (size_t i = 0; i < sizeof(codes) / sizeof(codes[0]); i++) {
		struct run_outcome o = started(EXITED(codes[i]));
		cr_assert_eq(supervisor_exit_code(&o), codes[i]);
	}
}

Test(supervisor_exit_code, signaled_n_is_128_plus_n)
{
	struct run_outcome o = started(SIGNALED(SIGKILL));
	cr_assert_eq(supervisor_exit_code(&o), 137);
	o = started(SIGNALED(SIGSEGV));
	cr_assert_eq(supervisor_exit_code(&o), 139);
	o = started(SIGNALED(SIGTERM));
	cr_assert_eq(supervisor_exit_code(&o), 143);
}

Test(supervisor_exit_code, inner_error_record_wins)
{
	int codes[] = { EXIT_CORDON_FAILED, EXIT_NOT_EXECUTABLE, EXIT_NOT_FOUND };
	for (size_t i = 0; i < 3; i++) {
		struct run_outcome o;
		memset(&o, 0, sizeof(o));
		o.have_error = 1;
		o.inner_err.exit_code = codes[i];
		o.wstatus = EXITED(0);
		cr_assert_eq(supervisor_exit_code(&o), codes[i]);
		/* Even if bwrap's own status says something else. */
		o.wstatus = EXITED(1);
		cr_assert_eq(supervisor_exit_code(&o), codes[i]);
	}
}

Test(supervisor_exit_code, not_started_without_error_is_125)
{
	struct run_outcome o;
	memset(&o, 0, sizeof(o));
	o.wstatus = EXITED(0);
	cr_assert_eq(supervisor_exit_code(&o), EXIT_CORDON_FAILED,
		     "bwrap exiting 0 before the command started must not look like success");
	o.wstatus = EXITED(1);
	cr_assert_eq(supervisor_exit_code(&o), EXIT_CORDON_FAILED);
	o.wstatus = SIGNALED(SIGKILL);
	cr_assert_eq(supervisor_exit_code(&o), EXIT_CORDON_FAILED);
}

Test(supervisor_exit_code, timeout_is_124)
{
	struct run_outcome o = started(SIGNALED(SIGKILL));
	o.timed_out = 1;
	cr_assert_eq(supervisor_exit_code(&o), EXIT_TIMEOUT);
	o = started(EXITED(0));
	o.timed_out = 1;
	o.escalated = 1;
	o.killed_by = SIGTERM;
	cr_assert_eq(supervisor_exit_code(&o), 124);
	memset(&o, 0, sizeof(o));
	o.timed_out = 1;
	cr_assert_eq(supervisor_exit_code(&o), 124, "a timeout before the start is still 124");
}

Test(supervisor_exit_code, escalated_after_sigterm_is_143)
{
	struct run_outcome o = started(SIGNALED(SIGKILL));
	o.killed_by = SIGTERM;
	o.escalated = 1;
	cr_assert_eq(supervisor_exit_code(&o), 143, "not 137: the user asked for SIGTERM");
}

Test(supervisor_exit_code, forwarded_signal_before_start)
{
	struct run_outcome o;
	memset(&o, 0, sizeof(o));
	o.killed_by = SIGTERM;
	o.wstatus = EXITED(1);
	cr_assert_eq(supervisor_exit_code(&o), 143);
}

Test(supervisor_exit_code, inner_error_never_yields_success)
{
	/* A record whose exit_code was left 0 (or is anything but 125/126/127)
	 * must not let cordon exit as if the command had run. */
	int codes[] = { 0, 1, 124, 128, 255, -1 };
	for (size_t i = 0; i < sizeof(codes) / sizeof(codes[0]); i++) {
		struct run_outcome o;
		memset(&o, 0, sizeof(o));
		o.have_error = 1;
		o.inner_err.exit_code = codes[i];
		o.wstatus = EXITED(0);
		cr_assert_eq(supervisor_exit_code(&o), EXIT_CORDON_FAILED, "exit_code %d", codes[i]);
	}
}

/* bwrap inherits the keep list and nothing else the caller left open: the
 * stand-in "bwrap" here is a shell that lists its descriptors. */
Test(supervisor_spawn, only_the_keep_list_crosses_into_bwrap)
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
	struct spawn_spec spec = { sh, argv, envp, keep, 2 };
	struct cordon_err e = { 0 };
	cr_assert_eq(supervisor_block_signals(&e), 0);
	pid_t pid = supervisor_spawn(&spec, &e);
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
