/* spawn.c: see spawn.h. */
#include "spawn.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/seccomp.h>
#include <stdint.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include "fdpass.h"
#include "caps.h"
#include "hex.h"
#include "landlock.h"
#include "standin.h"
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
			int d = hex_digit((unsigned char)s[j]);
			if (d < 0)
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

/* The filter with a listener for its SECCOMP_RET_USER_NOTIF rows, sent to
 * cordon-inner.  sendmsg stays unsupervised (seccomp_table.c), so sending
 * under the filter needs no answer from cordon-inner yet. */
static int load_supervised(const struct sock_fprog *prog, int notify_fd)
{
	int l = (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
			     SECCOMP_FILTER_FLAG_NEW_LISTENER, prog);
	if (l < 0)
		return -errno;
	int r = fdpass_send(notify_fd, "L", 1, l);
	(void)close(l);
	(void)close(notify_fd);
	return r;
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

/* The command sees the descriptor limit it would see outside.  Only its
 * soft part: the hard one is the caller's still.  Raw prlimit64, as
 * async-signal-safe as the rest of the child. */
static int set_nofile(uint64_t soft)
{
	struct { uint64_t cur, max; } rl; /* the kernel's struct rlimit64 */
	if (syscall(SYS_prlimit64, 0, RLIMIT_NOFILE, NULL, &rl) < 0)
		return -1;
	rl.cur = soft < rl.max ? soft : rl.max;
	return (int)syscall(SYS_prlimit64, 0, RLIMIT_NOFILE, &rl, NULL);
}

static void child(const struct spawn_plan *p, uint64_t reset, int status_fd, int go_fd,
		  int notify_fd)
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

	int keep[4] = { status_fd, go_fd, notify_fd, p->landlock_fd };
	if (sys_close_except(keep, p->landlock_fd >= 0 ? 4 : 3) < 0)
		child_fail(status_fd, SPAWN_SETUP, errno);
	if (p->nofile && set_nofile(p->nofile) < 0)
		child_fail(status_fd, SPAWN_SETUP, errno);

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		child_fail(status_fd, SPAWN_NNP, errno);
	if (p->landlock_fd >= 0) {
		int r = landlock_enforce(p->landlock_fd);
		if (r < 0)
			child_fail(status_fd, SPAWN_LANDLOCK, -r);
		(void)close(p->landlock_fd);
	}
	/* In the command's domain, before its filter (standin.h); then the
	 * capabilities for it go, and no set may hold anything. */
	if (p->standin) {
		(void)standin_make(p->standin);
		struct cap_sets cs;
		struct cordon_err ce;
		int r = standin_drop();
		if (r < 0)
			child_fail(status_fd, SPAWN_SETUP, -r);
		if (caps_read(&cs, &ce) < 0 || caps_check_empty(&cs, &ce) < 0)
			child_fail(status_fd, SPAWN_SETUP, EPERM);
	}
	if (p->seccomp && p->supervised) {
		int r = load_supervised(p->seccomp, notify_fd);
		if (r < 0)
			child_fail(status_fd, SPAWN_SECCOMP, -r);
	} else if (p->seccomp && prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, p->seccomp, 0, 0) < 0) {
		child_fail(status_fd, SPAWN_SECCOMP, errno);
	}
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
	/* The kernel allows one listener per filter chain: a supervisor of
	 * some outer sandbox already has it. */
	if (stage == SPAWN_SECCOMP && err == EBUSY)
		return err_set(e, err, "loading the seccomp filter failed: another seccomp "
			       "supervisor already watches this process tree, so cordon-inner cannot "
			       "answer %s's connect and bind; refusing to run it "
			       "(--allow-unix-sockets runs without cordon's supervisor, every host "
			       "socket reachable)", cmd);
	if (stage < SPAWN_SETUP || stage > SPAWN_SECCOMP)
		return err_set(e, EPROTO, "the command's process failed at an unknown stage %d", stage);
	return err_sys(e, err, "%s failed; refusing to run %s (cordon doctor checks this machine)",
		       what[stage], cmd);
}


int spawn_start(const struct spawn_plan *p, struct spawn_handle *h, struct cordon_err *e)
{
	int st[2] = { -1, -1 }, go[2] = { -1, -1 }, nt[2] = { -1, -1 };
	*h = (struct spawn_handle){ -1, -1, -1, -1 };
	int err = 0;
	if (pipe2(st, O_CLOEXEC) < 0 || pipe2(go, O_CLOEXEC) < 0 ||
	    (p->supervised && socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, nt) < 0))
		err = errno;
	uint64_t reset = dispositions_to_reset();
	/* On a terminal cordon-inner leads the session (and the command its
	 * own foreground group in it: take_foreground). */
	if (!err && p->tty && lead_session() < 0)
		err = errno;
	pid_t pid = err ? -1 : fork();
	if (pid < 0) {
		if (!err)
			err = errno;
		for (int i = 0; i < 2; i++) {
			sys_close(&st[i]);
			sys_close(&go[i]);
			sys_close(&nt[i]);
		}
		return err_sys(e, err, "preparing the command's process (pipes, its terminal, fork)");
	}
	if (pid == 0) {
		(void)close(st[0]);
		(void)close(go[1]);
		if (nt[0] >= 0)
			(void)close(nt[0]);
		child(p, reset, st[1], go[0], nt[1]);
	}
	sys_close(&st[1]);
	sys_close(&go[0]);
	sys_close(&nt[1]);
	*h = (struct spawn_handle){ pid, st[0], go[1], nt[0] };
	return 0;
}

int spawn_listener(struct spawn_handle *h, int *listener, struct cordon_err *e)
{
	char c;
	int fd = -1;
	ssize_t n = fdpass_recv(h->notify_fd, &c, 1, &fd);
	sys_close(&h->notify_fd);
	if (n == 1 && c == 'L' && fd >= 0) {
		*listener = fd;
		return 0;
	}
	sys_close(&fd);
	/* The child failed before it could send: its report says why. */
	struct report r;
	if (sys_read_full(h->status_fd, &r, sizeof(r)) == (ssize_t)sizeof(r))
		return spawn_failure("the command", r.stage, r.err, e);
	return err_set(e, EPROTO, "cordon-inner: the command's process sent no seccomp listener "
		       "for the Unix socket supervisor");
}

void spawn_abort(struct spawn_handle *h)
{
	if (h->pid > 0) {
		(void)kill(h->pid, SIGKILL);
		(void)sys_waitpid(h->pid, NULL);
	}
	sys_close(&h->status_fd);
	sys_close(&h->go_fd);
	sys_close(&h->notify_fd);
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
