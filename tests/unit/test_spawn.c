/* test_spawn.c: spawn_failure's mapping, and spawn_command run for real in
 * the test process (no seccomp, no Landlock). */
#include <criterion/criterion.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "spawn.h"

/* ---- spawn_failure -------------------------------------------------------- */

static struct cordon_err fail(const char *cmd, int stage, int err, int want_rc)
{
	struct cordon_err e;
	memset(&e, 0, sizeof(e));
	cr_assert_eq(spawn_failure(cmd, stage, err, &e), want_rc);
	return e;
}

Test(spawn_failure, not_found_is_127)
{
	struct cordon_err e = fail("frob", SPAWN_EXEC, ENOENT, -ENOENT);
	cr_assert_eq(e.exit_code, EXIT_NOT_FOUND);
	cr_assert_eq(e.err, ENOENT);
	cr_assert_eq(strncmp(e.msg, "frob: command not found", 23), 0, "%s", e.msg);
	e = fail("a/b", SPAWN_EXEC, ENOTDIR, -ENOTDIR);
	cr_assert_eq(e.exit_code, EXIT_NOT_FOUND);
}

Test(spawn_failure, not_executable_is_126)
{
	int errs[] = { EACCES, ENOEXEC, EPERM, ETXTBSY };
	for (size_t i = 0; i < sizeof(errs) / sizeof(errs[0]); i++) {
		struct cordon_err e = fail("./x", SPAWN_EXEC, errs[i], -errs[i]);
		cr_assert_eq(e.exit_code, EXIT_NOT_EXECUTABLE, "errno %d", errs[i]);
		cr_assert_eq(strncmp(e.msg, "./x: cannot execute", 19), 0, "%s", e.msg);
		cr_assert_not_null(strstr(e.msg, strerror(errs[i])), "%s", e.msg);
	}
}

Test(spawn_failure, setup_stages_are_125)
{
	static const struct {
		int stage;
		const char *what;
	} st[] = {
		{ SPAWN_SETUP, "preparing the command's process" },
		{ SPAWN_NNP, "setting no_new_privs" },
		{ SPAWN_LANDLOCK, "entering the Landlock domain" },
		{ SPAWN_SECCOMP, "loading the seccomp filter" },
	};
	for (size_t i = 0; i < sizeof(st) / sizeof(st[0]); i++) {
		struct cordon_err e = fail("make", st[i].stage, EPERM, -EPERM);
		cr_assert_eq(e.exit_code, EXIT_CORDON_FAILED);
		cr_assert_not_null(strstr(e.msg, st[i].what), "%s", e.msg);
		cr_assert_not_null(strstr(e.msg, "make"), "%s", e.msg);
	}
	/* Even an ENOENT there is a setup failure, not "command not found". */
	struct cordon_err e = fail("make", SPAWN_LANDLOCK, ENOENT, -ENOENT);
	cr_assert_eq(e.exit_code, EXIT_CORDON_FAILED);
}

Test(spawn_failure, unknown_stage)
{
	int bad[] = { 0, -1, SPAWN_EXEC + 1, 1000 };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct cordon_err e = fail("x", bad[i], EPERM, -EPROTO);
		cr_assert_eq(e.exit_code, EXIT_CORDON_FAILED);
		cr_assert_not_null(strstr(e.msg, "unknown stage"), "%s", e.msg);
	}
}

/* ---- spawn_command -------------------------------------------------------- */

static sigset_t empty_mask;

static pid_t spawn(char *const *argv, const sigset_t *mask, struct cordon_err *e)
{
	struct spawn_plan p = { argv, mask ? mask : &empty_mask, -1, NULL, 0, 0, 0, 0, 0 };
	memset(e, 0, sizeof(*e));
	return spawn_command(&p, e);
}

static int wait_for(pid_t pid)
{
	int st;
	pid_t r;
	while ((r = waitpid(pid, &st, 0)) < 0 && errno == EINTR)
		;
	cr_assert_eq(r, pid);
	return st;
}

