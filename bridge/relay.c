/* relay.c: see relay.h. */
#include "relay.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "proto_http.h"
#include "sys.h"

/* Larger than the default 64 KiB: fewer wake-ups per megabyte.  The kernel
 * caps it at /proc/sys/fs/pipe-max-size for an unprivileged user. */
#define RELAY_PIPE_SIZE (1024 * 1024)
/* A chunked body passes through memory, this much per read. */
#define RELAY_CHUNK_READ 65536

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

static void rl_fail_to(struct relay_dir *d, int err)
{
	d->dead = 1;
	if (!d->err)
		d->err = err;
}

static void rl_fail_from(struct relay_dir *d, int err)
{
	d->eof = 1;
	if (!d->err)
		d->err = err;
}

static void rl_flush_pending(struct relay_dir *d, int *progress)
{
	while (d->pending_off < d->pending_len) {
		ssize_t n = send(d->to, d->pending + d->pending_off, d->pending_len - d->pending_off,
				 MSG_NOSIGNAL);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			return;
		if (n < 0) {
			rl_fail_to(d, errno);
			return;
		}
		d->pending_off += (size_t)n;
		d->bytes += (unsigned long long)n;
		*progress = 1;
	}
	free(d->pending);
	d->pending = NULL;
	d->pending_len = d->pending_off = 0;
}

/* Queue buf[0..len) (copied) to be sent before anything else. */
static int rl_queue(struct relay_dir *d, const char *buf, size_t len)
{
	if (!len)
		return 0;
	char *p = realloc(d->pending, d->pending_len + len);
	if (!p)
		return -ENOMEM;
	memcpy(p + d->pending_len, buf, len);
	d->pending = p;
	d->pending_len += len;
	return 0;
}

/* Bytes after a request body: the start of the next request. */
static int rl_keep_rest(struct relay_dir *d, const char *p, size_t len)
{
	if (!len)
		return 0;
	char *n = realloc(d->rest, d->rest_len + len);
	if (!n)
		return -ENOMEM;
	memcpy(n + d->rest_len, p, len);
	d->rest = n;
	d->rest_len += len;
	return 0;
}

int relay_frame(struct relay_dir *d, enum relay_frame f, unsigned long long length, size_t keep)
{
	const char *tail = d->pending ? d->pending + keep : NULL;
	size_t tlen = d->pending_len - keep;
	d->frame = f;
	d->body_left = length;
	chunked_init(&d->ck);
	if (f == RELAY_LENGTH) {
		if (tlen >= length) {
			/* What follows is not this body: the next request's. */
			int r = rl_keep_rest(d, tail + length, tlen - (size_t)length);
			d->pending_len = keep + (size_t)length;
			d->body_left = 0;
			d->stopped = 1;
			return r;
		} else {
			d->body_left -= tlen;
		}
		return 0;
	}
	if (f == RELAY_CHUNKED) {
		char *out = malloc(tlen + CHUNKED_SLACK);
		size_t used, olen;
		if (!out)
			return -ENOMEM;
		enum chunked_result r = chunked_feed(&d->ck, tail, tlen, &used, out, &olen);
		int q = r == CHUNKED_DONE ? rl_keep_rest(d, tail + used, tlen - used) : 0;
		d->pending_len = keep;
		d->stopped = r == CHUNKED_DONE;
		if (q == 0)
			q = r == CHUNKED_BAD ? -EBADMSG : rl_queue(d, out, olen);
		free(out);
		return q;
	}
	if (f != RELAY_RESPONSE)
		return 0;
	/* What came first is the start of the response: it goes through the
	 * head rewrite too (one past a head's bound is refused there). */
	if (!(d->head = malloc(HTTP_HEAD_MAX)))
		return -ENOMEM;
	d->head_len = tlen < HTTP_HEAD_MAX ? tlen : HTTP_HEAD_MAX;
	if (d->head_len && tail)
		memcpy(d->head, tail, d->head_len);
	d->pending_len = keep;
	return 0;
}

