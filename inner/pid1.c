/* pid1.c: see pid1.h. */
#include "pid1.h"

#include <errno.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>
#include "hostpidns.h"
#include "landlock.h"
#include "seccomp_bpf.h"
#include "unixsup.h"
#include "wire.h"

/* pid1_share_host_pidns was called: not init of a namespace of our own.
 * outside: our parent then (bwrap), a process outside our domain. */
static int shared_pidns;
static pid_t outside;

int pid1_share_host_pidns(struct cordon_err *e)
{
	/* Orphans of the command reparent here rather than to the host's
	 * init, so they are reaped and, at the end, killed. */
	if (prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) < 0)
		return err_sys(e, errno, "cordon-inner: prctl(PR_SET_CHILD_SUBREAPER) failed");
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return err_sys(e, errno, "cordon-inner: setting its own no_new_privs failed");
	int r = landlock_scope_self(e);
	if (r < 0 || (r = hostpidns_filter_load(e)) < 0)
		return r;
	shared_pidns = 1;
	outside = getppid();
	return 0;
}

int pid1_make_undumpable(struct cordon_err *e)
{
	if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) < 0)
		return err_sys(e, errno, "cordon-inner: prctl(PR_SET_DUMPABLE, 0) failed; refusing "
			       "to run the command next to a PID 1 it could write into");
	return 0;
}

int pid1_confine(struct cordon_err *e)
{
	struct sock_fprog prog;
	seccomp_bpf_pid1_program(&prog);
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return err_sys(e, errno, "cordon-inner: setting its own no_new_privs failed");
	if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0) < 0)
		return err_sys(e, errno, "cordon-inner: loading its own seccomp filter failed; "
			       "refusing to run the command (cordon doctor checks seccomp)");
	return 0;
}

/* SIGCONT: cordon continues a command that stopped on its terminal once
 * the user resumed cordon (fg, bg). */
static const int forwarded[] = { SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGUSR1, SIGUSR2, SIGWINCH,
				 SIGCONT };

void pid1_forwarded_set(sigset_t *s)
{
	sigemptyset(s);
	for (size_t i = 0; i < sizeof(forwarded) / sizeof(forwarded[0]); i++)
		sigaddset(s, forwarded[i]);
}

void pid1_term_init(struct pid1_term *t, int ctrl)
{
	*t = (struct pid1_term){ ctrl, -1, getpid(), 0, 1 };
	for (int fd = 0; fd < 3 && t->fd < 0; fd++)
		if (isatty(fd))
			t->fd = fd;
}

/* cordon's job went on in the background, or came back to the foreground:
 * the command's terminal follows (pid1.h).  Back in the foreground, the
 * group that had it gets it again only if the terminal is still ours: a
 * shell inside that took it meanwhile keeps it.  SIGTTOU blocked: our own
 * group is in the background, and orphaned (our parent, bwrap, is outside
 * the session), so the kernel would refuse us; blocked, it lets us. */
static void follow_job(struct pid1_term *t, int foreground, pid_t cmd)
{
	sigset_t ttou, old;
	sigemptyset(&ttou);
	sigaddset(&ttou, SIGTTOU);
	if (t->fd < 0 || sigprocmask(SIG_BLOCK, &ttou, &old) < 0)
		return;
	pid_t now = tcgetpgrp(t->fd);
	if (!foreground && now > 0 && now != t->self) {
		if (tcsetpgrp(t->fd, t->self) == 0)
			t->away = now;
	} else if (foreground && now == t->self) {
		if (t->away <= 0 || tcsetpgrp(t->fd, t->away) < 0)
			(void)tcsetpgrp(t->fd, cmd); /* that group is gone: the command's own */
		t->away = 0;
	}
	(void)sigprocmask(SIG_SETMASK, &old, NULL);
}

/* cordon's records while the command runs: WIRE_FOREGROUND alone.  With
 * read(), not recvmsg (not in our filter): a descriptor cannot come this
 * way.  Anything else (or end of file) and they are no longer read. */
