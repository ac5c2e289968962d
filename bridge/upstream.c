/* upstream.c: see upstream.h. */
#include "upstream.h"

#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/un.h>

#define UPSTREAM_REPLY_MAX 16384

static int up_token(const char *t, struct upstream *u, struct cordon_err *e)
{
	size_t len = t ? strlen(t) : 0;
	if (len > UPSTREAM_TOKEN_MAX)
		return err_set(e, EINVAL, "--attribution-token: longer than %d bytes", UPSTREAM_TOKEN_MAX);
	for (size_t i = 0; i < len; i++)
		if (t[i] <= 0x20 || t[i] >= 0x7f)
			return err_set(e, EINVAL, "--attribution-token: only printable ASCII without "
				       "spaces may go into an HTTP header");
	if (len)
		memcpy(u->token, t, len);
	u->token[len] = '\0';
	return 0;
}

static void up_base64(const unsigned char *in, size_t len, char *out)
{
	static const char tab[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=";
	size_t o = 0;
	for (size_t i = 0; i < len; i += 3) {
		unsigned v = (unsigned)in[i] << 16 | (i + 1 < len ? (unsigned)in[i + 1] << 8 : 0) |
			     (i + 2 < len ? in[i + 2] : 0);
		out[o++] = tab[v >> 18 & 63];
		out[o++] = tab[v >> 12 & 63];
		out[o++] = tab[i + 1 < len ? (v >> 6 & 63) : 64];
		out[o++] = tab[i + 2 < len ? (v & 63) : 64];
	}
	out[o] = '\0';
}

static int up_auth(const char *a, struct upstream *u, struct cordon_err *e)
{
	size_t len = a ? strlen(a) : 0;
	if (!a)
		return 0;
	/* The value is never repeated in a message: it holds a password. */
	if (len > UPSTREAM_AUTH_MAX || !strchr(a, ':') || a[0] == ':')
		return err_set(e, EINVAL, "--proxy-upstream: the credentials must be USER:PASSWORD, "
			       "at most %d bytes", UPSTREAM_AUTH_MAX);
	for (size_t i = 0; i < len; i++)
		if ((unsigned char)a[i] < 0x20 || a[i] == 0x7f)
			return err_set(e, EINVAL, "--proxy-upstream: a control character in the "
				       "credentials");
	up_base64((const unsigned char *)a, len, u->auth);
	return 0;
}

int upstream_parse(const char *spec, const char *token, const char *auth, struct upstream *u,
		   struct cordon_err *e)
{
	memset(u, 0, sizeof(*u));
	if (up_token(token, u, e) < 0 || up_auth(auth, u, e) < 0)
		return -EINVAL;
	if (strncmp(spec, "unix:", 5) == 0) {
		struct sockaddr_un *sun = (struct sockaddr_un *)&u->sa;
		size_t len = strlen(spec + 5);
		if (len == 0 || len >= sizeof(sun->sun_path) || spec[5] != '/')
			return err_set(e, EINVAL, "--proxy-upstream %s: expected unix:/ABSOLUTE/PATH "
				       "(at most %zu bytes)", spec, sizeof(sun->sun_path) - 1);
		sun->sun_family = AF_UNIX;
		memcpy(sun->sun_path, spec + 5, len + 1);
		u->salen = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + len + 1);
		return 0;
	}
	if (strncmp(spec, "tcp:", 4) != 0)
		return err_set(e, EINVAL, "--proxy-upstream %s: expected tcp:HOST:PORT or unix:PATH", spec);
	const char *hp = spec + 4, *colon = strrchr(hp, ':');
	char host[256];
	if (!colon || colon == hp || (size_t)(colon - hp) >= sizeof(host))
		return err_set(e, EINVAL, "--proxy-upstream %s: expected tcp:HOST:PORT", spec);
	size_t hl = (size_t)(colon - hp);
	if (hp[0] == '[' && hp[hl - 1] == ']') {
		hp++;
		hl -= 2;
	}
	memcpy(host, hp, hl);
	host[hl] = '\0';
	char *end;
	long port = strtol(colon + 1, &end, 10);
	if (*end || port < 1 || port > 65535 || colon[1] < '0' || colon[1] > '9')
		return err_set(e, EINVAL, "--proxy-upstream %s: the port must be 1-65535", spec);
	struct addrinfo hints, *ai = NULL;
	memset(&hints, 0, sizeof(hints));
	hints.ai_socktype = SOCK_STREAM;
	int r = getaddrinfo(host, colon + 1, &hints, &ai);
	if (r != 0 || !ai)
		return err_set(e, ENOENT, "--proxy-upstream %s: cannot resolve %s: %s", spec, host,
			       gai_strerror(r));
	memcpy(&u->sa, ai->ai_addr, ai->ai_addrlen);
	u->salen = ai->ai_addrlen;
	freeaddrinfo(ai);
	return 0;
}

ssize_t upstream_connect_head(const struct upstream *u, const struct host *h, uint16_t port,
			      char *out, size_t cap)
{
	const char *o = h->kind == HOST_IPV6 ? "[" : "", *c = h->kind == HOST_IPV6 ? "]" : "";
	int n = snprintf(out, cap, "CONNECT %s%s%s:%u HTTP/1.1\r\nHost: %s%s%s:%u\r\n%s%s%s%s%s%s\r\n",
			 o, h->text, c, port, o, h->text, c, port,
			 u->token[0] ? UPSTREAM_HEADER ": " : "", u->token, u->token[0] ? "\r\n" : "",
			 u->auth[0] ? "Proxy-Authorization: Basic " : "", u->auth,
			 u->auth[0] ? "\r\n" : "");
	if (n < 0 || (size_t)n >= cap)
		return -ENOSPC;
	return n;
}

int upstream_reply(const char *buf, size_t len)
{
	const char *end = NULL;
	for (size_t i = 3; i < len && i < UPSTREAM_REPLY_MAX; i++)
		if (memcmp(buf + i - 3, "\r\n\r\n", 4) == 0) {
			end = buf + i + 1;
			break;
		}
	if (!end)
		return len >= UPSTREAM_REPLY_MAX ? -502 : 0;
	if (end - buf < 12 || memcmp(buf, "HTTP/1.", 7) != 0 || buf[8] != ' ')
		return -502;
	int status = 0;
	for (int i = 9; i < 12; i++) {
		if (buf[i] < '0' || buf[i] > '9')
			return -502;
		status = status * 10 + (buf[i] - '0');
	}
	if (status >= 200 && status < 300)
		return (int)(end - buf);
	return status >= 400 && status < 600 ? -status : -502;
}