/* RELAY_CHUNKED: read, check and rebuild (chunked.c), queue. */
static int rl_read_chunked(struct relay_dir *d, int *progress)
{
	static char in[RELAY_CHUNK_READ];
	ssize_t n = recv(d->from, in, sizeof(in), 0);
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return 0;
	*progress = 1;
	if (n <= 0) {
		/* The client ended mid-body: the server sees it end too. */
		if (n < 0)
			rl_fail_from(d, errno);
		d->eof = 1;
		return 0;
	}
	char *out = malloc((size_t)n + CHUNKED_SLACK);
	size_t used, olen;
	if (!out)
		return -ENOMEM;
	enum chunked_result r = chunked_feed(&d->ck, in, (size_t)n, &used, out, &olen);
	if (r == CHUNKED_BAD) {
		free(out);
		return -EBADMSG;
	}
	int q = 0;
	if (r == CHUNKED_DONE) {
		d->stopped = 1; /* anything after the body is not passed on */
		q = rl_keep_rest(d, in + used, (size_t)n - used);
	}
	if (q == 0)
		q = rl_queue(d, out, olen);
	free(out);
	return q;
}

/* A final response head was queued: its body, framed as the head says,
 * starting with what was read after the head. */
static int rl_body_after_head(struct relay_dir *d, enum http_body body, unsigned long long length)
{
	char *after = d->head;
	size_t alen = d->head_len;
	size_t keep = d->pending_len;
	d->head = NULL;
	d->head_len = 0;
	int r = rl_queue(d, after, alen);
	free(after);
	if (r < 0)
		return r;
	switch (body) {
	case HTTP_BODY_NONE:
		d->pending_len = keep; /* nothing after the head is this response's */
		d->frame = RELAY_LENGTH;
		d->stopped = 1;
		return 0;
	case HTTP_BODY_LENGTH:
		r = relay_frame(d, RELAY_LENGTH, length, keep);
		break;
	case HTTP_BODY_CHUNKED:
		r = relay_frame(d, RELAY_CHUNKED, 0, keep);
		break;
	default:
		d->frame = RELAY_STREAM;
		return 0;
	}
	/* Bytes a server sends past its response are not the client's. */
	free(d->rest);
	d->rest = NULL;
	d->rest_len = 0;
	return r == -EBADMSG ? -EPROTO : r;
}

/* RELAY_RESPONSE: read until a head is complete, rewrite it, queue it and
 * what followed it; after a final (not 1xx) head, a plain stream. */
