/* wire_bridge.h: the records cordon-inner and cordon-bridge exchange over
 * the SOCK_SEQPACKET socketpair cordon creates for --net proxy (one end
 * inherited by cordon-inner through bwrap, the other by cordon-bridge).
 *
 * inner -> bridge: one LISTENER per port (uint16 port, the listening
 * socket's descriptor), then LISTENERS_END (uint32 count).
 * bridge -> inner: READY (one byte) once it has checked every listener, or
 * ERROR (struct cordon_err) and exit.  cordon-inner starts the command only
 * after READY.  EOF on either end means the other is gone: the bridge then
 * exits, cordon-inner refuses to start the command.
 * bridge -> cordon: one DECISION per connection, in a memfd of its own
 * (below).
 *
 * The table in wire_bridge.c fixes, per type, the direction, the payload
 * size, whether a descriptor comes with it and whether it may come once;
 * anything else is a protocol error (fail closed), as in wire.h. */
#ifndef CORDON_WIRE_BRIDGE_H
#define CORDON_WIRE_BRIDGE_H

#include <stddef.h>
#include <stdint.h>
#include "err.h"
#include "sys.h"

/* The ports cordon-inner listens on inside the sandbox, on 127.0.0.1. */
#define WIRE_BRIDGE_HTTP_PORT 3128
#define WIRE_BRIDGE_SOCKS_PORT 1080
#define WIRE_BRIDGE_NLISTENERS 2

/* The bridge's decisions, one per connection it logs (--net-log has the
 * same as a JSON line), go to a second channel: a memfd cordon hands the
 * bridge (--decisions FD) and reads back when the run ends (the report,
 * the lines on refused hosts).  There each is one DECISION record framed
 * for a file, a struct wire_bridge_frame then the payload, checked against
 * that channel's own table (in wire_bridge.c: the one type, bridge to
 * cordon, its size range) as a socket's records are.  The bridge stops
 * appending at this size, cordon reads no more. */
#define WIRE_BRIDGE_DECISIONS_MAX (4u << 20)

enum wire_bridge_type {
	WIRE_BRIDGE_LISTENER = 1, /* inner->bridge: uint16 port + listening socket */
	WIRE_BRIDGE_LISTENERS_END, /* inner->bridge: uint32 count of LISTENER records */
	WIRE_BRIDGE_READY,        /* bridge->inner: one byte; the listeners are held */
	WIRE_BRIDGE_ERROR,        /* bridge->inner: struct cordon_err, then the bridge exits */
	WIRE_BRIDGE_DECISION,     /* bridge->cordon, in the decisions memfd only (never on
				     the socket): struct wire_bridge_decision, its host
				     cut to the name's length */
	WIRE_BRIDGE_TYPE_END,
};

/* What the bridge decided for one connection (its --net-log line's
 * decision). */
enum wire_bridge_verdict {
	WIRE_BRIDGE_ALLOW = 1, /* "allow": relayed (reason: how it ended) */
	WIRE_BRIDGE_DENY,      /* "deny": refused by the policy (reason: which rule) */
	WIRE_BRIDGE_FAILED,    /* "error": not relayed for another reason (a request that
				  did not parse, a name that did not resolve, ...) */
};

#define WIRE_BRIDGE_REASON_MAX 32
#define WIRE_BRIDGE_ADDR_MAX 48  /* INET6_ADDRSTRLEN and its NUL fit */
#define WIRE_BRIDGE_HOST_MAX 254 /* a canonical host name (253 bytes) and its NUL */

/* The payload of a DECISION record.  Only the host's own bytes travel
 * (no NUL): the payload is offsetof(host) + the name's length.  The
 * receiver NUL-terminates every string itself. */
struct wire_bridge_decision {
	uint32_t verdict;                      /* enum wire_bridge_verdict */
	uint16_t port;                         /* 0 when no host was parsed */
	uint16_t zero;                         /* must be 0 */
	char reason[WIRE_BRIDGE_REASON_MAX];   /* the log's reason word ("unlisted") */
	char address[WIRE_BRIDGE_ADDR_MAX];    /* the address connected to or refused, "" none */
	char host[WIRE_BRIDGE_HOST_MAX];       /* canonical (bridge/host.h), "" none */
};

/* A record in a file: its type and payload length, then the payload. */
struct wire_bridge_frame {
	uint32_t type;
	uint32_t len;
};

#define WIRE_BRIDGE_FRAME_MAX (sizeof(struct wire_bridge_frame) + sizeof(struct wire_bridge_decision))

enum wire_bridge_dir { WIRE_BRIDGE_TO_BRIDGE = 1, WIRE_BRIDGE_TO_INNER = 2 };

#define WIRE_BRIDGE_DATA_MAX (sizeof(struct cordon_err))

struct wire_bridge_rec {
	uint32_t type;
	uint32_t len;
	int fd;                                  /* -1 unless the type carries one; caller owns it */
	unsigned char data[WIRE_BRIDGE_DATA_MAX];
};

struct wire_bridge_peer {
	enum wire_bridge_dir accept;
	uint32_t seen;
};

int wire_bridge_send(int sock, uint32_t type, const void *data, size_t len, int fd) WUR;

/* 1: *r holds a valid record; 0: orderly EOF; <0: -errno with *e filled. */
int wire_bridge_recv(int sock, struct wire_bridge_peer *p, struct wire_bridge_rec *r,
		     struct cordon_err *e) WUR;

/* Pure validation used by wire_bridge_recv, exposed for unit tests. */
int wire_bridge_check(const struct wire_bridge_peer *p, uint32_t type, size_t len, int has_fd,
		      struct cordon_err *e) WUR;

/* The bridge's side of the decisions channel: d framed as one record
 * (host cut at its NUL) into out (WIRE_BRIDGE_FRAME_MAX bytes); returns
 * the frame's length, written with one write(2). */
size_t wire_bridge_decision_frame(const struct wire_bridge_decision *d,
				  unsigned char out[WIRE_BRIDGE_FRAME_MAX]);

/* cordon's side: the record at buf[*at..len) (what it read of the memfd),
 * checked against the decisions table and decoded into *d, every string
 * NUL-terminated.  1: *d filled and *at moved past the record; 0: nothing
 * more, or a record cut short at the end; <0: -EPROTO with *e (an unknown
 * type, a size out of range, a verdict or padding that is not one): what
 * follows is not read. */
int wire_bridge_decision_next(const unsigned char *buf, size_t len, size_t *at,
			      struct wire_bridge_decision *d, struct cordon_err *e) WUR;

#endif
