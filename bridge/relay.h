/* relay.h: one direction of a proxied connection, moved by splice(2)
 * through a pipe (the bytes never enter the bridge's memory), after the
 * bytes the bridge itself must send first (a rebuilt head, the bytes that
 * came with the client's head, a CONNECT or SOCKS reply).  EOF on the
 * source is passed on as shutdown(SHUT_WR) once everything read was
 * written: half-closes work both ways.
 *
 * An error on one side never costs the other side what is already on its
 * way to it: a source that fails (a reset) counts as an EOF after the bytes
 * read before it, which are still written; only a destination that fails
 * ends its direction at once (what was meant for it cannot arrive).
 *
 * A forwarded (absolute-form) request frames its directions: the request
 * body is passed on up to its end (Content-Length, or a chunked body
 * checked and rebuilt by chunked.c) and nothing after it (kept in rest for
 * the next request); each response head is rewritten
 * (http_response_close): when the client keeps its connection and the
 * response's end is known (http_response_frame), the response is passed on
 * to that end only and the direction is reusable; otherwise the head says
 * Connection: close and the response runs to the server's EOF.
 *
 * A 101 passes unchanged when it is the switch the request asked for
 * (http_response_switch), and the response direction is a plain stream
 * from then on (switched); the caller then turns the request direction
 * into one too (relay_switch), so the connection is a tunnel like a
 * CONNECT's for the rest of its life.  A 101 nobody asked for is an error.
 *
 * Belongs here: the pump.  Non-blocking descriptors; the caller's event
 * loop calls relay_pump again when either descriptor is ready.  splice has
 * no MSG_NOSIGNAL: the caller ignores SIGPIPE. */
#ifndef CORDON_BRIDGE_RELAY_H
#define CORDON_BRIDGE_RELAY_H

#include <stddef.h>

#include "chunked.h"
#include "proto_http.h"

enum relay_frame {
	RELAY_STREAM = 0,  /* a tunnel: everything until EOF */
	RELAY_LENGTH,      /* a request body of body_left bytes */
	RELAY_CHUNKED,     /* a chunked request body */
	RELAY_RESPONSE,    /* responses: heads rewritten, then the rest as a stream */
};

struct relay_dir {
	int from, to;             /* borrowed */
	int pipe[2];              /* owned; -1 until relay_open */
	size_t in_pipe;           /* bytes in the pipe */
	size_t pipe_size;
	char *pending;            /* owned; sent before anything spliced */
	size_t pending_len, pending_off;
	int eof;                  /* from reached EOF (or failed: err) */
	int shut;                 /* shutdown(to, SHUT_WR) done */
	int dead;                 /* to failed: nothing more can be delivered */
	int err;                  /* the first errno of either side, 0: none */
	unsigned long long bytes; /* bytes written to `to` */
	enum relay_frame frame;
	unsigned long long body_left; /* RELAY_LENGTH */
	int stopped;              /* the framed body ended: nothing more is read */
	struct chunked ck;        /* RELAY_CHUNKED */
	char *head;               /* RELAY_RESPONSE: a response head being read (owned) */
	size_t head_len;
	int keep, head_req;       /* RELAY_RESPONSE, set by the caller: the client may
				     send another request; this one was HEAD */
	int reusable;             /* the response was delimited and the client keeps
				     the connection: the next request may follow */
	char *rest;               /* a request body's direction: bytes read after the
				     body's end (the next request's start), owned */
	size_t rest_len;
	char upgrade[HTTP_UPGRADE_MAX + 1]; /* RELAY_RESPONSE, set by the caller: the
				     protocols the request offered ("": none); once
				     switched, the ones the server chose */
	int switched;             /* a 101 passed: a stream from here on */
};

/* A direction from -> to, with pending[0..len) (owned from now on, may be
 * NULL) to send first.  0 or -errno (the pipe). */
int relay_open(struct relay_dir *d, int from, int to, char *pending, size_t len)
	__attribute__((warn_unused_result));

/* Frame an open direction (before its first pump): a request body of
 * RELAY_LENGTH (length bytes) or RELAY_CHUNKED, or RELAY_RESPONSE.  The
 * first keep bytes of pending (a rebuilt head) are sent as they are; the
 * rest, read with the head, is the start of the framed stream.  0,
 * -EBADMSG (a malformed chunked body) or -ENOMEM. */
int relay_frame(struct relay_dir *d, enum relay_frame f, unsigned long long length, size_t keep)
	__attribute__((warn_unused_result));

/* Move what can move now.  0: nothing more to do until an event (or
 * done; a failed side shows in err); -EBADMSG: a malformed chunked body
 * (400); -EPROTO: a malformed response head, or a 101 to another protocol
 * than offered (502); -EPERM: a 101 to a request that offered no upgrade
 * (502); -ENOMEM. */
int relay_pump(struct relay_dir *d) __attribute__((warn_unused_result));

/* The request direction of a connection whose response switched: the
 * bytes the client sent after the request (kept in rest, before anything
 * still in the client's socket) go to the server first, then everything
 * until EOF.  Pump it next.  0 or -ENOMEM. */
int relay_switch(struct relay_dir *d) __attribute__((warn_unused_result));

/* Nonzero once everything deliverable was passed on and the EOF forwarded
 * (or the framed body ended, or the destination failed). */
int relay_done(const struct relay_dir *d);

void relay_close(struct relay_dir *d);

#endif
