/* pid1.c: see pid1.h. */
#include "pid1.h"

#include <errno.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <unistd.h>
#include "seccomp_bpf.h"
#include "wire.h"

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

int pid1_exit_status(int wstatus)
{
	if (WIFEXITED(wstatus))
		return WEXITSTATUS(wstatus);
	if (WIFSIGNALED(wstatus))
		return 128 + WTERMSIG(wstatus);
	return EXIT_CORDON_FAILED;
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
 * included, and never ourselves. */
static void kill_rest(void)
{
	(void)kill(-1, SIGKILL);
	for (;;) {
		int st;
		pid_t p = waitpid(-1, &st, 0);
		if (p < 0 && errno == EINTR)
			continue;
		if (p < 0)
			break;
	}
}

int pid1_run(pid_t cmd, int sfd, int stops)
{
	int status = 0;
	int done = reap(cmd, &status, stops);
	while (!done) {
		struct pollfd p = { sfd, POLLIN, 0 };
		if (poll(&p, 1, -1) < 0) {
			if (errno == EINTR)
				continue;
			struct cordon_err e;
			(void)err_sys(&e, errno, "cordon-inner: waiting for the command failed; it and "
				      "everything it started were killed (status 125 is cordon's, "
				      "not the command's)");
			err_print(&e);
			kill_rest();
			return EXIT_CORDON_FAILED;
		}
		struct signalfd_siginfo si;
		while (read(sfd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
			if (si.ssi_signo == SIGCHLD)
				continue;
			/* Blocked signals reach init from inside its namespace
			 * too: only one from outside it (cordon), whose sender
			 * has no pid here (0), ends the sandbox.  The command's
			 * own is dropped. */
			if (si.ssi_signo == WIRE_END_SIGNAL) {
				if (si.ssi_pid != 0)
					continue;
				kill_rest();
				return 128 + SIGKILL;
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
	kill_rest();
	return pid1_exit_status(status);
}
