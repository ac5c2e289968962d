/* loop.c: see loop.h. */
#include "loop.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "netlog.h"
#include "proto_http.h"
#include "sys.h"
#include "wire_bridge.h"

#define LOOP_EVENTS 64
#define LOOP_TICK_MS 250
/* Below cordon's grace for the bridge (bridge_end, 2 s): the tunnels
 * still open when the sandbox ends get this long to pass on what the
 * sandbox wrote before it exited, and the bridge still logs them itself
 * before cordon's SIGKILL. */
#define LOOP_DRAIN_MS 1500

static struct conn *graveyard; /* ended in this batch; freed after it */

long long conn_now_ms(void)
{
	struct timespec ts;
	(void)clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int lp_add(int ep, int fd, uint32_t events, struct tag *t)
{
	struct epoll_event ev = { .events = events, .data.ptr = t };
	return epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev) < 0 ? -errno : 0;
}

int conn_watch_server(struct bridge *b, struct conn *c)
{
	c->stag = (struct tag){ TAG_SERVER, c };
	return lp_add(b->ep, c->sfd, EPOLLIN | EPOLLOUT | EPOLLRDHUP | EPOLLET, &c->stag);
}

_Static_assert(HOST_NAME_MAX_LEN < WIRE_BRIDGE_HOST_MAX && INET6_ADDRSTRLEN <= WIRE_BRIDGE_ADDR_MAX,
	       "a decision record holds a canonical host and an address in full");

/* The log's decision word as the record's verdict. */
static uint32_t lp_verdict(const char *decision)
{
	if (decision && strcmp(decision, "allow") == 0)
		return WIRE_BRIDGE_ALLOW;
	if (decision && strcmp(decision, "deny") == 0)
		return WIRE_BRIDGE_DENY;
	return WIRE_BRIDGE_FAILED;
}

void conn_log(struct bridge *b, const struct conn *c)
{
	static const char *const proto[] = {
		[CP_UNKNOWN] = "unknown", [CP_HTTP_CONNECT] = "http-connect",
		[CP_HTTP_FORWARD] = "http", [CP_SOCKS5] = "socks5",
	};
	if (b->log_fd < 0 && b->decisions_fd < 0)
		return;
	struct netlog_entry e = {
		.start = c->start_rt, .client_port = c->client_port, .protocol = proto[c->proto],
		.host = c->have_host ? c->host.text : NULL, .port = c->have_host ? c->port : 0,
		.address = c->addr_text[0] ? c->addr_text : NULL, .decision = c->decision,
		.reason = c->reason, .upgrade = c->down.switched ? c->down.upgrade : NULL,
		.bytes_up = c->up.bytes, .bytes_down = c->down.bytes,
		.duration_ms = (unsigned long long)(conn_now_ms() - c->start_ms),
	};
	char line[1024];
	size_t n = b->log_fd >= 0 ? netlog_format(&e, line, sizeof(line)) : 0;
	/* One write per line on an O_APPEND descriptor: lines of concurrent
	 * runs sharing a log do not interleave.  A full disk loses a line,
	 * never the connection. */
	if (n)
		(void)!write(b->log_fd, line, n);
	if (b->decisions_fd < 0)
		return;
	struct wire_bridge_decision d = { lp_verdict(c->decision), e.port, 0, "", "", "" };
	(void)snprintf(d.reason, sizeof(d.reason), "%s", c->reason ? c->reason : "");
	(void)snprintf(d.address, sizeof(d.address), "%s", e.address ? e.address : "");
	(void)snprintf(d.host, sizeof(d.host), "%s", e.host ? e.host : "");
	unsigned char frame[WIRE_BRIDGE_FRAME_MAX];
	size_t f = wire_bridge_decision_frame(&d, frame);
	/* Bounded: a run of millions of connections must not grow cordon's
	 * memory without end; cordon reads no more than this. */
	if (b->decisions_len + f <= WIRE_BRIDGE_DECISIONS_MAX &&
	    write(b->decisions_fd, frame, f) == (ssize_t)f)
		b->decisions_len += f;
}

void conn_finish(struct bridge *b, struct conn *c, const char *decision, const char *reason)
{
	if (c->st == CS_DONE)
		return;
	c->decision = decision;
	c->reason = reason;
	/* A kept connection that ends between requests: each request was
	 * logged when it ended; there is nothing more to say. */
	if (!(c->nreq && c->st == CS_HEAD && c->len == 0))
		conn_log(b, c);
	c->st = CS_DONE;
	sys_close(&c->cfd);
	sys_close(&c->sfd);
	relay_close(&c->up);
	relay_close(&c->down);
	free(c->buf);
	c->buf = NULL;
	free(c->ubuf);
	c->ubuf = NULL;
	if (c->prev)
		c->prev->next = c->next;
	else
		b->conns = c->next;
	if (c->next)
		c->next->prev = c->prev;
	c->next = graveyard;
	graveyard = c;
	b->nconns--;
}

