/* supervisor.c: see supervisor.h. */
#include "launch/supervisor.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "sys.h"
#include "wire.h"

static const int forwarded[] = { SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGUSR1, SIGUSR2, SIGWINCH };
static sigset_t old_mask;

static void watched_set(sigset_t *s)
{
	sigemptyset(s);
	for (size_t i = 0; i < sizeof(forwarded) / sizeof(forwarded[0]); i++)
		sigaddset(s, forwarded[i]);
	sigaddset(s, SIGCHLD);
}

int supervisor_block_signals(struct cordon_err *e)
{
	sigset_t s;
	watched_set(&s);
	if (sigprocmask(SIG_BLOCK, &s, &old_mask) < 0)
		return err_sys(e, errno, "blocking signals");
	return 0;
}

pid_t supervisor_spawn(const struct spawn_spec *s, struct cordon_err *e)
{
	/* What the child keeps open: the keep list, and bwrap's binary for
	 * execveat (O_CLOEXEC, so it goes at the exec).  Built before fork:
	 * the child may not allocate. */
	int *open_ok = malloc((s->nkeep + 1) * sizeof(*open_ok));
	if (!open_ok)
		return err_set(e, ENOMEM, "out of memory");
	memcpy(open_ok, s->keep, s->nkeep * sizeof(*open_ok));
	open_ok[s->nkeep] = s->bwrap_fd;
	pid_t pid = fork();
	if (pid != 0) {
		int err = errno;
		free(open_ok);
		return pid > 0 ? pid : err_sys(e, err, "fork");
	}

	/* Child: only async-signal-safe calls until exec.  The keep list is
	 * what bwrap must inherit; a descriptor the caller left without
	 * O_CLOEXEC has no business in bwrap or the sandbox: closed here. */
	if (sys_close_except(open_ok, s->nkeep + 1) < 0)
		_exit(EXIT_CORDON_FAILED);
	for (size_t i = 0; i < s->nkeep; i++)
		if (sys_set_inheritable(s->keep[i]) < 0)
			_exit(EXIT_CORDON_FAILED);
	if (sigprocmask(SIG_SETMASK, &old_mask, NULL) < 0)
		_exit(EXIT_CORDON_FAILED);
	syscall(SYS_execveat, s->bwrap_fd, "", s->argv, s->envp, AT_EMPTY_PATH);
	struct cordon_err ce;
	(void)err_sys(&ce, errno, "cannot execute bwrap");
	err_print(&ce);
	_exit(EXIT_CORDON_FAILED);
}

