/* wire_bridge.c: see wire_bridge.h.  The records are checked and received
 * by wire.c's code for any table; this file holds the table and the
 * bridge's own record and peer types. */
#include "wire_bridge.h"

#include <errno.h>
#include <stddef.h>
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

/* The decisions memfd: another channel, with its own table, so that a
 * DECISION is unknown on the socket and a socket's record unknown here. */
static const struct wire_spec wb_decisions_table[WIRE_BRIDGE_TYPE_END] = {
	[WIRE_BRIDGE_DECISION] = { "decision", WIRE_TO_OUTER,
				   offsetof(struct wire_bridge_decision, host),
				   offsetof(struct wire_bridge_decision, host) + WIRE_BRIDGE_HOST_MAX - 1,
				   WIRE_FD_NONE, 0 },
};

static const struct wire_proto wb_decisions_proto = {
	wb_decisions_table, WIRE_BRIDGE_TYPE_END, "bridge decisions protocol error",
	"the bridge's decisions"
};

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

size_t wire_bridge_decision_frame(const struct wire_bridge_decision *d,
				  unsigned char out[WIRE_BRIDGE_FRAME_MAX])
{
	size_t host = strnlen(d->host, sizeof(d->host) - 1);
	struct wire_bridge_frame f = { WIRE_BRIDGE_DECISION,
				       (uint32_t)(offsetof(struct wire_bridge_decision, host) + host) };
	memcpy(out, &f, sizeof(f));
	memcpy(out + sizeof(f), d, f.len);
	return sizeof(f) + f.len;
}

int wire_bridge_decision_next(const unsigned char *buf, size_t len, size_t *at,
			      struct wire_bridge_decision *d, struct cordon_err *e)
{
	struct wire_bridge_frame f;
	if (*at > len || len - *at < sizeof(f))
		return 0;
	memcpy(&f, buf + *at, sizeof(f));
	struct wire_peer p = { WIRE_TO_OUTER, 0 };
	int rc = wire_check_proto(&wb_decisions_proto, &p, f.type, f.len, 0, e);
	if (rc < 0)
		return rc;
	if (len - *at - sizeof(f) < f.len)
		return 0; /* cut short: the bridge was killed while it wrote */
	memset(d, 0, sizeof(*d));
	memcpy(d, buf + *at + sizeof(f), f.len);
	d->reason[sizeof(d->reason) - 1] = '\0';
	d->address[sizeof(d->address) - 1] = '\0';
	d->host[f.len - offsetof(struct wire_bridge_decision, host)] = '\0';
	if (d->verdict < WIRE_BRIDGE_ALLOW || d->verdict > WIRE_BRIDGE_FAILED || d->zero)
		return err_set(e, EPROTO, "%s: decision record with verdict %u, padding %u",
			       wb_decisions_proto.err, d->verdict, (unsigned)d->zero);
	*at += sizeof(f) + f.len;
	return 1;
}
