/* wire_bridge.c: see wire_bridge.h. */
#include "wire_bridge.h"

#include <errno.h>
#include <string.h>
#include "fdpass.h"

struct wire_bridge_spec {
	const char *name;
	enum wire_bridge_dir dir;
	size_t min, max;
	int fd;
	int once;
};

static const struct wire_bridge_spec wb_table[WIRE_BRIDGE_TYPE_END] = {
	[WIRE_BRIDGE_LISTENER] = { "listener", WIRE_BRIDGE_TO_BRIDGE, 2, 2, 1, 0 },
	[WIRE_BRIDGE_LISTENERS_END] = { "listeners-end", WIRE_BRIDGE_TO_BRIDGE, 4, 4, 0, 1 },
	[WIRE_BRIDGE_READY] = { "ready", WIRE_BRIDGE_TO_INNER, 1, 1, 0, 1 },
	[WIRE_BRIDGE_ERROR] = { "error", WIRE_BRIDGE_TO_INNER, sizeof(struct cordon_err),
				sizeof(struct cordon_err), 0, 1 },
};

int wire_bridge_send(int sock, uint32_t type, const void *data, size_t len, int fd)
{
	unsigned char buf[sizeof(uint32_t) + WIRE_BRIDGE_DATA_MAX];
	if (len > WIRE_BRIDGE_DATA_MAX)
		return -EMSGSIZE;
	memcpy(buf, &type, sizeof(type));
	if (len)
		memcpy(buf + sizeof(type), data, len);
	return fdpass_send(sock, buf, sizeof(type) + len, fd);
}

int wire_bridge_check(const struct wire_bridge_peer *p, uint32_t type, size_t len, int has_fd,
		      struct cordon_err *e)
{
	if (type == 0 || type >= WIRE_BRIDGE_TYPE_END || !wb_table[type].name)
		return err_set(e, EPROTO, "bridge protocol error: unknown record type %u", type);
	const struct wire_bridge_spec *s = &wb_table[type];
	if (s->dir != p->accept)
		return err_set(e, EPROTO, "bridge protocol error: %s record sent the wrong way", s->name);
	if (len < s->min || len > s->max)
		return err_set(e, EPROTO, "bridge protocol error: %s record of %zu bytes", s->name, len);
	if (has_fd != s->fd)
		return err_set(e, EPROTO, "bridge protocol error: %s record %s a descriptor",
			       s->name, has_fd ? "carries" : "lacks");
	if (s->once && (p->seen & (1u << type)))
		return err_set(e, EPROTO, "bridge protocol error: second %s record", s->name);
	return 0;
}

int wire_bridge_recv(int sock, struct wire_bridge_peer *p, struct wire_bridge_rec *r,
		     struct cordon_err *e)
{
	unsigned char buf[sizeof(uint32_t) + WIRE_BRIDGE_DATA_MAX];
	int fd = -1;
	ssize_t n = fdpass_recv(sock, buf, sizeof(buf), &fd);
	if (n == 0) {
		sys_close(&fd);
		return 0;
	}
	if (n < 0)
		return err_sys(e, (int)-n, "reading from the bridge socket");
	if ((size_t)n < sizeof(uint32_t)) {
		sys_close(&fd);
		return err_set(e, EPROTO, "bridge protocol error: short record");
	}
	uint32_t type;
	memcpy(&type, buf, sizeof(type));
	size_t len = (size_t)n - sizeof(type);
	int rc = wire_bridge_check(p, type, len, fd >= 0, e);
	if (rc < 0) {
		sys_close(&fd);
		return rc;
	}
	p->seen |= 1u << type;
	r->type = type;
	r->len = (uint32_t)len;
	r->fd = fd;
	memcpy(r->data, buf + sizeof(type), len);
	return 1;
}