static int rl_read_head(struct relay_dir *d, int *progress)
{
	for (;;) {
		const char *end = d->head_len >= 4 ? memmem(d->head, d->head_len, "\r\n\r\n", 4) : NULL;
		if (!end && d->head_len >= HTTP_HEAD_MAX)
			return -EPROTO;
		if (end) {
			size_t hl = (size_t)(end - d->head) + 4;
			enum http_body body = HTTP_BODY_CLOSE;
			unsigned long long length = 0;
			int interim = d->head_len >= 12 && d->head[9] == '1' && memcmp(d->head + 9, "101", 3) != 0;
			int sw = !interim && hl >= 12 && memcmp(d->head + 9, "101", 3) == 0;
			char chosen[HTTP_UPGRADE_MAX + 1];
			if (!interim && http_response_frame(d->head, hl, d->head_req, &body, &length) < 0)
				return -EPROTO;
			/* Checked before any of it is queued: the client gets a 502,
			 * never a switch it did not ask for. */
			if (sw) {
				int r = http_response_switch(d->head, hl, d->upgrade, strlen(d->upgrade), chosen);
				if (r < 0)
					return r;
			}
			d->reusable = d->keep && body != HTTP_BODY_CLOSE;
			char *out = malloc(hl + 64);
			int final = 0;
			ssize_t o = out ? http_response_close(d->head, hl, d->reusable, out, hl + 64, &final)
					: -ENOMEM;
			int q = o < 0 ? (int)o : rl_queue(d, out, (size_t)o);
			free(out);
			if (q < 0)
				return q == -ENOMEM ? q : -EPROTO;
			memmove(d->head, d->head + hl, d->head_len - hl);
			d->head_len -= hl;
			*progress = 1;
			if (!final)
				continue; /* 100 Continue: the real head follows */
			if (sw) {
				memcpy(d->upgrade, chosen, sizeof(chosen));
				d->switched = 1;
			}
			return rl_body_after_head(d, body, length);
		}
		ssize_t n = recv(d->from, d->head + d->head_len, HTTP_HEAD_MAX - d->head_len, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			return 0;
		*progress = 1;
		if (n <= 0) {
			/* No (complete) head: the server failed. */
			if (n < 0)
				rl_fail_from(d, errno);
			return -EPROTO;
		}
		d->head_len += (size_t)n;
	}
}

static void rl_splice_in(struct relay_dir *d, int *progress)
{
	size_t room = d->pipe_size - d->in_pipe;
	if (d->frame == RELAY_LENGTH && d->body_left < room)
		room = (size_t)d->body_left;
	ssize_t n = splice(d->from, NULL, d->pipe[1], NULL, room, SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
	if (n > 0) {
		d->in_pipe += (size_t)n;
		*progress = 1;
		if (d->frame == RELAY_LENGTH && (d->body_left -= (size_t)n) == 0)
			d->stopped = 1;
	} else if (n == 0) {
		d->eof = 1;
		*progress = 1;
	} else if (errno != EAGAIN && errno != EINTR) {
		/* A reset: what was read before it still goes out. */
		rl_fail_from(d, errno);
		*progress = 1;
	}
}

int relay_pump(struct relay_dir *d)
{
	for (;;) {
		int progress = 0;
		if (d->dead)
			return 0;
		rl_flush_pending(d, &progress);
		if (d->dead || d->pending)
			return 0; /* `to` is full: wait for EPOLLOUT */
		if (d->in_pipe) {
			ssize_t n = splice(d->pipe[0], NULL, d->to, NULL, d->in_pipe,
					   SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
			if (n > 0) {
				d->in_pipe -= (size_t)n;
				d->bytes += (unsigned long long)n;
				progress = 1;
			} else if (n < 0 && errno != EAGAIN && errno != EINTR) {
				rl_fail_to(d, errno);
				return 0;
			}
		}
		if (!d->eof && !d->stopped && d->in_pipe < d->pipe_size) {
			int r = 0;
			if (d->frame == RELAY_CHUNKED)
				r = d->in_pipe ? 0 : rl_read_chunked(d, &progress);
			else if (d->frame == RELAY_RESPONSE)
				r = d->in_pipe ? 0 : rl_read_head(d, &progress);
			else
				rl_splice_in(d, &progress);
			if (r < 0)
				return r;
		}
		if (d->eof && !d->in_pipe && !d->pending && !d->shut) {
			/* The peer may be gone already: ENOTCONN is no error. */
			(void)shutdown(d->to, SHUT_WR);
			d->shut = 1;
		}
		if (!progress)
			return 0;
	}
}

int relay_switch(struct relay_dir *d)
{
	int r = rl_queue(d, d->rest, d->rest_len);
	if (r < 0)
		return r;
	free(d->rest);
	d->rest = NULL;
	d->rest_len = 0;
	d->frame = RELAY_STREAM;
	d->stopped = 0;
	return 0;
}

int relay_done(const struct relay_dir *d)
{
	return d->shut || d->dead || (d->stopped && !d->in_pipe && !d->pending);
}

void relay_close(struct relay_dir *d)
{
	sys_close(&d->pipe[0]);
	sys_close(&d->pipe[1]);
	free(d->pending);
	d->pending = NULL;
	free(d->head);
	d->head = NULL;
	free(d->rest);
	d->rest = NULL;
}
