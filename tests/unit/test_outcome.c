/* test_outcome.c: outcome_exit_code, the status cordon ends with. */
#include <criterion/criterion.h>

#include <errno.h>

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "outcome.h"

/* Wait statuses as the kernel encodes them. */
#define EXITED(n) (((n) & 0xff) << 8)
#define SIGNALED(s) ((s) & 0x7f)

static struct run_outcome started(int wstatus)
{
	struct run_outcome o;
	memset(&o, 0, sizeof(o));
	o.started = 1;
	o.reaped = 1;
	o.wstatus = wstatus;
	return o;
}

Test(outcome_exit_code, encodings_are_what_the_kernel_uses)
{
	cr_assert(WIFEXITED(EXITED(3)) && WEXITSTATUS(EXITED(3)) == 3);
	cr_assert(WIFSIGNALED(SIGNALED(9)) && WTERMSIG(SIGNALED(9)) == 9);
}

Test(outcome_exit_code, exited_n_is_n)
{
	int codes[] = { 0, 1, 2, 42, 124, 125, 126, 127, 255 };
	for (size_t i = 0; i < sizeof(codes) / sizeof(codes[0]); i++) {
		struct run_outcome o = started(EXITED(codes[i]));
		cr_assert_eq(outcome_exit_code(&o), codes[i]);
	}
}

Test(outcome_exit_code, signaled_n_is_128_plus_n)
{
	struct run_outcome o = started(SIGNALED(SIGKILL));
	cr_assert_eq(outcome_exit_code(&o), 137);
	o = started(SIGNALED(SIGSEGV));
	cr_assert_eq(outcome_exit_code(&o), 139);
	o = started(SIGNALED(SIGTERM));
	cr_assert_eq(outcome_exit_code(&o), 143);
}

Test(outcome_exit_code, inner_error_record_wins)
{
	int codes[] = { EXIT_CORDON_FAILED, EXIT_NOT_EXECUTABLE, EXIT_NOT_FOUND };
	for (size_t i = 0; i < 3; i++) {
		struct run_outcome o;
		memset(&o, 0, sizeof(o));
		o.have_error = 1;
		o.inner_err.exit_code = codes[i];
		o.wstatus = EXITED(0);
		cr_assert_eq(outcome_exit_code(&o), codes[i]);
		/* Even if bwrap's own status says something else. */
		o.wstatus = EXITED(1);
		cr_assert_eq(outcome_exit_code(&o), codes[i]);
	}
}

Test(outcome_exit_code, not_started_without_error_is_125)
{
	struct run_outcome o;
	memset(&o, 0, sizeof(o));
	o.wstatus = EXITED(0);
	cr_assert_eq(outcome_exit_code(&o), EXIT_CORDON_FAILED,
		     "bwrap exiting 0 before the command started must not look like success");
	o.wstatus = EXITED(1);
	cr_assert_eq(outcome_exit_code(&o), EXIT_CORDON_FAILED);
	o.wstatus = SIGNALED(SIGKILL);
	cr_assert_eq(outcome_exit_code(&o), EXIT_CORDON_FAILED);
}

Test(outcome_exit_code, timeout_is_124)
{
	struct run_outcome o = started(SIGNALED(SIGKILL));
	o.timed_out = 1;
	cr_assert_eq(outcome_exit_code(&o), EXIT_TIMEOUT);
	o = started(EXITED(0));
	o.timed_out = 1;
	o.escalated = 1;
	o.killed_by = SIGTERM;
	cr_assert_eq(outcome_exit_code(&o), 124);
	memset(&o, 0, sizeof(o));
	o.timed_out = 1;
	cr_assert_eq(outcome_exit_code(&o), 124, "a timeout before the start is still 124");
}

Test(outcome_exit_code, the_tree_past_limit_cpu_is_152_as_sigxcpu)
{
	struct run_outcome o = started(SIGNALED(SIGKILL));
	o.cpu_exceeded = 1;
	cr_assert_eq(outcome_exit_code(&o), 128 + SIGXCPU, "cordon's SIGKILL is not the status");
	o.cpu_exceeded = 0;
	o.cpu_unreadable = -EIO;
	cr_assert_eq(outcome_exit_code(&o), EXIT_CORDON_FAILED,
		     "a limit that stopped holding is cordon's failure");
	o.cpu_unreadable = 0;
	o.timed_out = 1;
	o.cpu_exceeded = 1;
	cr_assert_eq(outcome_exit_code(&o), EXIT_TIMEOUT, "the timeout came first");
}

