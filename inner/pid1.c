/* pid1.c: see pid1.h. */
#include "pid1.h"

#include <errno.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
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

int pid1_run(pid_t cmd, int sfd, int stops, int *wstatus)
{
	int status = 0;
	int done = reap(cmd, &status, stops);
	while (!done) {
		struct pollfd p[1 + 1 + UNIXSUP_PENDING_MAX];
		p[0] = (struct pollfd){ sfd, POLLIN, 0 };
		size_t ns = unixsup_pollfds(p + 1, sizeof(p) / sizeof(p[0]) - 1);
		int pr = poll(p, (nfds_t)(1 + ns), unixsup_timeout());
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
		unixsup_serve(p + 1, ns);
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
