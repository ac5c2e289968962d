/* wire.c: see wire.h. */
#include "wire.h"

#include <errno.h>
#include <string.h>
#include "fdpass.h"

static const struct wire_spec wire_table[WIRE_TYPE_END] = {
	[WIRE_BIND_CHECK] = { "bind-check", WIRE_TO_INNER, 2, WIRE_DATA_MAX, WIRE_FD_MUST, 0 },
	[WIRE_BINDS_END] = { "binds-end", WIRE_TO_INNER, 4, 4, WIRE_FD_NONE, 1 },
	[WIRE_STARTED] = { "started", WIRE_TO_OUTER, 4, 4, WIRE_FD_NONE, 1 },
	[WIRE_ERROR] = { "error", WIRE_TO_OUTER, sizeof(struct cordon_err),
			 sizeof(struct cordon_err), WIRE_FD_NONE, 1 },
	[WIRE_RO_CHECK] = { "ro-check", WIRE_TO_INNER, 2, WIRE_DATA_MAX, WIRE_FD_MUST, 0 },
	[WIRE_EXITED] = { "exited", WIRE_TO_OUTER, 4, 4, WIRE_FD_NONE, 1 },
	[WIRE_STOPPED] = { "stopped", WIRE_TO_OUTER, 4, 4, WIRE_FD_NONE, 0 },
	[WIRE_FOREGROUND] = { "foreground", WIRE_TO_INNER, 4, 4, WIRE_FD_NONE, 0 },
};

static const struct wire_proto wire_inner = { wire_table, WIRE_TYPE_END, "protocol error",
					     "the sandbox control socket" };

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
	return wire_check_proto(&wire_inner, p, type, len, has_fd, e);
}

int wire_check_proto(const struct wire_proto *pr, const struct wire_peer *p, uint32_t type,
		     size_t len, int has_fd, struct cordon_err *e)
{
	if (type == 0 || type >= pr->ntypes || type >= 32 || !pr->table[type].name)
		return err_set(e, EPROTO, "%s: unknown record type %u", pr->err, type);
	const struct wire_spec *s = &pr->table[type];
	if (s->dir != p->accept)
		return err_set(e, EPROTO, "%s: %s record sent the wrong way", pr->err, s->name);
	if (len < s->min || len > s->max)
		return err_set(e, EPROTO, "%s: %s record of %zu bytes", pr->err, s->name, len);
	if (s->fd != WIRE_FD_MAY && has_fd != (s->fd == WIRE_FD_MUST))
		return err_set(e, EPROTO, "%s: %s record %s a descriptor",
			       pr->err, s->name, has_fd ? "carries" : "lacks");
	if (s->once && (p->seen & (1u << type)))
		return err_set(e, EPROTO, "%s: second %s record", pr->err, s->name);
	return 0;
}

int wire_recv(int sock, struct wire_peer *p, struct wire_rec *r, struct cordon_err *e)
{
	return wire_recv_proto(&wire_inner, sock, p, r, e);
}

int wire_recv_proto(const struct wire_proto *pr, int sock, struct wire_peer *p,
		    struct wire_rec *r, struct cordon_err *e)
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
		return err_sys(e, (int)-n, "reading from %s", pr->socket);
	if ((size_t)n < sizeof(uint32_t)) {
		sys_close(&fd);
		return err_set(e, EPROTO, "%s: short record", pr->err);
	}
	uint32_t type;
	memcpy(&type, buf, sizeof(type));
	size_t len = (size_t)n - sizeof(type);
	int rc = wire_check_proto(pr, p, type, len, fd >= 0, e);
	if (rc < 0) {
		sys_close(&fd);
		return rc;
	}
	p->seen |= 1u << type;
	r->type = type;
	r->len = (uint32_t)len;
	r->fd = fd;
	memcpy(r->data, buf + sizeof(type), len);
	r->data[len] = '\0';
	return 1;
}
