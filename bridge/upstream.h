/* upstream.h: --proxy-upstream tcp:HOST:PORT|unix:PATH.  Each allowed
 * connection is opened as a CONNECT to that proxy, with the attribution
 * header when --attribution-token was given:
 *
 *   CONNECT host:port HTTP/1.1
 *   Host: host:port
 *   X-Cordon-Attribution: TOKEN
 *   Proxy-Authorization: Basic BASE64(USER:PASS)
 *
 * The token is on the bridge's command line only (the host side); the
 * credentials come in a memfd (intake.c); nothing of either reaches the
 * sandbox.  A denied name never reaches the upstream: the
 * allowlist is checked first.  Non-public addresses are the upstream's to
 * refuse: the bridge does not resolve names it sends upstream.
 *
 * Belongs here: parsing the spec, the CONNECT head, reading the reply. */
#ifndef CORDON_BRIDGE_UPSTREAM_H
#define CORDON_BRIDGE_UPSTREAM_H

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/types.h>

#include "err.h"
#include "host.h"

#define UPSTREAM_TOKEN_MAX 256
#define UPSTREAM_AUTH_MAX 1024 /* USER:PASS, decoded */
#define UPSTREAM_AUTH_B64_MAX ((UPSTREAM_AUTH_MAX + 2) / 3 * 4)
#define UPSTREAM_HEADER "X-Cordon-Attribution"
/* The longest CONNECT head: a 253-byte name twice, the token, the
 * credentials in base64, and the fixed words. */
#define UPSTREAM_HEAD_MAX (UPSTREAM_AUTH_B64_MAX + UPSTREAM_TOKEN_MAX + 1024)

struct upstream {
	struct sockaddr_storage sa;
	socklen_t salen;
	char token[UPSTREAM_TOKEN_MAX + 1]; /* "" when none */
	char auth[UPSTREAM_AUTH_B64_MAX + 1]; /* base64 of USER:PASS; "" when none */
};

/* Parse spec (tcp:HOST:PORT or unix:/PATH, without credentials: cordon
 * splits them off); a tcp: host must be an IP literal or a name /etc/hosts
 * or DNS answers now (resolved once, at start).  token may be NULL; it must
 * be printable ASCII without spaces, at most UPSTREAM_TOKEN_MAX bytes.
 * auth ("USER:PASS", at most UPSTREAM_AUTH_MAX bytes, no control bytes) may
 * be NULL; given, each CONNECT carries Proxy-Authorization: Basic. */
int upstream_parse(const char *spec, const char *token, const char *auth, struct upstream *u,
		   struct cordon_err *e) __attribute__((warn_unused_result));

/* The CONNECT head for h:port.  Its length, or -ENOSPC. */
ssize_t upstream_connect_head(const struct upstream *u, const struct host *h, uint16_t port,
			      char *out, size_t cap);

/* The upstream's answer in buf[0..len): 0 need more; >0 a 2xx head of that
 * length; <0 -status of a refusal, or -502 for garbage or a head over 16 KiB. */
int upstream_reply(const char *buf, size_t len);

#endif
