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

#endif
