/* termrelay.h: the terminal relay (launch/pty.h) inside the supervisor's
 * loop: its three ends watched, the job control that passes through it
 * (Ctrl-Z, fg, bg, a read or write from the background), a resize and a
 * hangup.  run.c's supervisor callbacks call these; nothing here decides
 * the run's end. */
#ifndef CORDON_TERMRELAY_H
#define CORDON_TERMRELAY_H

#include "launch/bwrap.h"
#include "launch/inner_link.h"
#include "launch/pty.h"
#include "supervise.h"

/* The watches the relay owns: one per end, then the background check. */
#define TERMRELAY_NWATCH (PTY_NENDS + 1)

struct termrelay {
	struct pty *pty;
	struct supervise_watch *w;     /* PTY_NENDS of them, one per end */
	struct supervise_watch *away;  /* the background job's check */
	int timer;                     /* its timerfd, -1: none */
	const struct inner_link *inner;
	struct bwrap *bwrap;
	int told_away;                 /* cordon-inner was told the job is in the background */
};

/* Fill w[0..TERMRELAY_NWATCH) and arm them (none without a terminal). */
void termrelay_start(struct termrelay *r, struct pty *pty, struct supervise_watch *w,
		     const struct inner_link *inner, struct bwrap *bwrap);
void termrelay_stop(struct termrelay *r);

/* The supervisor's signals, with a terminal relay: SIGWINCH, SIGHUP,
 * SIGCONT, and the command stopped on its terminal (sig: the stop's). */
void termrelay_winch(struct termrelay *r);
void termrelay_hangup(struct termrelay *r);
void termrelay_cont(struct termrelay *r);
void termrelay_stopped(struct termrelay *r, int sig);

#endif