static void take_records(struct pid1_term *t, pid_t cmd)
{
	struct wire_peer peer = { WIRE_TO_INNER, 0 };
	while (t->listen) {
		struct pollfd p = { t->ctrl, POLLIN, 0 };
		if (poll(&p, 1, 0) <= 0)
			return;
		unsigned char buf[sizeof(uint32_t) + sizeof(int32_t) + 1];
		ssize_t n = read(t->ctrl, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		uint32_t type = 0;
		int32_t fg;
		struct cordon_err e;
		if (n >= (ssize_t)sizeof(type))
			memcpy(&type, buf, sizeof(type));
		if (n < (ssize_t)sizeof(type) || type != WIRE_FOREGROUND ||
		    wire_check(&peer, type, (size_t)n - sizeof(type), 0, &e) < 0) {
			t->listen = 0;
			return;
		}
		memcpy(&fg, buf + sizeof(type), sizeof(fg));
		follow_job(t, fg != 0, cmd);
	}
}

/* Reap whatever has exited; 1 once the command is among them.  With
 * stops >= 0 (the command has a terminal), the command stopping (Ctrl-Z,
 * or vim's own kill(0, SIGTSTP)) is reported there: cordon, outside, then
 * gives the user's terminal back and stops itself, as the command would
 * have stopped the user's job outside. */
static int reap(pid_t cmd, int *cmd_status, int stops)
{
	int done = 0;
	for (;;) {
		int st;
		pid_t p = waitpid(-1, &st, WNOHANG | (stops >= 0 ? WUNTRACED : 0));
		if (p <= 0)
			return done;
		if (p == cmd && WIFSTOPPED(st)) {
			int32_t sig = WSTOPSIG(st);
			if (wire_send(stops, WIRE_STOPPED, &sig, sizeof(sig), -1) < 0) {
				/* cordon is gone: --die-with-parent ends us. */
			}
		} else if (p == cmd) {
			*cmd_status = st;
			done = 1;
		}
	}
}

/* Kill what outlived the command.  As init, kill(-1) reaches every other
 * process of the namespace, daemons that double-forked and setsid'd
 * included, and never ourselves.  In the host's PID namespace it would reach
 * every process of the caller's: there Landlock's signal scope
 * (pid1_share_host_pidns) limits it to our own domain, which only the
 * command's processes share.  The command's status, if it is among them
 * (ended by cordon), goes to *cmd_status. */
static void kill_rest(pid_t cmd, int *cmd_status)
{
	/* Before a kill(-1) in the host's namespace, proof that the scope
	 * holds: bwrap, outside the domain, must be out of reach (EPERM).
	 * Without that proof nothing is killed here: leftovers outlive the
	 * run, as when cordon is SIGKILLed, rather than a kill(-1) reaching
	 * the caller's other processes. */
	if (shared_pidns && (outside <= 1 || kill(outside, 0) == 0 || errno != EPERM))
		return;
	(void)kill(-1, SIGKILL);
	for (;;) {
		int st;
		pid_t p = waitpid(-1, &st, 0);
		if (p < 0 && errno == EINTR)
			continue;
		if (p < 0)
			break;
		if (p == cmd)
			*cmd_status = st;
	}
}

int pid1_run(pid_t cmd, int sfd, struct pid1_term *term, struct unixsup *sup, int *wstatus)
{
	int status = 0;
	int stops = term ? term->ctrl : -1;
	int done = reap(cmd, &status, stops);
	while (!done) {
		struct pollfd p[2 + 1 + UNIXSUP_PENDING_MAX];
		p[0] = (struct pollfd){ sfd, POLLIN, 0 };
		p[1] = (struct pollfd){ term && term->listen ? term->ctrl : -1, POLLIN, 0 };
		size_t ns = unixsup_pollfds(sup, p + 2, sizeof(p) / sizeof(p[0]) - 2);
		int pr = poll(p, (nfds_t)(2 + ns), unixsup_timeout(sup));
		if (pr < 0) {
			if (errno == EINTR)
				continue;
			struct cordon_err e;
			(void)err_sys(&e, errno, "cordon-inner: waiting for the command failed; it and "
				      "everything it started were killed (status 125 is cordon's, "
				      "not the command's)");
			err_print(&e);
			kill_rest(cmd, &status);
			return -1;
		}
		/* The command's connect and bind wait on these answers; signals
		 * and reaping come right after, every turn. */
		unixsup_serve(sup, p + 2, ns);
		if (term)
			take_records(term, cmd);
		struct signalfd_siginfo si;
		while (read(sfd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
			if (si.ssi_signo == SIGCHLD)
				continue;
			/* Blocked signals reach init from inside its namespace
			 * too: only one from outside it (cordon), whose sender
			 * has no pid here (0), ends the sandbox.  The command's
			 * own is dropped. */
			if (si.ssi_signo == WIRE_END_SIGNAL) {
				/* In the host's namespace cordon has a pid;
				 * the command cannot signal us there at all
				 * (a domain may not signal its parent's). */
				if (si.ssi_pid != 0 && !shared_pidns)
					continue;
				/* The command dies of SIGKILL here unless it
				 * ended on its own meanwhile: either is its
				 * status. */
				status = SIGKILL;
				kill_rest(cmd, &status);
				*wstatus = status;
				return 0;
			}
			/* cordon's record of where its job went comes
			 * before its SIGCONT: taken first, so that the
			 * command is continued with its terminal in place. */
			if (si.ssi_signo == SIGCONT && term)
				take_records(term, cmd);
			/* On a terminal the command leads a process group of its
			 * own (spawn.c): Ctrl-Z stopped all of it, SIGCONT
			 * continues all of it, and SIGHUP (the terminal hung up,
			 * which the kernel tells cordon-inner, the session's
			 * leader) goes to all of it, as a shell outside passes a
			 * hangup on to its jobs. */
			if ((si.ssi_signo == SIGCONT || si.ssi_signo == SIGHUP) && stops >= 0)
				(void)kill(-cmd, (int)si.ssi_signo);
			else
				(void)kill(cmd, (int)si.ssi_signo);
		}
		done = reap(cmd, &status, stops);
	}
	kill_rest(cmd, &status);
	*wstatus = status;
	return 0;
}
