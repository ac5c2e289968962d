/* inner_link.c: see inner_link.h. */
#include "launch/inner_link.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include "launch/inner_find.h"
#include "sys.h"
#include "wire.h"

static int build_args(const struct config *c, const struct inner_term *t, int bridge_fd,
		      struct inner_link *l, struct cordon_err *e)
{
	struct argv *a = &l->args;
	int r = 0;
	if (l->ctrl[1] >= 0) {
		r |= argv_push(a, "--control");
		r |= argv_push_int(a, l->ctrl[1]);
	}
	if (c->tmp == TMP_PRIVATE)
		r |= argv_push(a, "--tmp-private");
	if (c->allow_unix_sockets)
		r |= argv_push(a, "--allow-unix-sockets");
	if (c->require_landlock)
		r |= argv_push(a, "--require-landlock");
	else if (geteuid() == 0 && !c->allow_no_landlock)
		r |= argv_push(a, "--root-needs-landlock"); /* DESIGN section 4 */
	if (c->full_write)
		r |= argv_push(a, "--full-write");
	r |= argv_push(a, "--net");
	r |= argv_push(a, c->net == NET_FULL ? "full" : c->net == NET_PROXY ? "proxy" : "none");
	if (bridge_fd >= 0) {
		r |= argv_push(a, "--bridge");
		r |= argv_push_int(a, bridge_fd);
	}
	if (t && t->tty)
		r |= argv_push(a, "--tty");
	if (t && t->keep_ignored) {
		char mask[24];
		(void)snprintf(mask, sizeof(mask), "%llx", (unsigned long long)t->keep_ignored);
		r |= argv_push(a, "--keep-ignored");
		r |= argv_push(a, mask);
	}
	if (t && t->nofile) {
		char n[24];
		(void)snprintf(n, sizeof(n), "%llu", (unsigned long long)t->nofile);
		r |= argv_push(a, "--nofile");
		r |= argv_push(a, n);
	}
	return r ? err_set(e, ENOMEM, "out of memory") : 0;
}

int inner_link_open(struct inner_link *l, const struct config *c, const struct inner_term *t,
		    int bridge_fd, struct cordon_err *e)
{
	char path[PATH_MAX];
	int r = inner_find(&l->exec_fd, path, e);
	if (r < 0)
		return r;
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, l->ctrl) < 0 ||
	    fcntl(l->ctrl[0], F_SETFL, O_NONBLOCK) < 0)
		return err_sys(e, errno, "cannot create the sockets cordon talks to bwrap over "
			       "(too many open files? check ulimit -n)");
	/* bwrap execs cordon-inner through this descriptor: the binary cordon
	 * chose is the one that runs, even where the sandbox hides its path. */
	(void)snprintf(l->exec, sizeof(l->exec), "/proc/self/fd/%d", l->exec_fd);
	return build_args(c, t, bridge_fd, l, e);
}

int inner_link_allow_socket(struct inner_link *l, dev_t dev, ino_t ino, struct cordon_err *e)
{
	char id[64];
	(void)snprintf(id, sizeof(id), "%u:%u:%llu", major(dev), minor(dev), (unsigned long long)ino);
	if (argv_push(&l->args, "--allow-socket") < 0 || argv_push(&l->args, id) < 0)
		return err_set(e, ENOMEM, "out of memory");
	return 0;
}

int inner_link_standin(struct inner_link *l, pid_t pid, struct cordon_err *e)
{
	if (argv_push(&l->args, "--standin") < 0 || argv_push_int(&l->args, (int)pid) < 0)
		return err_set(e, ENOMEM, "out of memory");
	return 0;
}

int inner_link_share_pid(struct inner_link *l, struct cordon_err *e)
{
	if (argv_push(&l->args, "--pid-inherit") < 0)
		return err_set(e, ENOMEM, "out of memory");
	return 0;
}

int inner_link_plan(struct inner_link *l, const struct config *c, const struct inner_term *t,
		    struct cordon_err *e)
{
	char path[PATH_MAX];
	int fd = -1;
	int r = inner_find(&fd, path, e);
	sys_close(&fd);
	if (r < 0)
		return r;
	(void)snprintf(l->exec, sizeof(l->exec), "%s", path);
	return build_args(c, t, -1, l, e);
}

void inner_link_fill_opts(const struct inner_link *l, struct bwrap_opts *o)
{
	o->inner_exec = l->exec;
	o->inner_args = l->args.v;
}

size_t inner_link_keep(const struct inner_link *l, int keep[2])
{
	keep[0] = l->ctrl[1];
	keep[1] = l->exec_fd;
	return 2;
}

void inner_link_started(struct inner_link *l)
{
	sys_close(&l->ctrl[1]);
}

/* The control socket is non-blocking for the supervisor loop, and hundreds
 * of records outgrow its buffer: wait for room while cordon-inner drains it.
 * If cordon-inner never comes, bwrap exits and the peer end closes. */
static int send_blocking(int sock, uint32_t type, const void *data, size_t len, int fd)
{
	for (;;) {
		int r = wire_send(sock, type, data, len, fd);
		if (r != -EAGAIN)
			return r;
		struct pollfd p = { sock, POLLOUT, 0 };
		if (poll(&p, 1, -1) < 0 && errno != EINTR)
			return -errno;
		if (p.revents & (POLLHUP | POLLERR))
			return -EPIPE;
	}
}

static int send_check(const struct inner_link *l, uint32_t type, const struct rpath *p,
		      uint32_t *count, struct cordon_err *e)
{
	int r = send_blocking(l->ctrl[0], type, p->path, strlen(p->path), p->fd);
	if (r < 0) {
		(void)err_sys(e, -r, "sending %s to cordon-inner", p->path);
		return r;
	}
	(*count)++;
	return 0;
}

int inner_link_send_checks(const struct inner_link *l, const struct resolved *res,
			   const struct rpath *by_path, size_t nby_path, struct cordon_err *e)
{
	uint32_t count = 0;
	int r = 0;
	for (size_t i = 0; r == 0 && i < res->nroots; i++)
		r = send_check(l, WIRE_BIND_CHECK, &res->roots[i], &count, e);
	for (size_t i = 0; r == 0 && i < nby_path; i++)
		r = send_check(l, by_path[i].writable ? WIRE_BIND_CHECK : WIRE_RO_CHECK, &by_path[i],
			       &count, e);
	for (size_t i = 0; r == 0 && i < res->ncarves; i++)
		/* A pin is bound by path (mount_plan.h): checked wherever it was opened. */
		if (res->carves[i].pin)
			r = send_check(l, WIRE_RO_CHECK, &res->carves[i], &count, e);
	if (r == 0 && (r = send_blocking(l->ctrl[0], WIRE_BINDS_END, &count, sizeof(count), -1)) < 0)
		(void)err_sys(e, -r, "sending to cordon-inner");
	return r;
}

int inner_link_foreground(const struct inner_link *l, int foreground)
{
	int32_t fg = foreground ? 1 : 0;
	return wire_send(l->ctrl[0], WIRE_FOREGROUND, &fg, sizeof(fg), -1);
}

void inner_link_close(struct inner_link *l)
{
	sys_close(&l->exec_fd);
	sys_close(&l->ctrl[0]);
	sys_close(&l->ctrl[1]);
	argv_free(&l->args);
}