static void init(void)
{
	sigemptyset(&empty_mask);
}

Test(spawn_command, true_exits_zero, .init = init)
{
	char *argv[] = { "/bin/true", NULL };
	struct cordon_err e;
	pid_t pid = spawn(argv, NULL, &e);
	cr_assert_gt(pid, 0, "%s", e.msg);
	int st = wait_for(pid);
	cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "status 0x%x", st);
}

Test(spawn_command, path_lookup_and_arguments, .init = init)
{
	char *argv[] = { "sh", "-c", "exit $#", "sh", "a", "b", "c", NULL };
	struct cordon_err e;
	pid_t pid = spawn(argv, NULL, &e);
	cr_assert_gt(pid, 0, "%s", e.msg);
	int st = wait_for(pid);
	cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 3, "status 0x%x", st);
}

Test(spawn_command, missing_command_is_127, .init = init)
{
	char *argv[] = { "cordon-no-such-command-xyz", NULL };
	struct cordon_err e;
	pid_t pid = spawn(argv, NULL, &e);
	cr_assert_lt(pid, 0);
	cr_assert_eq(pid, -ENOENT);
	cr_assert_eq(e.exit_code, EXIT_NOT_FOUND);
	cr_assert_not_null(strstr(e.msg, "cordon-no-such-command-xyz: command not found"),
			   "%s", e.msg);
	/* The failed child was reaped by spawn_command. */
	cr_assert_eq(waitpid(-1, NULL, WNOHANG), -1);
	cr_assert_eq(errno, ECHILD);

	char *argv2[] = { "/nonexistent/dir/cmd", NULL };
	pid = spawn(argv2, NULL, &e);
	cr_assert_eq(pid, -ENOENT);
	cr_assert_eq(e.exit_code, EXIT_NOT_FOUND);
}

Test(spawn_command, non_executable_file_is_126, .init = init)
{
	char path[] = "/tmp/cordon-spawn-XXXXXX";
	int fd = mkstemp(path);
	cr_assert_geq(fd, 0);
	cr_assert_eq(write(fd, "#!/bin/sh\nexit 0\n", 17), 17);
	cr_assert_eq(fchmod(fd, 0644), 0);
	close(fd);
	char *argv[] = { path, NULL };
	struct cordon_err e;
	pid_t pid = spawn(argv, NULL, &e);
	unlink(path);
	cr_assert_lt(pid, 0, "a 0644 file was executed");
	cr_assert_eq(pid, -EACCES);
	cr_assert_eq(e.exit_code, EXIT_NOT_EXECUTABLE);
	cr_assert_not_null(strstr(e.msg, "cannot execute"), "%s", e.msg);
}

Test(spawn_command, directory_is_126, .init = init)
{
	char *argv[] = { "/tmp", NULL };
	struct cordon_err e;
	pid_t pid = spawn(argv, NULL, &e);
	cr_assert_eq(pid, -EACCES);
	cr_assert_eq(e.exit_code, EXIT_NOT_EXECUTABLE);
}

/* Read /proc/<pid>/fd and return a bitmask of the descriptors below 64,
 * with *other set if any descriptor >= 64 is open. */
static unsigned long long fds_of(pid_t pid, int *other)
{
	char dir[64];
	snprintf(dir, sizeof(dir), "/proc/%d/fd", (int)pid);
	DIR *d = opendir(dir);
	cr_assert_not_null(d, "opendir %s", dir);
	unsigned long long mask = 0;
	*other = 0;
	struct dirent *de;
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.')
			continue;
		int n = atoi(de->d_name);
		if (n < 64)
			mask |= 1ull << n;
		else
			*other = 1;
	}
	closedir(d);
	return mask;
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
	nanosleep(&ts, NULL);
}

