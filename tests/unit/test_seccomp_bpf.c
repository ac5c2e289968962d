/* test_seccomp_bpf.c: the program embedded in cordon-inner is exactly what
 * libseccomp compiles from the rule table now, for both settings, and so is
 * cordon-inner's own filter. */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include "seccomp_bpf.h"
#include "seccomp_policy.h"

static void same_program(int allow_unix)
{
	struct sock_fprog embedded, fresh = { 0, NULL };
	struct seccomp_opts o = { allow_unix };
	struct cordon_err e;
	seccomp_bpf_program(allow_unix, &embedded);
	cr_assert_eq(seccomp_policy_export(&o, &fresh, &e), 0, "%s", e.msg);
	cr_assert_gt(embedded.len, 10);
	cr_assert_eq(embedded.len, fresh.len, "embedded %u instructions, libseccomp %u",
		     embedded.len, fresh.len);
	cr_assert_eq(memcmp(embedded.filter, fresh.filter, fresh.len * sizeof(*fresh.filter)), 0,
		     "the embedded program differs from libseccomp's: rebuild (make)");
	free(fresh.filter);
}

Test(seccomp_bpf, default_matches_libseccomp) { same_program(0); }
Test(seccomp_bpf, allow_unix_matches_libseccomp) { same_program(1); }

Test(seccomp_bpf, the_two_settings_differ)
{
	struct sock_fprog a, b;
	seccomp_bpf_program(0, &a);
	seccomp_bpf_program(1, &b);
	cr_assert(a.len != b.len || memcmp(a.filter, b.filter, a.len * sizeof(*a.filter)) != 0);
}

Test(seccomp_bpf, pid1_matches_libseccomp)
{
	struct sock_fprog embedded, fresh = { 0, NULL };
	struct cordon_err e;
	seccomp_bpf_pid1_program(&embedded);
	cr_assert_eq(seccomp_policy_pid1_export(&fresh, &e), 0, "%s", e.msg);
	cr_assert_gt(embedded.len, 10);
	cr_assert_eq(embedded.len, fresh.len, "embedded %u instructions, libseccomp %u",
		     embedded.len, fresh.len);
	cr_assert_eq(memcmp(embedded.filter, fresh.filter, fresh.len * sizeof(*fresh.filter)), 0,
		     "the embedded program differs from libseccomp's: rebuild (make)");
	free(fresh.filter);
}

/* A child under cordon-inner's filter does what its loop does, then `last`
 * (0: nothing); returns the wait status. */
static int under_pid1_filter(int last)
{
	int p[2];
	cr_assert_eq(pipe2(p, O_CLOEXEC), 0);
	pid_t pid = fork();
	cr_assert_neq(pid, -1);
	if (pid == 0) {
		struct sock_fprog prog;
		seccomp_bpf_pid1_program(&prog);
		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 ||
		    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0) < 0)
			_exit(100);
		/* Raw syscalls: a sanitizer's interceptors would make calls of
		 * their own, which the filter rightly kills. */
		char c = 'x';
		struct pollfd pf = { p[0], POLLIN, 0 };
		/* The supervisor's look-ups: O_PATH and read-only opens. */
		long fd = syscall(SYS_openat, (long)AT_FDCWD, "/", (long)(O_PATH | O_CLOEXEC));
		long rd = syscall(SYS_openat, (long)AT_FDCWD, "/proc/self/status",
				  (long)(O_RDONLY | O_CLOEXEC));
		if (fd < 0 || rd < 0 || syscall(SYS_close, fd) < 0 || syscall(SYS_close, rd) < 0)
			syscall(SYS_exit_group, 102L);
		/* The terminal's foreground group (a pipe is none: ENOTTY,
		 * not SIGSYS). */
		int pg = 0;
		if (syscall(SYS_ioctl, (long)p[0], (long)TIOCGPGRP, &pg) != -1 || errno != ENOTTY ||
		    syscall(SYS_ioctl, (long)p[0], (long)TIOCSPGRP, &pg) != -1 || errno != ENOTTY)
			syscall(SYS_exit_group, 103L);
		if (syscall(SYS_write, p[1], &c, 1L) != 1 || syscall(SYS_poll, &pf, 1L, -1L) != 1 ||
		    syscall(SYS_read, p[0], &c, 1L) != 1 || syscall(SYS_close, p[1]) < 0 ||
		    syscall(SYS_kill, 0L, 0L) < 0 || syscall(SYS_wait4, -1L, NULL, (long)WNOHANG, NULL) != -1 ||
		    errno != ECHILD)
			syscall(SYS_exit_group, 101L);
		if (last == 1)
			(void)syscall(SYS_openat, (long)AT_FDCWD, "/tmp/cordon-never",
				      (long)(O_WRONLY | O_CREAT | O_CLOEXEC), 0600L);
		else if (last == 5)
			(void)syscall(SYS_openat, (long)AT_FDCWD, "/", (long)(O_RDWR | O_CLOEXEC));
		else if (last == 2)
			(void)syscall(SYS_socket, (long)AF_UNIX, (long)SOCK_STREAM, 0L);
		else if (last == 3)
			(void)syscall(SYS_ioctl, 0L, (long)TIOCSTI, &c);
		else if (last == 4)
			(void)syscall(SYS_fork);
		syscall(SYS_exit_group, 0L);
	}
	close(p[0]);
	close(p[1]);
	int st = 0;
	cr_assert_eq(waitpid(pid, &st, 0), pid);
	return st;
}

Test(seccomp_bpf, pid1_filter_allows_its_loop)
{
	int st = under_pid1_filter(0);
	cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "status %#x", st);
}

Test(seccomp_bpf, pid1_filter_kills_anything_else)
{
	static const char *const what[] = { NULL, "openat(O_WRONLY|O_CREAT)", "socket",
					    "ioctl(TIOCSTI)", "fork", "openat(O_RDWR)" };
	for (int i = 1; i <= 5; i++) {
		int st = under_pid1_filter(i);
		cr_expect(WIFSIGNALED(st) && WTERMSIG(st) == SIGSYS,
			  "%s under cordon-inner's filter: status %#x, not SIGSYS", what[i], st);
	}
}