Test(outcome_exit_code, escalated_after_sigterm_is_143)
{
	struct run_outcome o = started(SIGNALED(SIGKILL));
	o.killed_by = SIGTERM;
	o.escalated = 1;
	cr_assert_eq(outcome_exit_code(&o), 143, "not 137: the user asked for SIGTERM");
}

Test(outcome_exit_code, forwarded_signal_before_start)
{
	struct run_outcome o;
	memset(&o, 0, sizeof(o));
	o.killed_by = SIGTERM;
	o.wstatus = EXITED(1);
	cr_assert_eq(outcome_exit_code(&o), 143);
}

Test(outcome_exit_code, inner_error_never_yields_success)
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
		cr_assert_eq(outcome_exit_code(&o), EXIT_CORDON_FAILED, "exit_code %d", codes[i]);
	}
}

/* The command's own wait status, sent by cordon-inner, is the one that
 * counts: every exit code 0-255 and every signal 1-31 both ways, never
 * confused with each other although bwrap's status (PID 1's exit code) is
 * 128+N for both. */
Test(outcome_command_end, every_code_and_signal_from_the_command_status)
{
	for (int code = 0; code <= 255; code++) {
		struct run_outcome o = started(EXITED(code));
		o.have_cmd_status = 1;
		o.cmd_wstatus = EXITED(code);
		struct wstatus_end end;
		cr_assert_eq(outcome_command_end(&o, &end), 0);
		cr_assert(!end.signaled && end.code == code, "exit %d", code);
		cr_assert_eq(outcome_exit_code(&o), code);
	}
	for (int sig = 1; sig <= 31; sig++) {
		for (int core = 0; core <= 1; core++) {
			struct run_outcome o = started(EXITED(128 + sig));
			o.have_cmd_status = 1;
			o.cmd_wstatus = SIGNALED(sig) | (core ? 0x80 : 0);
			struct wstatus_end end;
			cr_assert_eq(outcome_command_end(&o, &end), 0);
			cr_assert(end.signaled && end.code == sig, "signal %d", sig);
			cr_assert_eq(outcome_exit_code(&o), 128 + sig);
		}
	}
}

Test(outcome_command_end, without_the_record_bwrap_tells_how_pid1_ended)
{
	struct wstatus_end end;
	struct run_outcome o = started(EXITED(137));
	cr_assert_eq(outcome_command_end(&o, &end), 0);
	cr_assert(end.signaled && end.code == SIGKILL, "PID 1 killed: bwrap exits 128+9");
	o = started(EXITED(3));
	cr_assert_eq(outcome_command_end(&o, &end), 0);
	cr_assert(!end.signaled && end.code == 3);
	o = started(EXITED(0));
	o.reaped = 0;
	cr_assert_eq(outcome_command_end(&o, &end), -EINVAL, "nothing known yet");
	o = started(EXITED(0));
	o.have_cmd_status = 1;
	o.cmd_wstatus = 0x137f; /* stopped: not an end */
	cr_assert_eq(outcome_command_end(&o, &end), -EINVAL);
	cr_assert_eq(outcome_exit_code(&o), EXIT_CORDON_FAILED);
}

/* cordon lost the run (a failed poll, say) after the command may have
 * started: the sandbox was killed; never 125 ("nothing ran"), never 0. */
Test(outcome_exit_code, a_lost_run_is_never_125_nor_0)
{
	struct run_outcome o = started(EXITED(137));
	o.lost = 1;
	cr_assert_eq(outcome_exit_code(&o), 128 + SIGKILL, "killed before its end");
	o.started = 0;
	cr_assert_eq(outcome_exit_code(&o), 128 + SIGKILL, "even before the start was read");
	o.have_cmd_status = 1;
	o.cmd_wstatus = EXITED(3);
	cr_assert_eq(outcome_exit_code(&o), 3, "it had ended: its own status");
	o.cmd_wstatus = EXITED(0);
	cr_assert_eq(outcome_exit_code(&o), 1, "ended well, but the run was lost");
	o.have_cmd_status = 0;
	o.have_error = 1;
	o.inner_err.exit_code = EXIT_CORDON_FAILED;
	cr_assert_eq(outcome_exit_code(&o), EXIT_CORDON_FAILED, "cordon-inner said it never ran");
}