Test(spawn_command, child_sees_only_0_1_2, .init = init)
{
	/* A descriptor the test process holds without CLOEXEC, at a number no
	 * program opens by itself. */
	int devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);
	cr_assert_geq(devnull, 0);
	int leak = fcntl(devnull, F_DUPFD, 37);
	cr_assert_geq(leak, 37);
	close(devnull);
	int leak2 = open("/", O_RDONLY | O_DIRECTORY);
	cr_assert_geq(leak2, 3);
	/* Whichever of 0-2 this process has, the child has too; nothing more. */
	unsigned long long want = 0;
	for (int fd = 0; fd < 3; fd++) {
		int fl = fcntl(fd, F_GETFD);
		if (fl >= 0 && !(fl & FD_CLOEXEC))
			want |= 1ull << fd;
	}

	char *argv[] = { "sleep", "30", NULL };
	struct cordon_err e;
	pid_t pid = spawn(argv, NULL, &e);
	cr_assert_gt(pid, 0, "%s", e.msg);
	/* Wait until the exec and sleep's own start-up (loader, locale) are
	 * done: then only the inherited descriptors remain.  A leaked one
	 * would never go away. */
	unsigned long long mask = 0;
	int other = 0;
	for (int i = 0; i < 200; i++) {
		mask = fds_of(pid, &other);
		if (mask == want && !other)
			break;
		sleep_ms(10);
	}
	kill(pid, SIGKILL);
	(void)wait_for(pid);
	cr_assert_eq(mask, want, "child's descriptors: mask 0x%llx, want 0x%llx", mask, want);
	cr_assert_not(other, "child holds a descriptor >= 64");
	close(leak);
	close(leak2);
}

Test(spawn_command, child_does_not_see_a_non_cloexec_descriptor, .init = init)
{
	int devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);
	cr_assert_geq(devnull, 0);
	int leak = fcntl(devnull, F_DUPFD, 37);
	cr_assert_eq(leak, 37);
	close(devnull);
	char *argv[] = { "/bin/sh", "-c", "test -e /proc/self/fd/37 && exit 3; exit 0", NULL };

	/* Control: a plain fork+exec does see it, so the probe works. */
	pid_t c = fork();
	cr_assert_geq(c, 0);
	if (c == 0) {
		execv(argv[0], argv);
		_exit(99);
	}
	int st = wait_for(c);
	cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 3, "control: status 0x%x", st);

	struct cordon_err e;
	pid_t pid = spawn(argv, NULL, &e);
	cr_assert_gt(pid, 0, "%s", e.msg);
	st = wait_for(pid);
	cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "descriptor 37 reached the command");
	close(leak);
}

Test(spawn_command, stdout_is_inherited, .init = init)
{
	char path[] = "/tmp/cordon-spawn-out-XXXXXX";
	int out = mkstemp(path);
	cr_assert_geq(out, 0);
	unlink(path);
	fflush(stdout);
	int saved = dup(1);
	cr_assert_eq(dup2(out, 1), 1);
	char *argv[] = { "/bin/sh", "-c", "echo hello", NULL };
	struct cordon_err e;
	pid_t pid = spawn(argv, NULL, &e);
	cr_assert_eq(dup2(saved, 1), 1);
	close(saved);
	cr_assert_gt(pid, 0, "%s", e.msg);
	(void)wait_for(pid);
	char buf[16] = { 0 };
	cr_assert_eq(pread(out, buf, sizeof(buf) - 1, 0), 6);
	cr_assert_str_eq(buf, "hello\n");
	close(out);
}

Test(spawn_command, signal_dispositions_reset, .init = init)
{
	/* SIG_IGN survives exec; the command must get the default back. */
	signal(SIGTERM, SIG_IGN);
	char *argv[] = { "sleep", "30", NULL };
	struct cordon_err e;
	pid_t pid = spawn(argv, NULL, &e);
	cr_assert_gt(pid, 0, "%s", e.msg);
	cr_assert_eq(kill(pid, SIGTERM), 0);
	int st = wait_for(pid);
	cr_assert(WIFSIGNALED(st) && WTERMSIG(st) == SIGTERM,
		  "an ignored SIGTERM reached the command: status 0x%x", st);
}

