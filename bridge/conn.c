/* conn.c: the stages of one connection (conn.h), in the order DESIGN
 * section 8 fixes: read and parse the head, canonicalize, match, resolve,
 * check every address, connect only to a checked address, relay. */
#include "conn.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "proto_socks5.h"
#include "sys.h"

#define CONN_BODY_MAX 1024
#define CONN_READ_CHUNK 16384
#define CONN_UPSTREAM_REPLY_MAX 16384

/* The events on the descriptor of one side: whether they concern the
 * direction that reads from it, or the one that writes to it. */
#define CONN_EV_READ (EPOLLIN | EPOLLRDHUP | EPOLLHUP | EPOLLERR)
#define CONN_EV_WRITE (EPOLLOUT | EPOLLHUP | EPOLLERR)

static void conn_addr_text(struct conn *c, int family, const unsigned char *a)
{
	if (!inet_ntop(family, a, c->addr_text, sizeof(c->addr_text)))
		c->addr_text[0] = '\0';
}

void conn_refuse(struct bridge *b, struct conn *c, int status, unsigned char socks_code,
		 const char *reason, const char *body)
{
	char out[CONN_BODY_MAX + 256];
	ssize_t n;
	if (c->proto == CP_SOCKS5) {
		socks5_reply(socks_code, (unsigned char *)out);
		n = SOCKS5_REPLY_LEN;
	} else {
		n = http_response(status, body, out, sizeof(out));
	}
	sys_close(&c->sfd);
	c->decision = status == 403 ? "deny" : "error";
	c->reason = reason;
	/* The reply is small: one send fits an empty socket buffer.  Then
	 * the read side is drained until EOF so that closing does not reset
	 * the connection under a reply the client has not read yet. */
	if (n <= 0 || send(c->cfd, out, (size_t)n, MSG_NOSIGNAL) != n) {
		conn_finish(b, c, c->decision, reason);
		return;
	}
	(void)shutdown(c->cfd, SHUT_WR);
	c->st = CS_REFUSING;
	c->deadline_ms = conn_now_ms() + 2000;
	conn_on_client(b, c, CONN_EV_READ);
}

static void conn_refuse_decision(struct bridge *b, struct conn *c, enum decision_reason r)
{
	char body[CONN_BODY_MAX];
	decision_message(r, &c->host, c->port, c->addr_text[0] ? c->addr_text : NULL,
			 body, sizeof(body));
	conn_refuse(b, c, 403, SOCKS5_NOT_ALLOWED, decision_reason_word(r), body);
}

static void conn_keepalive(int fd)
{
	int on = 1;
	/* Best effort: a tunnel without keepalive still works.  No Nagle: the
	 * relay passes on segments as they come, and must not hold back a
	 * small one waiting for an acknowledgement. */
	(void)setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &on, sizeof(on));
	(void)setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &on, sizeof(on));
}

static void conn_drain(struct bridge *b, struct conn *c);

/* A forwarded request was answered: the client's connection ends here
 * (the response said Connection: close).  What the client may still send
 * (a pipelined request) is read and dropped until its EOF: closing with
 * unread bytes would reset the connection under the response. */
static void conn_forward_done(struct bridge *b, struct conn *c, const char *reason)
{
	sys_close(&c->sfd);
	(void)shutdown(c->cfd, SHUT_WR);
	c->decision = "allow";
	c->reason = reason;
	c->st = CS_REFUSING;
	c->deadline_ms = conn_now_ms() + 2000;
	conn_drain(b, c);
}

/* Pump the directions an event concerns (both at the start): a readable
 * client or writable server moves the upload, the reverse the download.
 * The other direction's pump would only find EAGAIN, one syscall per
 * wake-up for nothing on a busy tunnel. */
static void conn_next_request(struct bridge *b, struct conn *c);

