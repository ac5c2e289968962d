/* termrelay.c: see termrelay.h. */
#include "termrelay.h"

#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <sys/timerfd.h>
#include <unistd.h>
#include "sys.h"

/* A background cordon (bg) is not told when the shell brings it back to
 * the foreground: bash's fg sends SIGCONT only to a stopped job.  While it
 * is away it looks every AWAY_CHECK_MS, and takes the terminal raw again
 * once it is in the foreground. */
#define AWAY_CHECK_MS 200

static void relay_follow_job(struct termrelay *r)
{
	if (r->pty->away && r->timer < 0) {
		struct itimerspec every = { { 0, AWAY_CHECK_MS * 1000000L },
					    { 0, AWAY_CHECK_MS * 1000000L } };
		r->timer = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
		if (r->timer >= 0 && timerfd_settime(r->timer, 0, &every, NULL) < 0)
			sys_close(&r->timer);
	} else if (!r->pty->away) {
		sys_close(&r->timer);
	}
	r->away->fd = r->timer;
}

static void relay_arm(struct termrelay *r)
{
	for (int i = 0; i < PTY_NENDS; i++) {
		r->w[i].events = pty_events(r->pty, (enum pty_end)i);
		r->w[i].fd = r->w[i].events ? pty_fd(r->pty, (enum pty_end)i) : -1;
	}
	relay_follow_job(r);
}

/* The relay as cordon's place on the terminal allows (pty_resume), and
 * cordon-inner told when that place changed: in the background the
 * command's terminal is no longer the command's either, so that a read
 * stops it with SIGTTIN as it would have outside (inner/pid1.h), and
 * cordon's job with it (on_stopped). */
static void relay_resume(struct termrelay *r)
{
	struct cordon_err e;
	if (pty_resume(r->pty, &e) < 0) {
		/* The terminal took no raw mode (hung up, most likely): the
		 * command goes on, its keys as the terminal hands them over. */
	}
	if (r->pty->master >= 0 && r->pty->away != r->told_away &&
	    inner_link_foreground(r->inner, !r->pty->away) == 0)
		r->told_away = r->pty->away;
}

static void on_away(struct supervise_watch *w, short revents)
{
	struct termrelay *r = w->ctx;
	uint64_t ticks;
	(void)revents;
	if (read(r->timer, &ticks, sizeof(ticks)) < 0) {
		/* EAGAIN: no tick yet; looked at all the same */
	}
	relay_resume(r);
	relay_arm(r);
}

static void on_relay(struct supervise_watch *w, short revents)
{
	struct termrelay *r = w->ctx;
	pty_ready(r->pty, (enum pty_end)(w - r->w), revents);
	/* The user's terminal is gone: its hangup goes on to the command's
	 * terminal, and the supervisor takes it as the SIGHUP it is (the
	 * kernel sent that only to the session's leader, which may be a
	 * runuser or su waiting for cordon): --kill-after, status.  Ignored
	 * by the caller (nohup), the signal does nothing and the command
	 * runs on, its terminal hung up. */
	if (r->pty->hungup) {
		pty_hangup(r->pty);
		(void)raise(SIGHUP);
	}
	relay_arm(r);
}

/* SIGHUP with a terminal relay: the command's terminal hangs up, which
 * signals the command as the user's terminal hanging up would have. */
void termrelay_hangup(struct termrelay *r)
{
	pty_hangup(r->pty);
	relay_arm(r);
}

/* cordon continued (fg, bg, or right after a stop the kernel discarded):
 * the relay as its place on the terminal allows, then the command. */
void termrelay_cont(struct termrelay *r)
{
	relay_resume(r);
	bwrap_signal(r->bwrap, SIGCONT);
	relay_arm(r);
}

/* The command stopped on its terminal (Ctrl-Z, or a read in the
 * background): so does cordon's job.  Unless it was a read or write from
 * the background that the user ended meanwhile (fg of a running job,
 * before the away check noticed): outside, in the foreground, the command
 * would not have stopped, and it goes on. */
void termrelay_stopped(struct termrelay *r, int sig)
{
	if ((sig == SIGTTIN || sig == SIGTTOU) && r->told_away) {
		relay_resume(r);
		if (!r->told_away) {
			bwrap_signal(r->bwrap, SIGCONT);
			relay_arm(r);
			return;
		}
	}
	pty_suspend(r->pty, sig);
	termrelay_cont(r);
}

void termrelay_winch(struct termrelay *r)
{
	pty_resize(r->pty);
}

void termrelay_start(struct termrelay *r, struct pty *pty, struct supervise_watch *w,
		     const struct inner_link *inner, struct bwrap *bwrap)
{
	*r = (struct termrelay){ pty, w, &w[PTY_NENDS], -1, inner, bwrap, 0 };
	for (int i = 0; i < PTY_NENDS; i++)
		w[i] = (struct supervise_watch){ -1, 0, on_relay, r };
	w[PTY_NENDS] = (struct supervise_watch){ -1, POLLIN, on_away, r };
	relay_arm(r);
}

void termrelay_stop(struct termrelay *r)
{
	sys_close(&r->timer);
}
