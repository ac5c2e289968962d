/* conn.h: one connection from the sandbox, from accept to close, and the
 * loop context it lives in.
 *
 *   HEAD -> (SOCKS_REQ) -> RESOLVING -> CONNECTING -> RELAY -> closed
 *        \-> REFUSING (403/400/431/414 or SOCKS error written, then closed)
 *   an absolute-form request's RELAY -> HEAD again when the client keeps
 *   the connection and the response was delimited (conn_next_request);
 *   after a 101 the request asked for, RELAY is a tunnel until both
 *   directions end, as for CONNECT (relay_switch)
 *
 * Belongs here: the types shared by loop.c (epoll, accept, timers, the
 * resolver and the sandbox socket) and conn.c (the protocol stages). */
#ifndef CORDON_BRIDGE_CONN_H
#define CORDON_BRIDGE_CONN_H

#include <netinet/in.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "decision.h"
#include "host.h"
#include "proto_http.h"
#include "relay.h"
#include "resolve.h"
#include "upstream.h"

enum conn_state {
	CS_HEAD = 1, CS_SOCKS_REQ, CS_RESOLVING, CS_CONNECTING, CS_UPSTREAM_REPLY, CS_RELAY,
	CS_REFUSING, CS_DONE,
};

enum conn_proto { CP_UNKNOWN = 0, CP_HTTP_CONNECT, CP_HTTP_FORWARD, CP_SOCKS5 };

enum tag_kind { TAG_LISTENER = 1, TAG_CLIENT, TAG_SERVER, TAG_RESOLVER, TAG_TIMER, TAG_SANDBOX };

struct conn;

/* What epoll hands back: which descriptor of which connection. */
struct tag {
	enum tag_kind kind;
	struct conn *c;
};

struct bridge {
	int ep;
	struct decision_rules rules;
	struct resolver *resolver;
	const struct upstream *upstream; /* NULL: the built-in filter connects itself */
	int log_fd;                      /* -1: no --net-log */
	int decisions_fd;                /* cordon's memfd of DECISION records (wire_bridge.h), or -1 */
	unsigned long long decisions_len; /* bytes appended to it */
	struct conn *conns;              /* every live connection */
	size_t nconns, max_conns;
	uint64_t next_id;
	unsigned head_timeout_ms, connect_timeout_ms;
	long long drain_deadline_ms;     /* 0 until the sandbox ended */
};

struct conn {
	struct conn *prev, *next;
	uint64_t id;
	int cfd, sfd;
	struct tag ctag, stag;
	enum conn_state st;
	enum conn_proto proto;
	char *buf;                /* the head as read so far */
	size_t len, cap;
	struct http_scan scan;
	struct http_req req;
	size_t consumed;          /* bytes of buf that were head (the rest goes to the server) */
	int have_host;
	struct host host;
	uint16_t port;
	struct decision dec;
	size_t naddr, next_addr;
	int family[RESOLVE_MAX_ADDRS];
	unsigned char addr[RESOLVE_MAX_ADDRS][16];
	char addr_text[INET6_ADDRSTRLEN];
	long long deadline_ms;
	char *ubuf;               /* the upstream proxy's reply head as read so far */
	size_t ulen;
	struct relay_dir up, down;
	struct timespec start_rt;
	long long start_ms;
	uint16_t client_port;
	const char *decision, *reason;
	unsigned nreq;            /* requests this connection carried before the current one */
};

long long conn_now_ms(void);

/* loop.c: (re)register c's server descriptor; end c (log, close, free
 * later in this batch). */
int conn_watch_server(struct bridge *b, struct conn *c);
void conn_finish(struct bridge *b, struct conn *c, const char *decision, const char *reason);
/* loop.c: c's line for --net-log and the report (its current request). */
void conn_log(struct bridge *b, const struct conn *c);

/* conn.c: the stages, called by the loop on events. */
void conn_on_client(struct bridge *b, struct conn *c, uint32_t ev);
void conn_on_server(struct bridge *b, struct conn *c, uint32_t ev);
void conn_on_resolved(struct bridge *b, struct conn *c, const struct resolve_result *res);
void conn_on_deadline(struct bridge *b, struct conn *c);
/* A refusal written before the connection closes: HTTP status (or, for
 * SOCKS5, the reply code) and a body. */
void conn_refuse(struct bridge *b, struct conn *c, int status, unsigned char socks_code,
		 const char *reason, const char *body);

#endif