static void conn_pump_dirs(struct bridge *b, struct conn *c, int up, int down)
{
	int r1 = up ? relay_pump(&c->up) : 0, r2 = down ? relay_pump(&c->down) : 0;
	/* The 101 is on its way to the client: what the client sent after
	 * its request, and everything it sends from now on, is the new
	 * protocol's, for the server the request was decided for.  The
	 * tunnel reaches nothing a CONNECT to that host and port would not. */
	if (r1 == 0 && r2 == 0 && c->down.switched && c->up.frame != RELAY_STREAM &&
	    (r1 = relay_switch(&c->up)) == 0)
		r1 = relay_pump(&c->up);
	/* Nothing of the response reached the client yet: it can be told. */
	int fresh = c->down.bytes == 0;
	if (r1 == -EBADMSG && fresh)
		conn_refuse(b, c, 400, 0, "bad-chunked-body",
			    "cordon: malformed chunked request body\n");
	else if (r2 == -EPROTO && fresh)
		conn_refuse(b, c, 502, 0, "bad-response",
			    "cordon: the server's response is not valid HTTP/1.x (or it switches "
			    "to a protocol the request did not offer)\n");
	else if (r2 == -EPERM && fresh)
		conn_refuse(b, c, 502, 0, "unrequested-upgrade",
			    "cordon: the server switched protocols, and the request asked for no "
			    "upgrade\n");
	else if (r1 < 0 || r2 < 0)
		conn_finish(b, c, "error", r1 == -EBADMSG ? "bad-chunked-body"
					    : r2 == -EPROTO ? "bad-response"
					    : r2 == -EPERM ? "unrequested-upgrade" : "out-of-memory");
	else if (!relay_done(&c->up) || !relay_done(&c->down))
		return;
	else if (c->proto == CP_HTTP_FORWARD && !c->down.switched && c->down.reusable &&
		 c->up.stopped && c->down.stopped && !c->up.err && !c->down.err)
		conn_next_request(b, c);
	else if (c->proto == CP_HTTP_FORWARD && !c->down.switched)
		conn_forward_done(b, c, c->up.err || c->down.err ? "reset" : "closed");
	else
		conn_finish(b, c, "allow", c->up.err || c->down.err ? "reset" : "closed");
}

static void conn_pump(struct bridge *b, struct conn *c)
{
	conn_pump_dirs(b, c, 1, 1);
}

/* One absolute-form request was answered, its response delimited, and the
 * client keeps the connection: log it, drop the server connection, and
 * read the client's next request, decided afresh on its own URI (it may
 * name another host).  Bytes the client sent after the last body are its
 * start. */
static void conn_next_request(struct bridge *b, struct conn *c)
{
	conn_log(b, c);
	char *rest = c->up.rest;
	size_t rest_len = c->up.rest_len;
	c->up.rest = NULL;
	sys_close(&c->sfd);
	relay_close(&c->up);
	relay_close(&c->down);
	free(c->buf);
	free(c->ubuf);
	struct conn keep = *c;
	*c = (struct conn){
		.prev = keep.prev, .next = keep.next, .id = keep.id, .cfd = keep.cfd, .sfd = -1,
		.ctag = keep.ctag, .st = CS_HEAD, .buf = rest, .len = rest_len, .cap = rest_len,
		.up = { .pipe = { -1, -1 } }, .down = { .pipe = { -1, -1 } },
		.client_port = keep.client_port, .nreq = keep.nreq + 1,
	};
	(void)clock_gettime(CLOCK_REALTIME, &c->start_rt);
	c->start_ms = conn_now_ms();
	c->deadline_ms = c->start_ms + b->head_timeout_ms;
	conn_on_client(b, c, CONN_EV_READ);
}

/* Connected (and, with an upstream, tunnelled): what each side gets first,
 * then splice. */
