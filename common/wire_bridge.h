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

/* The bridge's decisions, one --net-log line per connection, go to a memfd
 * cordon reads back when the run ends (the report, the lines on refused
 * hosts); the bridge stops appending at this size, cordon reads no more. */
#define WIRE_BRIDGE_DECISIONS_MAX (4u << 20)

enum wire_bridge_type {
	WIRE_BRIDGE_LISTENER = 1, /* inner->bridge: uint16 port + listening socket */
	WIRE_BRIDGE_LISTENERS_END, /* inner->bridge: uint32 count of LISTENER records */
	WIRE_BRIDGE_READY,        /* bridge->inner: one byte; the listeners are held */
	WIRE_BRIDGE_ERROR,        /* bridge->inner: struct cordon_err, then the bridge exits */
	WIRE_BRIDGE_TYPE_END,
};

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

#endif