/* A status field of a running process, read from the parent so that the
 * reading itself does not disturb the child. */
static unsigned long long status_hex(pid_t pid, const char *field)
{
	char path[64], line[256];
	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	FILE *f = fopen(path, "re");
	cr_assert_not_null(f);
	unsigned long long v = 0;
	int found = 0;
	size_t fl = strlen(field);
	while (fgets(line, sizeof(line), f))
		if (strncmp(line, field, fl) == 0 && line[fl] == ':')
			found = sscanf(line + fl + 1, " %llx", &v) == 1;
	fclose(f);
	cr_assert(found, "no %s in %s", field, path);
	return v;
}

/* Wait until pid has exec'd `comm`. */
static void wait_exec(pid_t pid, const char *comm)
{
	char path[64], buf[32];
	snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
	for (int i = 0; i < 500; i++) {
		FILE *f = fopen(path, "re");
		cr_assert_not_null(f);
		char *got = fgets(buf, sizeof(buf), f);
		fclose(f);
		if (got && strncmp(buf, comm, strlen(comm)) == 0 && buf[strlen(comm)] == '\n')
			return;
		sleep_ms(10);
	}
	cr_assert_fail("%d never exec'd %s", (int)pid, comm);
}

Test(spawn_command, signal_mask_is_the_given_one, .init = init)
{
	/* The test process blocks SIGUSR1; the plan asks for SIGUSR2 only. */
	sigset_t block;
	sigemptyset(&block);
	sigaddset(&block, SIGUSR1);
	cr_assert_eq(sigprocmask(SIG_BLOCK, &block, NULL), 0);
	sigset_t want;
	sigemptyset(&want);
	sigaddset(&want, SIGUSR2);

	char *argv[] = { "sleep", "30", NULL };
	struct cordon_err e;
	pid_t pid = spawn(argv, &want, &e);
	cr_assert_gt(pid, 0, "%s", e.msg);
	wait_exec(pid, "sleep");
	unsigned long long blk = status_hex(pid, "SigBlk");
	unsigned long long ign = status_hex(pid, "SigIgn");
	unsigned long long nnp = status_hex(pid, "NoNewPrivs");
	kill(pid, SIGKILL);
	(void)wait_for(pid);
	cr_assert_eq(blk, 1ull << (SIGUSR2 - 1), "SigBlk %llx", blk);
	cr_assert_eq(ign, 0, "SigIgn %llx", ign);
	cr_assert_eq(nnp, 1, "no_new_privs not set in the command");
}

Test(spawn_command, reserved_signals_reset_too, .init = init)
{
	/* libc will not touch 32 and 33, but an ignored disposition of them
	 * survives exec (GNU make hands them ignored to its children). */
	static const unsigned long ksa_ign[4] = { (unsigned long)SIG_IGN, 0, 0, 0 };
	for (int sig = 32; sig <= 33; sig++)
		cr_assert_eq(syscall(SYS_rt_sigaction, sig, ksa_ign, NULL, (size_t)8), 0);
	cr_assert_neq(status_hex(getpid(), "SigIgn") & (3ull << 31), 0);

	char *argv[] = { "sleep", "30", NULL };
	struct cordon_err e;
	pid_t pid = spawn(argv, NULL, &e);
	cr_assert_gt(pid, 0, "%s", e.msg);
	wait_exec(pid, "sleep");
	unsigned long long ign = status_hex(pid, "SigIgn");
	kill(pid, SIGKILL);
	(void)wait_for(pid);
	cr_assert_eq(ign, 0, "the command starts with signals ignored: SigIgn %llx", ign);
}

