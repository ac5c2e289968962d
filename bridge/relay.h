/* relay.h: one direction of a proxied connection, moved by splice(2)
 * through a pipe (the bytes never enter the bridge's memory), after the
 * bytes the bridge itself must send first (a rebuilt head, the bytes that
 * came with the client's head, a CONNECT or SOCKS reply).  EOF on the
 * source is passed on as shutdown(SHUT_WR) once everything read was
 * written: half-closes work both ways.
 *
 * Belongs here: the pump.  Non-blocking descriptors; the caller's event
 * loop calls relay_pump again when either descriptor is ready.  splice has
 * no MSG_NOSIGNAL: the caller ignores SIGPIPE. */
#ifndef CORDON_BRIDGE_RELAY_H
#define CORDON_BRIDGE_RELAY_H

#include <stddef.h>

struct relay_dir {
	int from, to;             /* borrowed */
	int pipe[2];              /* owned; -1 until relay_open */
	size_t in_pipe;           /* bytes in the pipe */
	size_t pipe_size;
	char *pending;            /* owned; sent before anything spliced */
	size_t pending_len, pending_off;
	int eof;                  /* from reached EOF */
	int shut;                 /* shutdown(to, SHUT_WR) done */
	unsigned long long bytes; /* bytes written to `to` */
};

/* A direction from -> to, with pending[0..len) (owned from now on, may be
 * NULL) to send first.  0 or -errno (the pipe). */
int relay_open(struct relay_dir *d, int from, int to, char *pending, size_t len)
	__attribute__((warn_unused_result));

/* Move what can move now.  0: nothing more to do until an event (or done);
 * -errno: the connection is broken (reset, EPIPE).  */
int relay_pump(struct relay_dir *d) __attribute__((warn_unused_result));

/* Nonzero once everything was passed on and the EOF forwarded. */
int relay_done(const struct relay_dir *d);

void relay_close(struct relay_dir *d);

#endif
