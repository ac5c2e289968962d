/* wire.c: see wire.h. */
#include "wire.h"

#include <errno.h>
#include <string.h>
#include "fdpass.h"

struct wire_spec {
	const char *name;
	enum wire_dir dir;
	size_t min, max;
	int fd;   /* 1: a descriptor must come with it; 0: none may */
	int once;
};

static const struct wire_spec wire_table[WIRE_TYPE_END] = {
	[WIRE_BIND_CHECK] = { "bind-check", WIRE_TO_INNER, 2, WIRE_DATA_MAX, 1, 0 },
	[WIRE_BINDS_END] = { "binds-end", WIRE_TO_INNER, 4, 4, 0, 1 },
	[WIRE_STARTED] = { "started", WIRE_TO_OUTER, 4, 4, 0, 1 },
	[WIRE_ERROR] = { "error", WIRE_TO_OUTER, sizeof(struct cordon_err),
			 sizeof(struct cordon_err), 0, 1 },
	[WIRE_RO_CHECK] = { "ro-check", WIRE_TO_INNER, 2, WIRE_DATA_MAX, 1, 0 },
	[WIRE_EXITED] = { "exited", WIRE_TO_OUTER, 4, 4, 0, 1 },
};

int wire_send(int sock, uint32_t type, const void *data, size_t len, int fd)
{
	unsigned char buf[sizeof(uint32_t) + WIRE_DATA_MAX];
	if (len > WIRE_DATA_MAX)
		return -EMSGSIZE;
	memcpy(buf, &type, sizeof(type));
	if (len)
		memcpy(buf + sizeof(type), data, len);
	return fdpass_send(sock, buf, sizeof(type) + len, fd);
}

int wire_check(const struct wire_peer *p, uint32_t type, size_t len, int has_fd,
	       struct cordon_err *e)
{
	if (type == 0 || type >= WIRE_TYPE_END || !wire_table[type].name)
		return err_set(e, EPROTO, "protocol error: unknown record type %u", type);
	const struct wire_spec *s = &wire_table[type];
	if (s->dir != p->accept)
		return err_set(e, EPROTO, "protocol error: %s record sent the wrong way", s->name);
	if (len < s->min || len > s->max)
		return err_set(e, EPROTO, "protocol error: %s record of %zu bytes", s->name, len);
	if (has_fd != s->fd)
		return err_set(e, EPROTO, "protocol error: %s record %s a descriptor",
			       s->name, has_fd ? "carries" : "lacks");
	if (s->once && (p->seen & (1u << type)))
		return err_set(e, EPROTO, "protocol error: second %s record", s->name);
	return 0;
}

int wire_recv(int sock, struct wire_peer *p, struct wire_rec *r, struct cordon_err *e)
{
	unsigned char buf[sizeof(uint32_t) + WIRE_DATA_MAX];
	int fd = -1;
	ssize_t n = fdpass_recv(sock, buf, sizeof(buf), &fd);
	if (n == 0) {
		/* An empty datagram reads as EOF; one may still carry a descriptor. */
		sys_close(&fd);
		return 0;
	}
	if (n < 0)
		return err_sys(e, (int)-n, "reading from the sandbox control socket");
	if ((size_t)n < sizeof(uint32_t)) {
		sys_close(&fd);
		return err_set(e, EPROTO, "protocol error: short record");
	}
	uint32_t type;
	memcpy(&type, buf, sizeof(type));
	size_t len = (size_t)n - sizeof(type);
	int rc = wire_check(p, type, len, fd >= 0, e);
	if (rc < 0) {
		sys_close(&fd);
		return rc;
	}
	if (type < 32)
		p->seen |= 1u << type;
	r->type = type;
	r->len = (uint32_t)len;
	r->fd = fd;
	memcpy(r->data, buf + sizeof(type), len);
	r->data[len] = '\0';
	return 1;
}