/* A check that fails after spawn_start must leave the command unexec'd. */
Test(spawn_start, abort_never_runs_the_command, .init = init)
{
	char marker[] = "/tmp/cordon-spawn-abort.XXXXXX";
	int fd = mkstemp(marker);
	cr_assert_geq(fd, 0);
	close(fd);
	cr_assert_eq(unlink(marker), 0);
	char *argv[] = { "/bin/touch", marker, NULL };
	struct spawn_plan p = { argv, &empty_mask, -1, NULL, 0, 0, 0, 0, 0 };
	struct spawn_handle h;
	struct cordon_err e;
	cr_assert_eq(spawn_start(&p, &h, &e), 0, "%s", e.msg);
	cr_assert_gt(h.pid, 0);
	usleep(50000); /* give a wrongly eager child the time to exec */
	spawn_abort(&h);
	cr_assert_eq(h.pid, -1);
	cr_assert_eq(access(marker, F_OK), -1, "the command ran although it was aborted");
}

/* The control: released, the same command runs. */
Test(spawn_start, release_runs_the_command, .init = init)
{
	char marker[] = "/tmp/cordon-spawn-release.XXXXXX";
	int fd = mkstemp(marker);
	cr_assert_geq(fd, 0);
	close(fd);
	cr_assert_eq(unlink(marker), 0);
	char *argv[] = { "/bin/touch", marker, NULL };
	struct spawn_plan p = { argv, &empty_mask, -1, NULL, 0, 0, 0, 0, 0 };
	struct spawn_handle h;
	struct cordon_err e;
	cr_assert_eq(spawn_start(&p, &h, &e), 0, "%s", e.msg);
	pid_t pid = spawn_release(&h, argv[0], &e);
	cr_assert_gt(pid, 0, "%s", e.msg);
	int st = wait_for(pid);
	cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	cr_assert_eq(access(marker, F_OK), 0);
	unlink(marker);
}

Test(spawn_parse_dispositions, ignored_and_caught_are_reset)
{
	static const char st[] = "Name:\tx\nSigPnd:\t0000000000000000\nSigBlk:\t0000000000010000\n"
				 "SigIgn:\t0000000000001006\nSigCgt:\t0000000180000000\nCapInh:\t0\n";
	uint64_t r = 0;
	cr_assert_eq(spawn_parse_dispositions(st, sizeof(st) - 1, &r), 0);
	/* SIGINT (2), SIGQUIT (3), SIGPIPE (13) ignored; 32 and 33 caught. */
	cr_assert_eq(r, 0x1006ULL | 0x180000000ULL, "reset %llx", (unsigned long long)r);
}

Test(spawn_parse_dispositions, missing_or_malformed_lines_fail)
{
	uint64_t r = 7;
	static const char no_cgt[] = "SigIgn:\t0000000000000000\n";
	static const char bad[] = "SigIgn:\t00000000000000zz\nSigCgt:\t0000000000000000\n";
	static const char empty[] = "SigIgn:\t\nSigCgt:\t0000000000000000\n";
	static const char too_long[] = "SigIgn:\t00000000000000000\nSigCgt:\t0\n";
	/* Only a line that starts with the name counts. */
	static const char inner[] = "XSigIgn:\t0\nXSigCgt:\t0\n";
	cr_assert_eq(spawn_parse_dispositions(no_cgt, sizeof(no_cgt) - 1, &r), -1);
	cr_assert_eq(spawn_parse_dispositions(bad, sizeof(bad) - 1, &r), -1);
	cr_assert_eq(spawn_parse_dispositions(empty, sizeof(empty) - 1, &r), -1);
	cr_assert_eq(spawn_parse_dispositions(too_long, sizeof(too_long) - 1, &r), -1);
	cr_assert_eq(spawn_parse_dispositions(inner, sizeof(inner) - 1, &r), -1);
	cr_assert_eq(r, 7, "a failed parse leaves the result alone");
}

Test(spawn_parse_dispositions, this_process)
{
	char buf[8192];
	signal(SIGUSR2, SIG_IGN);
	int fd = open("/proc/self/status", O_RDONLY | O_CLOEXEC);
	cr_assert_geq(fd, 0);
	ssize_t n = read(fd, buf, sizeof(buf));
	close(fd);
	cr_assert_gt(n, 0);
	uint64_t r = 0;
	cr_assert_eq(spawn_parse_dispositions(buf, (size_t)n, &r), 0);
	cr_assert(r >> (SIGUSR2 - 1) & 1, "an ignored SIGUSR2 is reported: %llx", (unsigned long long)r);
	signal(SIGUSR2, SIG_DFL);
}

