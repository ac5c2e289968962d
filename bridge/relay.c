/* relay.c: see relay.h. */
#include "relay.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

#include "sys.h"

/* Larger than the default 64 KiB: fewer wake-ups per megabyte.  The kernel
 * caps it at /proc/sys/fs/pipe-max-size for an unprivileged user. */
#define RELAY_PIPE_SIZE (1024 * 1024)

int relay_open(struct relay_dir *d, int from, int to, char *pending, size_t len)
{
	*d = (struct relay_dir){ .from = from, .to = to, .pipe = { -1, -1 },
				 .pending = pending, .pending_len = len };
	if (pipe2(d->pipe, O_CLOEXEC | O_NONBLOCK) < 0)
		return -errno;
	int sz = fcntl(d->pipe[1], F_SETPIPE_SZ, RELAY_PIPE_SIZE);
	if (sz < 0)
		sz = fcntl(d->pipe[1], F_GETPIPE_SZ);
	d->pipe_size = sz > 0 ? (size_t)sz : 65536;
	return 0;
}

static int rl_flush_pending(struct relay_dir *d, int *progress)
{
	while (d->pending_off < d->pending_len) {
		ssize_t n = send(d->to, d->pending + d->pending_off, d->pending_len - d->pending_off,
				 MSG_NOSIGNAL);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			return 0;
		if (n < 0)
			return -errno;
		d->pending_off += (size_t)n;
		d->bytes += (unsigned long long)n;
		*progress = 1;
	}
	free(d->pending);
	d->pending = NULL;
	d->pending_len = d->pending_off = 0;
	return 0;
}

int relay_pump(struct relay_dir *d)
{
	for (;;) {
		int progress = 0, r;
		if ((r = rl_flush_pending(d, &progress)) < 0)
			return r;
		if (d->pending)
			return 0; /* `to` is full: wait for EPOLLOUT */
		if (d->in_pipe) {
			ssize_t n = splice(d->pipe[0], NULL, d->to, NULL, d->in_pipe,
					   SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
			if (n > 0) {
				d->in_pipe -= (size_t)n;
				d->bytes += (unsigned long long)n;
				progress = 1;
			} else if (n < 0 && errno != EAGAIN && errno != EINTR) {
				return -errno;
			}
		}
		if (!d->eof && d->in_pipe < d->pipe_size) {
			ssize_t n = splice(d->from, NULL, d->pipe[1], NULL, d->pipe_size - d->in_pipe,
					   SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
			if (n > 0) {
				d->in_pipe += (size_t)n;
				progress = 1;
			} else if (n == 0) {
				d->eof = 1;
				progress = 1;
			} else if (errno != EAGAIN && errno != EINTR) {
				return -errno;
			}
		}
		if (d->eof && !d->in_pipe && !d->shut) {
			/* The peer may be gone already: ENOTCONN is no error. */
			(void)shutdown(d->to, SHUT_WR);
			d->shut = 1;
		}
		if (!progress)
			return 0;
	}
}

int relay_done(const struct relay_dir *d)
{
	return d->shut;
}

void relay_close(struct relay_dir *d)
{
	sys_close(&d->pipe[0]);
	sys_close(&d->pipe[1]);
	free(d->pending);
	d->pending = NULL;
}
