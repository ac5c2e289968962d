/* supervise.h: watching bwrap until the sandbox is gone.
 *
 * cordon blocks the signals it forwards (SIGHUP SIGINT SIGQUIT SIGTERM
 * SIGUSR1 SIGUSR2 SIGWINCH), SIGCHLD and SIGCONT before it starts anything, and reads
 * them from a signalfd.  bwrap forwards no signal itself, so cordon sends
 * each one straight to the sandbox's PID 1 (cordon-inner, whose host pid
 * bwrap reports on --info-fd), which passes it on to the command.  A
 * forwarded SIGTERM, SIGINT or SIGHUP that has not ended the sandbox within
 * --kill-after seconds ends it.  The timeout works the same way, as
 * coreutils' `timeout -k`: SIGTERM to the command (through PID 1) when it
 * expires, the end of the sandbox --kill-after seconds later if it is still
 * there.  cordon ends a sandbox (those two, --limit-cpu) with bwrap_end
 * (launch/bwrap.h: PID 1 kills and reaps every process, bwrap_kill after a
 * grace).  Every signal, end and kill goes through the bwrap handle, which
 * owns the running sandbox.  A signal the caller ignored (nohup) is neither
 * blocked nor forwarded: cordon, and the command, keep ignoring it.
 *
 * --limit-cpu on the whole tree: the kernel caps a cgroup's CPU rate, not
 * its total, so the loop reads the run's cgroup's CPU time (cpu_usec) and
 * ends the sandbox once its processes together used cpu_limit seconds.
 * They cannot use more than one second per online CPU in a second, so the
 * next read is due when that many could have reached the limit (at most a
 * second away, at least 10 ms): the overshoot is at most 10 ms per CPU.  A counter that cannot be read ends the sandbox too: the
 * limit would no longer hold.
 *
 * A loop that can no longer watch (a failed poll or wait) does not leave:
 * it kills the sandbox, waits for bwrap and returns 0 with run_outcome.lost
 * set, so that the run's end checks still run and its status is never 125
 * (the command may have run; outcome.h).
 *
 * Other parts of a run add the descriptors they need watched to the same
 * loop (struct supervise_watch: the terminal relay of launch/pty.h). */
#ifndef CORDON_SUPERVISE_H
#define CORDON_SUPERVISE_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include "err.h"
#include "launch/bwrap.h"
#include "outcome.h"

struct supervise_signals {
	sigset_t watched;         /* blocked and read from the signalfd */
	sigset_t old_mask;        /* the caller's: what bwrap starts with */
	uint64_t ignored;         /* forwarded signals the caller ignored, bit sig-1 */
};

/* The forwarded signals whose disposition is SIG_IGN now, bit sig-1. */
uint64_t supervise_ignored(void);

/* Block the forwarded signals the caller did not ignore, and SIGCHLD (call
 * before anything forks). */
int supervise_block_signals(struct supervise_signals *s, struct cordon_err *e)
	__attribute__((warn_unused_result));

/* A descriptor the loop polls besides its own; `ready` is called with the
 * revents.  A callback stops the watch by setting fd to -1. */
struct supervise_watch {
	int fd;
	short events;
	void (*ready)(struct supervise_watch *w, short revents);
	void *ctx;
};

struct supervise_spec {
	struct bwrap *bwrap;      /* started, its child (the sandbox's PID 1) known */
	int ctrl;                 /* cordon's end of the control socket */
	unsigned timeout;         /* seconds, 0: none */
	unsigned kill_after;      /* seconds from a forwarded SIGTERM/INT/HUP, or the
				     timeout's SIGTERM, to the end of the sandbox */
	const struct supervise_signals *sig;
	/* Called once when cordon-inner reports that the command and every
	 * process it left have ended, before bwrap has exited (may be NULL). */
	void (*on_exited)(void *ctx);
	/* SIGWINCH goes here instead of to the sandbox (may be NULL). */
	void (*on_winch)(void *ctx);
	/* With a terminal relay (each may be NULL): SIGHUP goes to on_hangup
	 * instead of to the sandbox (the relay hangs the command's terminal
	 * up, and the kernel signals it as it would have outside), still
	 * starting the --kill-after clock; SIGCONT (cordon resumed by fg or
	 * bg) to on_cont; the command stopping (WIRE_STOPPED) to on_stopped
	 * with the signal that stopped it. */
	void (*on_hangup)(void *ctx);
	void (*on_cont)(void *ctx);
	void (*on_stopped)(void *ctx, int sig);
	void *ctx;
	struct supervise_watch *watch;
	size_t nwatch;
	unsigned cpu_limit;       /* seconds of CPU time of the whole tree, 0: none */
	/* The tree's CPU time so far, in microseconds: 0 or -errno. */
	int (*cpu_usec)(void *cpu_ctx, unsigned long long *usec);
	void *cpu_ctx;
};

/* Watch bwrap and the control socket until bwrap has exited (reaped:
 * bwrap_reap), forwarding signals and enforcing the timeout.  out is
 * filled, also on error. */
int supervise_run(const struct supervise_spec *s, struct run_outcome *out, struct cordon_err *e)
	__attribute__((warn_unused_result));

#endif
