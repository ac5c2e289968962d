/* test_pid1.c: pid1_forwarded_set; pid1_make_undumpable and pid1_confine
 * in a child (the wait status's decoding is test_wstatus.c's). */
#include <criterion/criterion.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pid1.h"

Test(pid1_forwarded_set, has_the_forwarded_signals)
{
	sigset_t s;
	pid1_forwarded_set(&s);
	int want[] = { SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGUSR1, SIGUSR2, SIGWINCH, SIGCONT };
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		cr_assert(sigismember(&s, want[i]), "signal %d not forwarded", want[i]);
	cr_assert_not(sigismember(&s, SIGKILL));
	cr_assert_not(sigismember(&s, SIGSTOP));
}

/* Undumpable, then confined: still able to write, and killed by an open. */
Test(pid1, undumpable_then_confined)
{
	int p[2];
	cr_assert_eq(pipe2(p, O_CLOEXEC), 0);
	pid_t pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		struct cordon_err e;
		if (pid1_make_undumpable(&e) < 0 || prctl(PR_GET_DUMPABLE, 0, 0, 0, 0) != 0)
			_exit(10);
		if (pid1_confine(&e) < 0)
			_exit(11);
		/* Raw syscalls: a sanitizer's interceptors would make calls of
		 * their own, which the filter rightly kills. */
		if (syscall(SYS_write, p[1], "x", 1L) != 1)
			syscall(SYS_exit_group, 12L);
		/* Reading is the supervisor's; writing never is. */
		(void)syscall(SYS_openat, (long)AT_FDCWD, "/tmp/cordon-never",
			      (long)(O_WRONLY | O_CREAT | O_CLOEXEC), 0600L);
		syscall(SYS_exit_group, 13L);
	}
	close(p[1]);
	char c = 0;
	cr_expect_eq(read(p[0], &c, 1), 1, "the confined child could not write");
	close(p[0]);
	int st = 0;
	cr_assert_eq(waitpid(pid, &st, 0), pid);
	cr_assert(WIFSIGNALED(st) && WTERMSIG(st) == SIGSYS,
		  "an open for writing under cordon-inner's filter gave status %#x, not SIGSYS", st);
}