static void conn_start_relay(struct bridge *b, struct conn *c)
{
	static const char socks_ok[SOCKS5_REPLY_LEN] = { 5, 0, 0, 1 };
	size_t rest = c->len - c->consumed, uplen = 0, downlen = 0, headlen;
	int head_req = c->proto == CP_HTTP_FORWARD && c->req.method_len == 4 &&
		       memcmp(c->buf + c->req.method_off, "HEAD", 4) == 0;
	char *up = malloc(HTTP_REBUILT_MAX + rest), *down = malloc(64 + c->ulen);
	if (!up || !down) {
		free(up);
		free(down);
		conn_finish(b, c, "error", "out-of-memory");
		return;
	}
	if (c->proto == CP_HTTP_FORWARD) {
		ssize_t n = http_rebuild(c->buf, &c->req, up, HTTP_REBUILT_MAX);
		if (n < 0) {
			free(up);
			free(down);
			conn_finish(b, c, "error", "rebuild");
			return;
		}
		uplen = (size_t)n;
	} else if (c->proto == CP_HTTP_CONNECT) {
		downlen = (size_t)snprintf(down, 64, "HTTP/1.%u 200 Connection established\r\n\r\n",
					   c->req.minor);
	} else {
		memcpy(down, socks_ok, sizeof(socks_ok));
		downlen = sizeof(socks_ok);
	}
	headlen = uplen;
	char offer[HTTP_UPGRADE_MAX + 1];
	memcpy(offer, c->buf + c->req.upgrade_off, c->req.upgrade_len);
	offer[c->req.upgrade_len] = '\0';
	memcpy(up + uplen, c->buf + c->consumed, rest);
	uplen += rest;
	if (c->ulen) {
		memcpy(down + downlen, c->ubuf, c->ulen);
		downlen += c->ulen;
	}
	free(c->buf);
	c->buf = NULL;
	free(c->ubuf);
	c->ubuf = NULL;
	conn_keepalive(c->cfd);
	conn_keepalive(c->sfd);
	if (relay_open(&c->up, c->cfd, c->sfd, up, uplen) < 0) {
		free(up);
		free(down);
		conn_finish(b, c, "error", "too-many-files");
		return;
	}
	if (relay_open(&c->down, c->sfd, c->cfd, down, downlen) < 0) {
		free(down);
		conn_finish(b, c, "error", "too-many-files");
		return;
	}
	int r = 0;
	c->down.keep = c->req.keep;
	c->down.head_req = head_req;
	memcpy(c->down.upgrade, offer, sizeof(offer));
	if (c->proto == CP_HTTP_FORWARD &&
	    ((r = relay_frame(&c->up, c->req.body == HTTP_BODY_CHUNKED ? RELAY_CHUNKED : RELAY_LENGTH,
			      c->req.body == HTTP_BODY_LENGTH ? c->req.content_length : 0, headlen)) < 0 ||
	     (r = relay_frame(&c->down, RELAY_RESPONSE, 0, 0)) < 0)) {
		if (r == -EBADMSG)
			conn_refuse(b, c, 400, 0, "bad-chunked-body",
				    "cordon: malformed chunked request body\n");
		else
			conn_finish(b, c, "error", "out-of-memory");
		return;
	}
	c->st = CS_RELAY;
	c->decision = "allow";
	conn_pump(b, c);
}

