/* test_wstatus.c: wstatus_decode and wstatus_exit_code over every exit
 * code and every signal a process can die of, against the wait statuses of
 * real children (the kernel's encoding, not ours). */
#include <criterion/criterion.h>

#include <errno.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "wstatus.h"

static int status_of_child(int code, int sig)
{
	pid_t pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		if (sig) {
			/* No core file for the signals that dump one. */
			struct rlimit none = { 0, 0 };
			(void)setrlimit(RLIMIT_CORE, &none);
			sigset_t all;
			sigfillset(&all);
			(void)sigprocmask(SIG_UNBLOCK, &all, NULL);
			signal(sig, SIG_DFL);
			raise(sig);
		}
		_exit(code);
	}
	int st;
	cr_assert_eq(waitpid(pid, &st, 0), pid);
	return st;
}

Test(wstatus, every_exit_code_is_exited_with_it)
{
	for (int code = 0; code <= 255; code++) {
		struct wstatus_end end = { -1, -1 };
		cr_assert_eq(wstatus_decode(code << 8, &end), 0);
		cr_assert(end.signaled == 0 && end.code == code, "exit %d", code);
		cr_assert_eq(wstatus_exit_code(&end), code);
	}
}

Test(wstatus, every_signal_is_signaled_with_it_core_or_not)
{
	for (int sig = 1; sig <= WSTATUS_SIG_MAX; sig++) {
		for (int core = 0; core <= 1; core++) {
			struct wstatus_end end = { -1, -1 };
			cr_assert_eq(wstatus_decode(sig | (core ? 0x80 : 0), &end), 0, "signal %d", sig);
			cr_assert(end.signaled == 1 && end.code == sig, "signal %d", sig);
			cr_assert_eq(wstatus_exit_code(&end), 128 + sig);
		}
	}
}

/* exit 130 and death by SIGINT are both 130 to a shell, and different
 * ends here. */
Test(wstatus, exit_128_plus_n_is_not_signal_n)
{
	for (int sig = 1; sig <= 31; sig++) {
		struct wstatus_end end;
		cr_assert_eq(wstatus_decode((128 + sig) << 8, &end), 0);
		cr_assert(!end.signaled && end.code == 128 + sig);
	}
}

Test(wstatus, real_children_one_per_code_and_signal)
{
	static const int codes[] = { 0, 1, 2, 125, 126, 127, 128, 129, 130, 143, 159, 160, 255 };
	for (size_t i = 0; i < sizeof(codes) / sizeof(codes[0]); i++) {
		struct wstatus_end end;
		cr_assert_eq(wstatus_decode(status_of_child(codes[i], 0), &end), 0);
		cr_assert(!end.signaled && end.code == codes[i], "exit %d", codes[i]);
	}
	for (int sig = 1; sig <= 31; sig++) {
		if (sig == SIGKILL || sig == SIGSTOP || sig == SIGTSTP || sig == SIGTTIN ||
		    sig == SIGTTOU || sig == SIGCHLD || sig == SIGCONT || sig == SIGURG ||
		    sig == SIGWINCH)
			continue; /* stop or are ignored by default: raise() returns */
		struct wstatus_end end;
		cr_assert_eq(wstatus_decode(status_of_child(0, sig), &end), 0);
		cr_assert(end.signaled && end.code == sig, "signal %d", sig);
	}
	struct wstatus_end end;
	cr_assert_eq(wstatus_decode(status_of_child(0, SIGKILL), &end), 0);
	cr_assert(end.signaled && end.code == SIGKILL);
}

Test(wstatus, stopped_and_continued_are_not_ends)
{
	struct wstatus_end end = { 7, 7 };
	cr_assert_eq(wstatus_decode((SIGSTOP << 8) | 0x7f, &end), -EINVAL);
	cr_assert_eq(wstatus_decode(0xffff, &end), -EINVAL); /* continued */
	cr_assert(end.signaled == 7 && end.code == 7, "left untouched");
}