Test(spawn_command, keep_ignored_stays_ignored_and_only_that, .init = init)
{
	/* nohup: what the caller of cordon ignored stays ignored; the rest of
	 * what cordon-inner ignores is reset (the control). */
	signal(SIGHUP, SIG_IGN);
	signal(SIGTERM, SIG_IGN);
	char *argv[] = { "sleep", "30", NULL };
	struct spawn_plan p = { argv, &empty_mask, -1, NULL, 0, 1u << (SIGHUP - 1), 0, 0, 0 };
	struct cordon_err e = { 0 };
	pid_t pid = spawn_command(&p, &e);
	cr_assert_gt(pid, 0, "%s", e.msg);
	wait_exec(pid, "sleep");
	unsigned long long ign = status_hex(pid, "SigIgn");
	cr_assert(ign & (1u << (SIGHUP - 1)), "SIGHUP stays ignored: %llx", ign);
	cr_assert_not(ign & (1u << (SIGTERM - 1)), "SIGTERM is reset: %llx", ign);
	kill(pid, SIGKILL);
	wait_for(pid);
}

/* In a child (its session changes): cordon-inner's part on a terminal.
 * 0, or the step that failed. */
static int tty_child(void)
{
	int m = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (m < 0 || grantpt(m) != 0 || unlockpt(m) != 0)
		return 10;
	int s = open(ptsname(m), O_RDWR | O_NOCTTY);
	if (s < 0 || dup2(s, 0) != 0)
		return 11;
	pid_t outer_sid = getsid(0);
	char *argv[] = { "sleep", "30", NULL };
	struct spawn_plan p = { argv, &empty_mask, -1, NULL, 1, 0, 0, 0, 0 };
	struct cordon_err e = { 0 };
	pid_t pid = spawn_command(&p, &e);
	if (pid <= 0)
		return 12;
	int r = 0;
	/* This process (cordon-inner) leads a new session on the terminal;
	 * the command runs in a group of its own in it, in the foreground:
	 * a group with its parent in the session, so not orphaned, and the
	 * terminal's SIGTSTP stops it. */
	if (getsid(0) != getpid() || getsid(0) == outer_sid)
		r = 13;
	else if (tcgetsid(m) != getpid())
		r = 14;
	else if (getsid(pid) != getpid() || getpgid(pid) != pid)
		r = 15;
	else if (tcgetpgrp(m) != pid)
		r = 16;
	int st = 0;
	if (r == 0 && (write(m, "\x1a", 1) != 1 || waitpid(pid, &st, WUNTRACED) != pid ||
		       !WIFSTOPPED(st) || WSTOPSIG(st) != SIGTSTP))
		r = 17; /* Ctrl-Z typed: the command stops */
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	return r;
}

Test(spawn_command, tty_gives_a_session_of_its_own, .init = init)
{
	pid_t c = fork();
	cr_assert_geq(c, 0);
	if (c == 0)
		_exit(tty_child());
	int st;
	cr_assert_eq(waitpid(c, &st, 0), c);
	cr_assert(WIFEXITED(st), "status 0x%x", st);
	cr_assert_eq(WEXITSTATUS(st), 0, "step %d failed", WEXITSTATUS(st));
}

/* One seccomp listener per filter chain: under another supervisor the
 * command does not start, and the message names the way out. */
Test(spawn_failure, busy_listener_names_the_supervisor)
{
	struct cordon_err e = fail("make", SPAWN_SECCOMP, EBUSY, -EBUSY);
	cr_assert_eq(e.exit_code, EXIT_CORDON_FAILED);
	cr_assert_not_null(strstr(e.msg, "another seccomp supervisor"), "%s", e.msg);
	cr_assert_not_null(strstr(e.msg, "--allow-unix-sockets"), "%s", e.msg);
}