static void conn_connect_next(struct bridge *b, struct conn *c)
{
	while (c->next_addr < c->naddr || (b->upstream && c->next_addr == 0)) {
		struct sockaddr_storage ss;
		socklen_t sl;
		memset(&ss, 0, sizeof(ss));
		if (b->upstream) {
			memcpy(&ss, &b->upstream->sa, b->upstream->salen);
			sl = b->upstream->salen;
		} else if (c->family[c->next_addr] == AF_INET) {
			struct sockaddr_in *s = (struct sockaddr_in *)&ss;
			s->sin_family = AF_INET;
			s->sin_port = htons(c->port);
			memcpy(&s->sin_addr, c->addr[c->next_addr], 4);
			sl = sizeof(*s);
		} else {
			struct sockaddr_in6 *s = (struct sockaddr_in6 *)&ss;
			s->sin6_family = AF_INET6;
			s->sin6_port = htons(c->port);
			memcpy(&s->sin6_addr, c->addr[c->next_addr], 16);
			sl = sizeof(*s);
		}
		if (!b->upstream)
			conn_addr_text(c, c->family[c->next_addr], c->addr[c->next_addr]);
		c->next_addr++;
		c->sfd = socket(ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
		if (c->sfd < 0)
			continue;
		if ((connect(c->sfd, (struct sockaddr *)&ss, sl) == 0 || errno == EINPROGRESS) &&
		    conn_watch_server(b, c) == 0) {
			c->st = CS_CONNECTING;
			c->deadline_ms = conn_now_ms() + b->connect_timeout_ms;
			return;
		}
		sys_close(&c->sfd);
	}
	conn_refuse(b, c, 502, SOCKS5_REFUSED, "connect-failed",
		    b->upstream ? "cordon: the upstream proxy cannot be reached\n"
				: "cordon: the server cannot be reached\n");
}

/* The name passed the allowlist: resolve it, or with an IP literal or an
 * upstream proxy, connect at once. */
static void conn_decide(struct bridge *b, struct conn *c)
{
	c->have_host = 1;
	c->dec = decision_name(&b->rules, &c->host, c->port);
	if (c->dec.reason != DECISION_ALLOWED) {
		if (c->host.kind != HOST_NAME)
			conn_addr_text(c, c->host.kind == HOST_IPV4 ? AF_INET : AF_INET6, c->host.addr);
		conn_refuse_decision(b, c, c->dec.reason);
		return;
	}
	if (b->upstream) {
		conn_connect_next(b, c);
		return;
	}
	if (c->host.kind != HOST_NAME) {
		c->naddr = 1;
		c->family[0] = c->host.kind == HOST_IPV4 ? AF_INET : AF_INET6;
		memcpy(c->addr[0], c->host.addr, 16);
		conn_connect_next(b, c);
		return;
	}
	if (resolve_submit(b->resolver, c->id, c->host.text) < 0) {
		conn_finish(b, c, "error", "out-of-memory");
		return;
	}
	c->st = CS_RESOLVING;
	c->deadline_ms = conn_now_ms() + b->connect_timeout_ms;
}

void conn_on_resolved(struct bridge *b, struct conn *c, const struct resolve_result *res)
{
	if (c->st != CS_RESOLVING)
		return;
	if (res->err || res->n == 0) {
		char body[CONN_BODY_MAX];
		(void)snprintf(body, sizeof(body), "cordon: could not resolve %s (no address from "
			       "the resolver of the machine cordon runs on)\n", c->host.text);
		conn_refuse(b, c, 502, SOCKS5_HOST_UNREACHABLE, "could-not-resolve", body);
		return;
	}
	/* Every address is checked, not only the first: a name that answers
	 * a public and a loopback address is refused. */
	for (size_t i = 0; i < res->n; i++) {
		enum decision_reason r = decision_address(&b->rules, &c->dec, 0, res->family[i], res->addr[i]);
		if (r != DECISION_ALLOWED) {
			conn_addr_text(c, res->family[i], res->addr[i]);
			conn_refuse_decision(b, c, r);
			return;
		}
		c->family[i] = res->family[i];
		memcpy(c->addr[i], res->addr[i], 16);
	}
	c->naddr = res->n;
	conn_connect_next(b, c);
}

static int conn_read(struct bridge *b, struct conn *c, size_t max)
{
	for (;;) {
		if (c->len == c->cap) {
			if (c->cap >= max)
				return 1; /* full: the parser decides */
			size_t ncap = c->cap ? c->cap * 2 : CONN_READ_CHUNK;
			if (ncap > max)
				ncap = max;
			char *nb = realloc(c->buf, ncap);
			if (!nb) {
				conn_finish(b, c, "error", "out-of-memory");
				return -1;
			}
			c->buf = nb;
			c->cap = ncap;
		}
		ssize_t n = recv(c->cfd, c->buf + c->len, c->cap - c->len, 0);
		if (n > 0) {
			c->len += (size_t)n;
			continue;
		}
		if (n == 0) {
			conn_finish(b, c, "error", "client-closed");
			return -1;
		}
		if (errno == EINTR)
			continue;
		if (errno == EAGAIN)
			return 0;
		conn_finish(b, c, "error", "client-reset");
		return -1;
	}
}

static void conn_http(struct bridge *b, struct conn *c)
{
	int n = http_scan_head(&c->scan, c->buf, c->len);
	if (n == 0)
		return;
	if (n < 0) {
		conn_refuse(b, c, -n, 0, n == -400 ? "bad-request" : "head-too-large",
			    n == -400 ? "cordon: malformed or ambiguous proxy request\n"
				      : "cordon: the request head is too large\n");
		return;
	}
	int r = http_parse_head(c->buf, (size_t)n, &c->req);
	if (r < 0) {
		struct http_refusal why = http_refusal(r);
		conn_refuse(b, c, why.status, 0, why.reason, why.body);
		return;
	}
	c->proto = c->req.kind == HTTP_CONNECT ? CP_HTTP_CONNECT : CP_HTTP_FORWARD;
	c->host = c->req.host;
	c->port = c->req.port;
	c->consumed = (size_t)n;
	conn_decide(b, c);
}

static void conn_socks(struct bridge *b, struct conn *c)
{
	if (c->st == CS_HEAD) {
		size_t used = 0;
		enum socks5_greeting g = socks5_greeting((unsigned char *)c->buf, c->len, &used);
		if (g == SOCKS5_G_MORE)
			return;
		if (g == SOCKS5_G_BAD) {
			conn_finish(b, c, "error", "bad-request");
			return;
		}
		static const unsigned char noauth[2] = { 5, 0 }, nomethod[2] = { 5, 0xff };
		const unsigned char *reply = g == SOCKS5_G_NOAUTH ? noauth : nomethod;
		if (send(c->cfd, reply, 2, MSG_NOSIGNAL) != 2 || g != SOCKS5_G_NOAUTH) {
			conn_finish(b, c, "error", "socks5-no-acceptable-method");
			return;
		}
		memmove(c->buf, c->buf + used, c->len - used);
		c->len -= used;
		c->st = CS_SOCKS_REQ;
	}
	struct socks5_req req;
	int r = socks5_request((unsigned char *)c->buf, c->len, &req);
	if (r == 0)
		return;
	if (r < 0) {
		conn_refuse(b, c, 400, (unsigned char)-r, "bad-request", "");
		return;
	}
	c->host = req.host;
	c->port = req.port;
	c->consumed = req.len;
	conn_decide(b, c);
}

static void conn_drain(struct bridge *b, struct conn *c)
{
	char scratch[4096];
	for (;;) {
		ssize_t n = recv(c->cfd, scratch, sizeof(scratch), 0);
		if (n > 0)
			continue;
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			return;
		conn_finish(b, c, c->decision, c->reason);
		return;
	}
}

void conn_on_client(struct bridge *b, struct conn *c, uint32_t ev)
{
	switch (c->st) {
	case CS_HEAD:
	case CS_SOCKS_REQ:
		if (conn_read(b, c, c->len && c->buf[0] == 5 ? SOCKS5_GREETING_MAX + SOCKS5_REQUEST_MAX
							      : HTTP_HEAD_MAX) < 0)
			return;
		if (c->len == 0)
			return;
		if (c->buf[0] == 5)
			c->proto = CP_SOCKS5;
		if (c->proto == CP_SOCKS5)
			conn_socks(b, c);
		else
			conn_http(b, c);
		return;
	case CS_RELAY:
		conn_pump_dirs(b, c, !!(ev & CONN_EV_READ), !!(ev & CONN_EV_WRITE));
		return;
	case CS_REFUSING:
		conn_drain(b, c);
		return;
	default:
		return; /* the client's bytes wait in the socket until the relay */
	}
}

static void conn_upstream_reply(struct bridge *b, struct conn *c)
{
	if (!c->ubuf && !(c->ubuf = malloc(CONN_UPSTREAM_REPLY_MAX))) {
		conn_finish(b, c, "error", "out-of-memory");
		return;
	}
	int closed = 0;
	for (;;) {
		ssize_t n = recv(c->sfd, c->ubuf + c->ulen, CONN_UPSTREAM_REPLY_MAX - c->ulen, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			break;
		if (n <= 0) {
			/* A refusal (407, 403) is often followed at once by a
			 * close: what came before it still says why. */
			closed = 1;
			break;
		}
		c->ulen += (size_t)n;
		if (c->ulen == CONN_UPSTREAM_REPLY_MAX)
			break;
	}
	int r = upstream_reply(c->ubuf, c->ulen);
	if (r == 0 && closed) {
		conn_refuse(b, c, 502, SOCKS5_GENERAL, "upstream-closed",
			    "cordon: the upstream proxy closed the connection\n");
		return;
	}
	if (r == 0)
		return;
	if (r < 0) {
		char body[CONN_BODY_MAX];
		(void)snprintf(body, sizeof(body), "cordon: the upstream proxy refused %s:%u (%d)\n",
			       c->host.text, c->port, -r);
		conn_refuse(b, c, 502, SOCKS5_NOT_ALLOWED, "upstream-refused", body);
		return;
	}
	c->ulen -= (size_t)r;
	memmove(c->ubuf, c->ubuf + r, c->ulen);
	conn_start_relay(b, c);
}

void conn_on_server(struct bridge *b, struct conn *c, uint32_t ev)
{
	if (c->st == CS_CONNECTING) {
		int err = 0;
		socklen_t el = sizeof(err);
		if (getsockopt(c->sfd, SOL_SOCKET, SO_ERROR, &err, &el) < 0)
			err = errno;
		if (err == EINPROGRESS || err == EALREADY)
			return;
		if (err) {
			sys_close(&c->sfd);
			conn_connect_next(b, c);
			return;
		}
		if (!b->upstream) {
			conn_start_relay(b, c);
			return;
		}
		char head[UPSTREAM_HEAD_MAX];
		ssize_t n = upstream_connect_head(b->upstream, &c->host, c->port, head, sizeof(head));
		if (n < 0 || send(c->sfd, head, (size_t)n, MSG_NOSIGNAL) != n) {
			conn_refuse(b, c, 502, SOCKS5_GENERAL, "upstream-failed",
				    "cordon: cannot talk to the upstream proxy\n");
			return;
		}
		c->st = CS_UPSTREAM_REPLY;
		return;
	}
	if (c->st == CS_UPSTREAM_REPLY)
		conn_upstream_reply(b, c);
	else if (c->st == CS_RELAY)
		conn_pump_dirs(b, c, !!(ev & CONN_EV_WRITE), !!(ev & CONN_EV_READ));
}

void conn_on_deadline(struct bridge *b, struct conn *c)
{
	switch (c->st) {
	case CS_HEAD:
	case CS_SOCKS_REQ:
		conn_finish(b, c, "error", "head-timeout");
		return;
	case CS_RESOLVING:
	case CS_CONNECTING:
	case CS_UPSTREAM_REPLY:
		conn_refuse(b, c, 504, SOCKS5_TTL, "connect-timeout",
			    "cordon: the server did not answer in time\n");
		return;
	case CS_REFUSING:
		conn_finish(b, c, c->decision, c->reason);
		return;
	default:
		return;
	}
}
