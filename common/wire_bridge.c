/* wire_bridge.c: see wire_bridge.h.  The records are checked and received
 * by wire.c's code for any table; this file holds the table and the
 * bridge's own record and peer types. */
#include "wire_bridge.h"

#include <errno.h>
#include <string.h>
#include "wire.h"

_Static_assert(WIRE_BRIDGE_DATA_MAX <= WIRE_DATA_MAX, "a bridge record fits a wire record");

/* The bridge plays wire.h's "inner" end, as the guardian does. */
static const struct wire_spec wb_table[WIRE_BRIDGE_TYPE_END] = {
	[WIRE_BRIDGE_LISTENER] = { "listener", WIRE_TO_INNER, 2, 2, WIRE_FD_MUST, 0 },
	[WIRE_BRIDGE_LISTENERS_END] = { "listeners-end", WIRE_TO_INNER, 4, 4, WIRE_FD_NONE, 1 },
	[WIRE_BRIDGE_READY] = { "ready", WIRE_TO_OUTER, 1, 1, WIRE_FD_NONE, 1 },
	[WIRE_BRIDGE_ERROR] = { "error", WIRE_TO_OUTER, sizeof(struct cordon_err),
				sizeof(struct cordon_err), WIRE_FD_NONE, 1 },
};

static const struct wire_proto wb_proto = { wb_table, WIRE_BRIDGE_TYPE_END,
					    "bridge protocol error", "the bridge socket" };

static struct wire_peer wb_peer(const struct wire_bridge_peer *p)
{
	struct wire_peer w = { p->accept == WIRE_BRIDGE_TO_BRIDGE ? WIRE_TO_INNER : WIRE_TO_OUTER,
			       p->seen };
	return w;
}

int wire_bridge_send(int sock, uint32_t type, const void *data, size_t len, int fd)
{
	if (len > WIRE_BRIDGE_DATA_MAX)
		return -EMSGSIZE;
	return wire_send(sock, type, data, len, fd);
}

int wire_bridge_check(const struct wire_bridge_peer *p, uint32_t type, size_t len, int has_fd,
		      struct cordon_err *e)
{
	struct wire_peer w = wb_peer(p);
	return wire_check_proto(&wb_proto, &w, type, len, has_fd, e);
}

int wire_bridge_recv(int sock, struct wire_bridge_peer *p, struct wire_bridge_rec *r,
		     struct cordon_err *e)
{
	struct wire_peer w = wb_peer(p);
	struct wire_rec rec;
	int rc = wire_recv_proto(&wb_proto, sock, &w, &rec, e);
	p->seen = w.seen;
	if (rc != 1)
		return rc;
	/* The table's largest payload is WIRE_BRIDGE_DATA_MAX. */
	r->type = rec.type;
	r->len = rec.len;
	r->fd = rec.fd;
	memcpy(r->data, rec.data, rec.len);
	return 1;
}