/* Past the bound: a clear refusal rather than a connection that hangs. */
static void lp_refuse_busy(struct bridge *b, int fd)
{
	char out[256];
	char body[128];
	int bl = snprintf(body, sizeof(body), "cordon: too many open connections through the "
			  "proxy (at most %zu); retry later\n", b->max_conns);
	ssize_t n = bl > 0 ? http_response(503, body, out, sizeof(out)) : -1;
	if (n > 0)
		(void)!send(fd, out, (size_t)n, MSG_NOSIGNAL | MSG_DONTWAIT);
	(void)close(fd);
}

static void lp_accept(struct bridge *b, int lfd)
{
	for (;;) {
		struct sockaddr_in peer = { 0 };
		socklen_t pl = sizeof(peer);
		int fd = accept4(lfd, (struct sockaddr *)&peer, &pl, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd < 0) {
			if (errno == EINTR || errno == ECONNABORTED)
				continue;
			return; /* EAGAIN, or EMFILE: the backlog waits */
		}
		if (b->nconns >= b->max_conns) {
			lp_refuse_busy(b, fd);
			continue;
		}
		struct conn *c = calloc(1, sizeof(*c));
		if (!c) {
			(void)close(fd);
			continue;
		}
		c->id = ++b->next_id;
		c->cfd = fd;
		c->sfd = -1;
		c->up.pipe[0] = c->up.pipe[1] = c->down.pipe[0] = c->down.pipe[1] = -1;
		c->st = CS_HEAD;
		c->client_port = ntohs(peer.sin_port);
		(void)clock_gettime(CLOCK_REALTIME, &c->start_rt);
		c->start_ms = conn_now_ms();
		c->deadline_ms = c->start_ms + b->head_timeout_ms;
		c->ctag = (struct tag){ TAG_CLIENT, c };
		c->next = b->conns;
		if (b->conns)
			b->conns->prev = c;
		b->conns = c;
		b->nconns++;
		if (lp_add(b->ep, fd, EPOLLIN | EPOLLOUT | EPOLLRDHUP | EPOLLET, &c->ctag) < 0)
			conn_finish(b, c, "error", "epoll");
	}
}

static void lp_resolved(struct bridge *b)
{
	struct resolve_result res[16];
	size_t n = resolve_collect(b->resolver, res, sizeof(res) / sizeof(res[0]));
	for (size_t i = 0; i < n; i++)
		for (struct conn *c = b->conns; c; c = c->next)
			if (c->id == res[i].token) {
				conn_on_resolved(b, c, &res[i]);
				break;
			}
}

static void lp_tick(struct bridge *b, int tfd)
{
	uint64_t ticks;
	(void)!read(tfd, &ticks, sizeof(ticks));
	long long now = conn_now_ms();
	for (struct conn *c = b->conns, *next; c; c = next) {
		next = c->next;
		if (c->st != CS_RELAY && c->deadline_ms && now >= c->deadline_ms)
			conn_on_deadline(b, c);
	}
}

static void lp_bury(void)
{
	while (graveyard) {
		struct conn *c = graveyard;
		graveyard = c->next;
		free(c);
	}
}

/* The sandbox is gone: nothing new can come, but the bytes its processes
 * wrote before they exited may still wait in an accepted socket's receive
 * queue or a relay pipe.  Stop accepting; keep every open connection
 * until it is drained or the drain deadline passes. */
static void lp_drain_start(struct bridge *b, int *listeners, size_t nlisteners, int sandbox)
{
	for (size_t i = 0; i < nlisteners; i++)
		sys_close(&listeners[i]);
	/* At EOF the socket stays readable: level-triggered, it would wake
	 * the loop on every turn. */
	(void)epoll_ctl(b->ep, EPOLL_CTL_DEL, sandbox, NULL);
	b->drain_deadline_ms = conn_now_ms() + LOOP_DRAIN_MS;
}

enum loop_drain loop_drain_step(enum conn_state st, int up_done, long long now,
				long long deadline)
{
	if (now >= deadline)
		return LOOP_DRAIN_CUT;
	/* Everything the sandbox wrote was passed on, and the only reader of
	 * the other direction has exited. */
	if (st == CS_RELAY && up_done)
		return LOOP_DRAIN_DONE;
	return LOOP_DRAIN_KEEP;
}