static long long now_ms(void)
{
	struct timespec ts;
	(void)clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int drain_ctrl(int ctrl, struct wire_peer *peer, const struct supervisor_hooks *hooks,
		      struct run_outcome *out, struct cordon_err *e)
{
	for (;;) {
		struct wire_rec rec;
		struct cordon_err re;
		int r = wire_recv(ctrl, peer, &rec, &re);
		/* A peer that went away with records unread (bwrap failing before
		 * cordon-inner ran) is an end, not a protocol error: the outcome
		 * then says that the sandbox was never built. */
		if (r == -ECONNRESET)
			return 0;
		if (r == 0 || r == -EAGAIN)
			return r;
		if (r < 0) {
			*e = re;
			return r;
		}
		if (rec.type == WIRE_EXITED) {
			if (hooks && hooks->on_exited)
				hooks->on_exited(hooks->ctx);
		} else if (rec.type == WIRE_STARTED) {
			out->started = 1;
		} else if (rec.type == WIRE_ERROR) {
			memcpy(&out->inner_err, rec.data, sizeof(out->inner_err));
			out->inner_err.msg[ERR_MSG_MAX - 1] = '\0';
			out->have_error = 1;
		}
		sys_close(&rec.fd);
	}
}

int supervisor_wait(pid_t bwrap, pid_t sandbox, int ctrl, unsigned timeout,
		    const struct supervisor_hooks *hooks, struct run_outcome *out,
		    struct cordon_err *e)
{
	memset(out, 0, sizeof(*out));
	sigset_t s;
	watched_set(&s);
	/* Signals that came while the sandbox was being set up are pending
	 * (blocked since supervisor_block_signals): the first read takes them. */
	AUTO_FD sfd = signalfd(-1, &s, SFD_CLOEXEC | SFD_NONBLOCK);
	if (sfd < 0)
		return err_sys(e, errno, "signalfd");
	struct wire_peer peer = { WIRE_TO_OUTER, 0 };
	long long deadline = timeout ? now_ms() + (long long)timeout * 1000 : 0;
	long long kill_at = 0;
	int ctrl_open = 1;
	int rc = 0;

	for (;;) {
		int st;
		pid_t w = wait4(bwrap, &st, WNOHANG, &out->rusage);
		if (w == bwrap) {
			out->wstatus = st;
			out->reaped = 1;
			break;
		}
		if (w < 0 && errno != EINTR)
			return err_sys(e, errno, "waiting for bwrap");

		long long now = now_ms();
		if (deadline && now >= deadline && !out->timed_out) {
			out->timed_out = 1;
			(void)kill(sandbox, SIGKILL);
		}
		if (kill_at && now >= kill_at) {
			kill_at = 0;
			out->escalated = 1;
			(void)kill(sandbox, SIGKILL);
		}
		long long wake = -1;
		if (deadline && !out->timed_out)
			wake = deadline - now;
		if (kill_at && (wake < 0 || kill_at - now < wake))
			wake = kill_at - now;

		struct pollfd p[2] = {
			{ sfd, POLLIN, 0 },
			{ ctrl_open ? ctrl : -1, POLLIN, 0 },
		};
		int n = poll(p, 2, wake < 0 ? -1 : (int)(wake > 0 ? wake : 0));
		if (n < 0 && errno != EINTR)
			return err_sys(e, errno, "poll");
		if (n <= 0)
			continue;

		if (p[0].revents & POLLIN) {
			struct signalfd_siginfo si;
			while (read(sfd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
				int sig = (int)si.ssi_signo;
				if (sig == SIGCHLD)
					continue;
				(void)kill(sandbox, sig);
				if (sig == SIGTERM && !kill_at) {
					kill_at = now_ms() + 1000;
					out->killed_by = SIGTERM;
				}
			}
		}
		if (p[1].revents & (POLLIN | POLLHUP | POLLERR)) {
			int r = drain_ctrl(ctrl, &peer, hooks, out, e);
			if (r == 0)
				ctrl_open = 0;
			else if (r < 0 && r != -EAGAIN) {
				/* A malformed record means cordon-inner is not
				 * the program we started: end the sandbox. */
				(void)kill(sandbox, SIGKILL);
				rc = r;
				ctrl_open = 0;
			}
		}
	}
	if (ctrl_open && rc == 0) {
		int r = drain_ctrl(ctrl, &peer, hooks, out, e);
		if (r < 0 && r != -EAGAIN)
			rc = r;
	}
	return rc;
}

int supervisor_exit_code(const struct run_outcome *o)
{
	if (o->timed_out)
		return EXIT_TIMEOUT;
	if (o->have_error) {
		/* An error record means the command never ran: only 126/127 may
		 * pass through, anything else (0 included) is a setup failure. */
		int c = o->inner_err.exit_code;
		return (c == EXIT_NOT_EXECUTABLE || c == EXIT_NOT_FOUND) ? c : EXIT_CORDON_FAILED;
	}
	if (o->escalated)
		return 128 + o->killed_by;
	if (!o->started) {
		/* Killed by a forwarded signal before the command started. */
		if (o->killed_by)
			return 128 + o->killed_by;
		return EXIT_CORDON_FAILED;
	}
	if (WIFEXITED(o->wstatus))
		return WEXITSTATUS(o->wstatus);
	if (WIFSIGNALED(o->wstatus))
		return 128 + WTERMSIG(o->wstatus);
	return EXIT_CORDON_FAILED;
}
