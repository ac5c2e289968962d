/* spawn.c: see spawn.h. */
#include "spawn.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/seccomp.h>
#include <stdint.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include "landlock.h"
#include "sys.h"

struct report {
	int32_t stage;
	int32_t err;
};

static void child_fail(int fd, int stage, int err)
{
	struct report r = { stage, err };
	ssize_t w = write(fd, &r, sizeof(r));
	(void)w; /* nobody left to tell if even this fails; the parent sees EOF+exit */
	_exit(EXIT_CORDON_FAILED);
}

/* One "Name:\t<hex>" line of /proc/self/status. */
static int status_hex(const char *s, size_t len, const char *name, uint64_t *out)
{
	size_t nl = strlen(name);
	for (size_t i = 0; i + nl < len; i++) {
		if ((i > 0 && s[i - 1] != '\n') || strncmp(s + i, name, nl) != 0)
			continue;
		size_t j = i + nl;
		while (j < len && (s[j] == ' ' || s[j] == '\t'))
			j++;
		uint64_t v = 0;
		size_t digits = 0;
		for (; j < len && s[j] != '\n'; j++, digits++) {
			int c = (unsigned char)s[j], d;
			if (c >= '0' && c <= '9')
				d = c - '0';
			else if (c >= 'a' && c <= 'f')
				d = c - 'a' + 10;
			else
				return -1;
			if (digits >= 16)
				return -1;
			v = v << 4 | (uint64_t)d;
		}
		if (digits == 0)
			return -1;
		*out = v;
		return 0;
	}
	return -1;
}

int spawn_parse_dispositions(const char *status, size_t len, uint64_t *reset)
{
	uint64_t ign, cgt;
	if (status_hex(status, len, "SigIgn:", &ign) < 0 || status_hex(status, len, "SigCgt:", &cgt) < 0)
		return -1;
	*reset = ign | cgt;
	return 0;
}

/* The signals whose disposition is not the default, bit sig-1 for each: only
 * those need resetting in the child.  If /proc cannot say, all of them. */
static uint64_t dispositions_to_reset(void)
{
	char buf[4096];
	uint64_t reset;
	int fd = open("/proc/self/status", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return ~(uint64_t)0;
	ssize_t n = sys_read_full(fd, buf, sizeof(buf));
	(void)close(fd);
	if (n <= 0 || spawn_parse_dispositions(buf, (size_t)n, &reset) < 0)
		return ~(uint64_t)0;
	return reset;
}

/* On a terminal cordon-inner leads a new session whose controlling
 * terminal is the first of 0-2 that is one, and the command runs in a
 * process group of its own in it, in the foreground: Ctrl-C, Ctrl-Z and
 * job control then concern the command's jobs alone, and kill(0, sig)
 * reaches its process group only.  The command's group has its parent in
 * the session: were the command the session's leader (no parent in it),
 * its group would be orphaned, and the kernel discards the terminal's
 * SIGTSTP to an orphaned group: Ctrl-Z would do nothing.  A hangup of the
 * terminal signals the session's leader, cordon-inner, which passes
 * SIGHUP on (pid1.c). */
static int lead_session(void)
{
	/* bwrap --new-session made one already (it always does: see
	 * outer/prepare.c), without a terminal. */
	if (getsid(0) != getpid() && setsid() < 0)
		return -1;
	for (int fd = 0; fd < 3; fd++)
		if (isatty(fd))
			return ioctl(fd, TIOCSCTTY, 0);
	errno = ENOTTY;
	return -1;
}

/* The child: its own group, made the terminal's foreground one (SIGTTOU
 * blocked: it asks from the background; the caller sets the mask after). */
static int take_foreground(void)
{
	sigset_t ttou;
	sigemptyset(&ttou);
	sigaddset(&ttou, SIGTTOU);
	if (setpgid(0, 0) < 0 || sigprocmask(SIG_BLOCK, &ttou, NULL) < 0)
		return -1;
	for (int fd = 0; fd < 3; fd++)
		if (isatty(fd))
			return tcsetpgrp(fd, getpid());
	errno = ENOTTY;
	return -1;
}

static void child(const struct spawn_plan *p, uint64_t reset, int status_fd, int go_fd)
{
	/* Signals cordon-inner ignored or caught are not the command's business:
	 * restore the default for each, and the given mask. */
	struct sigaction dfl;
	memset(&dfl, 0, sizeof(dfl));
	dfl.sa_handler = SIG_DFL;
	/* libc refuses the signals it reserves for itself (32-34), yet an
	 * ignored one survives exec (GNU make starts its children with 32 and
	 * 33 ignored): reset those with the raw call.  An all-zero kernel
	 * sigaction is SIG_DFL, no flags, empty mask on every layout. */
	static const unsigned long ksa_dfl[4];
	for (int sig = 1; sig < NSIG && sig <= 64; sig++)
		if ((reset >> (sig - 1) & 1) && sig != SIGKILL && sig != SIGSTOP &&
		    sigaction(sig, &dfl, NULL) < 0)
			(void)syscall(SYS_rt_sigaction, sig, ksa_dfl, NULL, (size_t)(NSIG / 8));
	struct sigaction ign;
	memset(&ign, 0, sizeof(ign));
	ign.sa_handler = SIG_IGN;
	for (int sig = 1; sig < NSIG && sig <= 64; sig++)
		if ((p->keep_ignored >> (sig - 1) & 1) && sig != SIGKILL && sig != SIGSTOP &&
		    sigaction(sig, &ign, NULL) < 0)
			child_fail(status_fd, SPAWN_SETUP, errno);
	if (p->tty && take_foreground() < 0)
		child_fail(status_fd, SPAWN_SETUP, errno);
	if (sigprocmask(SIG_SETMASK, p->mask, NULL) < 0)
		child_fail(status_fd, SPAWN_SETUP, errno);

	int keep[3] = { status_fd, go_fd, p->landlock_fd };
	if (sys_close_except(keep, p->landlock_fd >= 0 ? 3 : 2) < 0)
		child_fail(status_fd, SPAWN_SETUP, errno);

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		child_fail(status_fd, SPAWN_NNP, errno);
	if (p->landlock_fd >= 0) {
		int r = landlock_enforce(p->landlock_fd);
		if (r < 0)
			child_fail(status_fd, SPAWN_LANDLOCK, -r);
		(void)close(p->landlock_fd);
	}
	if (p->seccomp && prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, p->seccomp, 0, 0) < 0)
		child_fail(status_fd, SPAWN_SECCOMP, errno);
	char go;
	ssize_t n;
	do
		n = read(go_fd, &go, 1);
	while (n < 0 && errno == EINTR);
	if (n != 1)
		_exit(EXIT_CORDON_FAILED); /* a check failed in the parent: never exec */
	execvp(p->argv[0], p->argv);
	child_fail(status_fd, SPAWN_EXEC, errno);
}