int loop_wait_ms(long long deadline, long long now)
{
	if (!deadline)
		return -1;
	return deadline > now ? (int)(deadline - now) : 0;
}

/* Whether everything the sandbox side sent was passed on.  An upgrade
 * not answered yet still holds what the client sent after its request:
 * it goes to the server once the 101 comes. */
static int lp_up_done(const struct conn *c)
{
	return c->st == CS_RELAY && relay_done(&c->up) &&
	       !(c->down.upgrade[0] && !c->down.switched && c->up.rest_len);
}

static void lp_drain_sweep(struct bridge *b)
{
	long long now = conn_now_ms();
	for (struct conn *c = b->conns, *next; c; c = next) {
		next = c->next;
		switch (loop_drain_step(c->st, lp_up_done(c), now, b->drain_deadline_ms)) {
		case LOOP_DRAIN_CUT:
			conn_finish(b, c, "error", "sandbox-ended");
			break;
		case LOOP_DRAIN_DONE:
			conn_finish(b, c, "allow", "closed");
			break;
		case LOOP_DRAIN_KEEP:
			break;
		}
	}
}

int loop_run(struct bridge *b, int *listeners, size_t nlisteners, int sandbox,
	     struct cordon_err *e)
{
	static struct tag listener_tag = { TAG_LISTENER, NULL }, resolver_tag = { TAG_RESOLVER, NULL },
			  timer_tag = { TAG_TIMER, NULL }, sandbox_tag = { TAG_SANDBOX, NULL };
	struct tag ltags[4];
	AUTO_FD tfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	struct itimerspec its = { { 0, LOOP_TICK_MS * 1000000L }, { 0, LOOP_TICK_MS * 1000000L } };
	int r = 0;
	if (nlisteners > 4)
		nlisteners = 4;
	b->drain_deadline_ms = 0;
	if (tfd < 0 || timerfd_settime(tfd, 0, &its, NULL) < 0)
		return err_sys(e, errno, "cordon-bridge: timerfd");
	b->ep = epoll_create1(EPOLL_CLOEXEC);
	if (b->ep < 0)
		return err_sys(e, errno, "cordon-bridge: epoll");
	for (size_t i = 0; i < nlisteners; i++) {
		ltags[i] = listener_tag;
		ltags[i].c = (struct conn *)(uintptr_t)(i + 1);
		r |= lp_add(b->ep, listeners[i], EPOLLIN | EPOLLET, &ltags[i]);
	}
	r |= lp_add(b->ep, resolve_fd(b->resolver), EPOLLIN | EPOLLET, &resolver_tag);
	r |= lp_add(b->ep, tfd, EPOLLIN, &timer_tag);
	r |= lp_add(b->ep, sandbox, EPOLLIN | EPOLLRDHUP, &sandbox_tag);
	if (r < 0)
		return err_sys(e, -r, "cordon-bridge: epoll_ctl");
	for (;;) {
		struct epoll_event ev[LOOP_EVENTS];
		int n = epoll_wait(b->ep, ev, LOOP_EVENTS, loop_wait_ms(b->drain_deadline_ms, conn_now_ms()));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return err_sys(e, errno, "cordon-bridge: epoll_wait");
		for (int i = 0; i < n; i++) {
			struct tag *t = ev[i].data.ptr;
			switch (t->kind) {
			case TAG_LISTENER:
				if (listeners[(uintptr_t)t->c - 1] >= 0)
					lp_accept(b, listeners[(uintptr_t)t->c - 1]);
				break;
			case TAG_CLIENT:
				conn_on_client(b, t->c, ev[i].events);
				break;
			case TAG_SERVER:
				conn_on_server(b, t->c, ev[i].events);
				break;
			case TAG_RESOLVER:
				lp_resolved(b);
				break;
			case TAG_TIMER:
				lp_tick(b, tfd);
				break;
			case TAG_SANDBOX:
				/* cordon-inner sends nothing after READY: readable
				 * means EOF (the sandbox is gone) or a protocol
				 * error.  Either way nothing new comes. */
				if (!b->drain_deadline_ms)
					lp_drain_start(b, listeners, nlisteners, sandbox);
				break;
			}
		}
		if (b->drain_deadline_ms)
			lp_drain_sweep(b);
		lp_bury();
		if (b->drain_deadline_ms && !b->conns)
			return 0;
	}
}
