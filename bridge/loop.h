/* loop.h: the bridge's event loop: epoll over the two listeners, every
 * connection's descriptors, the resolver's eventfd, a timer for head and
 * connect deadlines, and the socket to cordon-inner, whose EOF (the sandbox
 * is gone) ends the bridge once the open tunnels drained.  Edge-triggered; every handler works until
 * EAGAIN, so nothing spins.
 *
 * Belongs here: accept, dispatch, deadlines, the end of a connection (its
 * log line, closing its descriptors). */
#ifndef CORDON_BRIDGE_LOOP_H
#define CORDON_BRIDGE_LOOP_H

#include "conn.h"
#include "err.h"

/* Run until the sandbox socket reaches EOF, then close the listeners and
 * let the open connections drain (each until its sandbox side was passed
 * on in full, at most LOOP_DRAIN_MS): returns 0 then; -errno with *e when
 * the loop itself cannot go on. */
int loop_run(struct bridge *b, int *listeners, size_t nlisteners, int sandbox,
	     struct cordon_err *e) __attribute__((warn_unused_result));

/* After the sandbox ended, what becomes of a connection in state st
 * (up_done: its sandbox side reached EOF and all of it was written out)
 * at now, with the drain deadline: */
enum loop_drain {
	LOOP_DRAIN_KEEP, /* still relaying, or still on its way to */
	LOOP_DRAIN_DONE, /* nothing left to deliver: log it as allowed */
	LOOP_DRAIN_CUT,  /* the deadline passed: close it, sandbox-ended */
};
enum loop_drain loop_drain_step(enum conn_state st, int up_done, long long now,
				long long deadline);

/* epoll_wait's timeout: -1 (none) before the sandbox ended (deadline 0),
 * then the milliseconds left until the deadline, 0 once past it. */
int loop_wait_ms(long long deadline, long long now);

#endif