int spawn_failure(const char *cmd, int stage, int err, struct cordon_err *e)
{
	static const char *const what[] = {
		[SPAWN_SETUP] = "preparing the command's process",
		[SPAWN_NNP] = "setting no_new_privs",
		[SPAWN_LANDLOCK] = "entering the Landlock domain",
		[SPAWN_SECCOMP] = "loading the seccomp filter",
	};
	if (stage == SPAWN_EXEC) {
		int r;
		if (err == ENOENT || err == ENOTDIR)
			r = err_set(e, err, "%s: command not found (in PATH or as given)", cmd);
		else
			r = err_sys(e, err, "%s: cannot execute", cmd);
		e->exit_code = (err == ENOENT || err == ENOTDIR) ? EXIT_NOT_FOUND
								 : EXIT_NOT_EXECUTABLE;
		return r;
	}
	if (stage < SPAWN_SETUP || stage > SPAWN_SECCOMP)
		return err_set(e, EPROTO, "the command's process failed at an unknown stage %d", stage);
	return err_sys(e, err, "%s failed; refusing to run %s (cordon doctor checks this machine)",
		       what[stage], cmd);
}


int spawn_start(const struct spawn_plan *p, struct spawn_handle *h, struct cordon_err *e)
{
	int st[2], go[2];
	*h = (struct spawn_handle){ -1, -1, -1 };
	if (pipe2(st, O_CLOEXEC) < 0)
		return err_sys(e, errno, "pipe2");
	if (pipe2(go, O_CLOEXEC) < 0) {
		int err = errno;
		sys_close(&st[0]);
		sys_close(&st[1]);
		return err_sys(e, err, "pipe2");
	}
	uint64_t reset = dispositions_to_reset();
	if (p->tty && lead_session() < 0) {
		int err = errno;
		sys_close(&st[0]);
		sys_close(&st[1]);
		sys_close(&go[0]);
		sys_close(&go[1]);
		return err_sys(e, err, "cordon-inner: cannot take the command's terminal");
	}
	pid_t pid = fork();
	if (pid < 0) {
		int err = errno;
		sys_close(&st[0]);
		sys_close(&st[1]);
		sys_close(&go[0]);
		sys_close(&go[1]);
		return err_sys(e, err, "fork");
	}
	if (pid == 0) {
		(void)close(st[0]);
		(void)close(go[1]);
		child(p, reset, st[1], go[0]);
	}
	sys_close(&st[1]);
	sys_close(&go[0]);
	*h = (struct spawn_handle){ pid, st[0], go[1] };
	return 0;
}

void spawn_abort(struct spawn_handle *h)
{
	if (h->pid > 0) {
		(void)kill(h->pid, SIGKILL);
		(void)sys_waitpid(h->pid, NULL);
	}
	sys_close(&h->status_fd);
	sys_close(&h->go_fd);
	h->pid = -1;
}

pid_t spawn_release(struct spawn_handle *h, const char *cmd, struct cordon_err *e)
{
	pid_t pid = h->pid;
	int w = sys_write_all(h->go_fd, "g", 1);
	sys_close(&h->go_fd);
	struct report r;
	ssize_t n = sys_read_full(h->status_fd, &r, sizeof(r));
	sys_close(&h->status_fd);
	h->pid = -1;
	if (n == 0 && w == 0)
		return pid;
	/* The child failed before exec and has exited (or will): reap it so
	 * the PID-1 loop does not mistake it for the command's end. */
	(void)sys_waitpid(pid, NULL);
	if (n != (ssize_t)sizeof(r))
		return err_set(e, EPROTO, "the command's process failed without a report");
	return spawn_failure(cmd, r.stage, r.err, e);
}

pid_t spawn_command(const struct spawn_plan *p, struct cordon_err *e)
{
	struct spawn_handle h;
	int r = spawn_start(p, &h, e);
	if (r < 0)
		return r;
	return spawn_release(&h, p->argv[0], e);
}
