/* supervise.c: see supervise.h. */
#include "supervise.h"

#include <errno.h>
#include <poll.h>
#include <string.h>
#include <sys/signalfd.h>
#include <time.h>
#include <unistd.h>
#include "sys.h"
#include "wire.h"

static const int forwarded[] = { SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGUSR1, SIGUSR2, SIGWINCH };
#define NFORWARDED (sizeof(forwarded) / sizeof(forwarded[0]))
#define WATCH_MAX 8

uint64_t supervise_ignored(void)
{
	uint64_t m = 0;
	for (size_t i = 0; i < NFORWARDED; i++) {
		struct sigaction sa;
		if (sigaction(forwarded[i], NULL, &sa) == 0 && sa.sa_handler == SIG_IGN)
			m |= (uint64_t)1 << (forwarded[i] - 1);
	}
	return m;
}

int supervise_block_signals(struct supervise_signals *s, struct cordon_err *e)
{
	s->ignored = supervise_ignored();
	sigemptyset(&s->watched);
	for (size_t i = 0; i < NFORWARDED; i++)
		if (!(s->ignored >> (forwarded[i] - 1) & 1))
			sigaddset(&s->watched, forwarded[i]);
	sigaddset(&s->watched, SIGCHLD);
	/* Blocked, SIGCONT still continues cordon; read, it tells the
	 * terminal relay that the user resumed it (supervise_spec.on_cont). */
	sigaddset(&s->watched, SIGCONT);
	if (sigprocmask(SIG_BLOCK, &s->watched, &s->old_mask) < 0)
		return err_sys(e, errno, "blocking signals");
	return 0;
}

static long long now_ms(void)
{
	struct timespec ts;
	(void)clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int drain_ctrl(const struct supervise_spec *s, struct wire_peer *peer,
		      struct run_outcome *out, struct cordon_err *e)
{
	for (;;) {
		struct wire_rec rec;
		struct cordon_err re;
		int r = wire_recv(s->ctrl, peer, &rec, &re);
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
			int32_t st;
			memcpy(&st, rec.data, sizeof(st));
			out->cmd_wstatus = st;
			out->have_cmd_status = 1;
			if (s->on_exited)
				s->on_exited(s->ctx);
		} else if (rec.type == WIRE_STOPPED) {
			int32_t sig;
			memcpy(&sig, rec.data, sizeof(sig));
			if (s->on_stopped)
				s->on_stopped(s->ctx, sig);
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

struct loop {
	const struct supervise_spec *s;
	struct run_outcome *out;
	long long deadline;       /* the timeout, 0: none */
	long long timeout_kill_at; /* the end of the run after the timeout's SIGTERM, 0: none */
	long long kill_at;        /* the end of the run after a forwarded end signal, 0: none */
	long long cpu_at;         /* the next read of the tree's CPU time, 0: none */
	long ncpu;                /* online CPUs: the fastest the tree's time grows */
};

#define CPU_READ_MIN_MS 10
#define CPU_READ_MAX_MS 1000

/* The tree's CPU time against --limit-cpu; when the next read is due. */
static void cpu_check(struct loop *l, long long now)
{
	unsigned long long used = 0, limit = (unsigned long long)l->s->cpu_limit * 1000000ULL;
	int rc = l->s->cpu_usec(l->s->cpu_ctx, &used);
	if (rc < 0 || used >= limit) {
		if (rc < 0)
			l->out->cpu_unreadable = rc;
		else
			l->out->cpu_exceeded = 1;
		l->cpu_at = 0;
		bwrap_end(l->s->bwrap, now);
		return;
	}
	long long ms = (long long)((limit - used) / 1000ULL) / l->ncpu;
	l->cpu_at = now + (ms < CPU_READ_MIN_MS ? CPU_READ_MIN_MS :
			   ms > CPU_READ_MAX_MS ? CPU_READ_MAX_MS : ms);
}

/* Signals: SIGWINCH to the terminal relay if there is one, everything else
 * to the sandbox's PID 1; an end signal starts the --kill-after clock. */
static void on_signals(struct loop *l, int sfd)
{
	struct signalfd_siginfo si;
	while (read(sfd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
		int sig = (int)si.ssi_signo;
		if (sig == SIGCHLD)
			continue;
		if (sig == SIGCONT) {
			if (l->s->on_cont)
				l->s->on_cont(l->s->ctx);
			continue;
		}
		if (sig == SIGWINCH && l->s->on_winch) {
			l->s->on_winch(l->s->ctx);
			continue;
		}
		if (sig == SIGHUP && l->s->on_hangup)
			l->s->on_hangup(l->s->ctx);
		else
			bwrap_signal(l->s->bwrap, sig);
		if ((sig == SIGTERM || sig == SIGINT || sig == SIGHUP) && !l->kill_at) {
			l->kill_at = now_ms() + (long long)l->s->kill_after * 1000;
			l->out->killed_by = sig;
		}
	}
}

/* The poll timeout to the next deadline, after acting on the ones past. */
static int clocks(struct loop *l)
{
	long long now = now_ms();
	/* The timeout as coreutils' `timeout -k`: SIGTERM to the command
	 * first (a test runner prints its summary), the end of the sandbox
	 * --kill-after seconds later if it is still there. */
	if (l->deadline && now >= l->deadline && !l->out->timed_out) {
		l->out->timed_out = 1;
		bwrap_signal(l->s->bwrap, SIGTERM);
		l->timeout_kill_at = now + (long long)l->s->kill_after * 1000;
	}
	if (l->timeout_kill_at && now >= l->timeout_kill_at) {
		l->timeout_kill_at = 0;
		l->out->timeout_killed = 1;
		bwrap_end(l->s->bwrap, now);
	}
	if (l->kill_at && now >= l->kill_at) {
		l->kill_at = 0;
		l->out->escalated = 1;
		bwrap_end(l->s->bwrap, now);
	}
	if (l->cpu_at && now >= l->cpu_at)
		cpu_check(l, now);
	long long end_by = bwrap_end_due(l->s->bwrap, now);
	long long wake = -1;
	if (l->deadline && !l->out->timed_out)
		wake = l->deadline - now;
	if (l->timeout_kill_at && (wake < 0 || l->timeout_kill_at - now < wake))
		wake = l->timeout_kill_at - now;
	if (l->kill_at && (wake < 0 || l->kill_at - now < wake))
		wake = l->kill_at - now;
	if (l->cpu_at && (wake < 0 || l->cpu_at - now < wake))
		wake = l->cpu_at - now;
	if (end_by && (wake < 0 || end_by - now < wake))
		wake = end_by - now;
	return wake < 0 ? -1 : (int)(wake > 0 ? wake : 0);
}

/* cordon can no longer watch the sandbox (a failed poll or read: the
 * command may have lowered cordon's limits, or the machine is out of
 * something): the sandbox is killed, bwrap waited for, and the run ends as
 * one cordon ended, its checks included (outcome.h: never 125, the command
 * may have run).  0, or -errno if bwrap cannot even be waited for. */
static int lose(const struct supervise_spec *s, struct run_outcome *out, const struct cordon_err *why,
		struct cordon_err *e)
{
	if (!out->lost) {
		out->lost = 1;
		(void)err_set(&out->lost_err, why->err, "%s; the sandbox was killed and checked as "
			      "after any run (the command may have run)", why->msg);
	}
	int r = bwrap_kill_wait(s->bwrap, &out->wstatus, &out->rusage);
	if (r < 0)
		return err_sys(e, -r, "waiting for bwrap after the sandbox was killed");
	out->reaped = 1;
	return 0;
}

int supervise_run(const struct supervise_spec *s, struct run_outcome *out, struct cordon_err *e)
{
	memset(out, 0, sizeof(*out));
	if (s->nwatch > WATCH_MAX)
		return err_set(e, EINVAL, "too many descriptors to watch");
	/* Signals that came while the sandbox was being set up are pending
	 * (blocked since supervise_block_signals): the first read takes them. */
	AUTO_FD sfd = signalfd(-1, &s->sig->watched, SFD_CLOEXEC | SFD_NONBLOCK);
	if (sfd < 0)
		return err_sys(e, errno, "signalfd");
	struct wire_peer peer = { WIRE_TO_OUTER, 0 };
	long long t0 = now_ms();
	int count_cpu = s->cpu_limit && s->cpu_usec;
	/* Only a run that counts CPU time asks how many CPUs there are. */
	long ncpu = count_cpu ? sysconf(_SC_NPROCESSORS_ONLN) : 1;
	struct loop l = { s, out, s->timeout ? t0 + (long long)s->timeout * 1000 : 0, 0, 0,
			  count_cpu ? t0 : 0, ncpu > 0 ? ncpu : 1 };
	int ctrl_open = 1;
	int rc = 0;

	for (;;) {
		int reaped = bwrap_reap(s->bwrap, &out->wstatus, &out->rusage);
		if (reaped > 0) {
			out->reaped = 1;
			break;
		}
		if (reaped < 0) {
			struct cordon_err why;
			(void)err_sys(&why, -reaped, "waiting for bwrap failed");
			rc = lose(s, out, &why, e);
			break;
		}

		int wake = clocks(&l);
		struct pollfd p[2 + WATCH_MAX] = {
			{ sfd, POLLIN, 0 },
			{ ctrl_open ? s->ctrl : -1, POLLIN, 0 },
		};
		for (size_t i = 0; i < s->nwatch; i++)
			p[2 + i] = (struct pollfd){ s->watch[i].fd, s->watch[i].events, 0 };
		int n = poll(p, 2 + s->nwatch, wake);
		if (n < 0 && errno != EINTR) {
			struct cordon_err why;
			(void)err_sys(&why, errno, "watching the sandbox failed (poll)");
			rc = lose(s, out, &why, e);
			break;
		}
		if (n <= 0)
			continue;

		if (p[0].revents & POLLIN)
			on_signals(&l, sfd);
		if (p[1].revents & (POLLIN | POLLHUP | POLLERR)) {
			int r = drain_ctrl(s, &peer, out, e);
			if (r == 0)
				ctrl_open = 0;
			else if (r < 0 && r != -EAGAIN) {
				/* A malformed record means cordon-inner is not
				 * the program we started: end the sandbox. */
				ctrl_open = 0;
				rc = lose(s, out, e, e);
				break;
			}
		}
		for (size_t i = 0; i < s->nwatch; i++)
			if (p[2 + i].revents && s->watch[i].fd >= 0)
				s->watch[i].ready(&s->watch[i], p[2 + i].revents);
	}
	if (ctrl_open && rc == 0) {
		struct cordon_err de;
		int r = drain_ctrl(s, &peer, out, &de);
		/* A lost run's last records are read for its status alone. */
		if (r < 0 && r != -EAGAIN && !out->lost) {
			*e = de;
			rc = r;
		}
	}
	return rc;
}
