/* proto_http.c: see proto_http.h (the request side; the response side is
 * proto_http_response.c). */
#include "proto_http.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "http_lex.h"

int http_scan_head(struct http_scan *s, const char *buf, size_t len)
{
	size_t i;
	for (i = s->pos; i < len && i < HTTP_HEAD_MAX; i++) {
		char c = buf[i];
		if (c == '\0')
			return -400;
		if (c != '\n')
			continue;
		if (i == 0 || buf[i - 1] != '\r')
			return -400;
		if (!s->line_end)
			s->line_end = i + 1;
		if (i >= 3 && buf[i - 2] == '\n' && buf[i - 3] == '\r') {
			s->pos = i + 1;
			return (int)(i + 1);
		}
	}
	s->pos = i;
	if (!s->line_end && i >= HTTP_LINE_MAX)
		return -414;
	if (i >= HTTP_HEAD_MAX)
		return -431;
	return 0;
}

/* host[:port] or [v6][:port]: *has_port says whether a port was given.
 * '\' ends the authority for WHATWG URL parsers (a path separator) and
 * bytes past ASCII are decoded differently by each parser: no authority
 * (CONNECT target, absolute URI, Host) may carry them. */
static int hp_authority(const char *a, size_t len, struct host *h, uint16_t *port, int *has_port)
{
	size_t hlen = len;
	const char *colon = NULL;
	for (size_t i = 0; i < len; i++)
		if (a[i] == '\\' || (unsigned char)a[i] >= 0x80)
			return -1;
	if (len > 0 && a[0] == '[') {
		const char *close = memchr(a, ']', len);
		if (!close)
			return -1;
		hlen = (size_t)(close - a) + 1;
		if (hlen < len) {
			if (a[hlen] != ':')
				return -1;
			colon = a + hlen;
		}
	} else {
		colon = memchr(a, ':', len);
		if (colon) {
			hlen = (size_t)(colon - a);
			if (memchr(colon + 1, ':', len - hlen - 1))
				return -1;
		}
	}
	*has_port = colon != NULL;
	if (colon) {
		unsigned long long v;
		if (http_lex_digits(colon + 1, len - hlen - 1, 5, &v) < 0 || v == 0 || v > 65535)
			return -1;
		*port = (uint16_t)v;
	}
	return host_canon(a, hlen, h) < 0 ? -1 : 0;
}

/* METHOD SP target SP HTTP/1.x CRLF */
static int hp_request_line(const char *b, size_t line_len, struct http_req *r,
			   size_t *t_off, size_t *t_len)
{
	const char *sp1 = memchr(b, ' ', line_len);
	if (!sp1 || sp1 == b || sp1 - b > 20)
		return -1;
	for (const char *p = b; p < sp1; p++)
		if (!http_lex_tchar((unsigned char)*p))
			return -1;
	r->method_off = 0;
	r->method_len = (size_t)(sp1 - b);
	const char *t = sp1 + 1, *end = b + line_len - 2; /* before CRLF */
	const char *sp2 = memchr(t, ' ', (size_t)(end - t));
	if (!sp2 || sp2 == t)
		return -1;
	for (const char *p = t; p < sp2; p++) {
		unsigned char c = (unsigned char)*p;
		/* '#' is read differently by URL parsers (a fragment), and no
		 * client sends one: no target may carry it.  A raw '\' or UTF-8
		 * in the path or query is sent by curl and urllib and reaches
		 * only the server already chosen; hp_authority refuses them in
		 * the authority, where they would be ambiguous. */
		if (c <= 0x20 || c == 0x7f || c == '#')
			return -1;
	}
	if ((size_t)(end - sp2) != 9 || memcmp(sp2 + 1, "HTTP/1.", 7) != 0 ||
	    (sp2[8] != '0' && sp2[8] != '1'))
		return -1;
	r->minor = (unsigned)(sp2[8] - '0');
	*t_off = (size_t)(t - b);
	*t_len = (size_t)(sp2 - t);
	return 0;
}

static int hp_target(const char *b, size_t off, size_t len, struct http_req *r)
{
	const char *t = b + off;
	int has_port = 0;
	if (r->method_len == 7 && memcmp(b, "CONNECT", 7) == 0) {
		r->kind = HTTP_CONNECT;
		if (memchr(t, '@', len) || memchr(t, '/', len) || memchr(t, '?', len))
			return -1;
		if (hp_authority(t, len, &r->host, &r->port, &has_port) < 0 || !has_port)
			return -1;
		return 0;
	}
	r->kind = HTTP_FORWARD;
	/* The bridge does not originate TLS: a client that wants https goes
	 * through CONNECT (HTTPS_PROXY), and is told so. */
	if ((len >= 8 && strncasecmp(t, "https://", 8) == 0) ||
	    (len >= 6 && strncasecmp(t, "wss://", 6) == 0))
		return HTTP_E_HTTPS;
	/* ws:// is what curl (8.x, before 8.21) and some WebSocket libraries
	 * write for a WebSocket through a proxy: the same authority rules,
	 * and http_parse_head takes it only for an upgrade. */
	size_t scheme = len > 7 && strncasecmp(t, "http://", 7) == 0 ? 7
		      : len > 5 && strncasecmp(t, "ws://", 5) == 0 ? 5 : 0;
	if (!scheme)
		return -1; /* origin-form would route on Host */
	r->ws_uri = scheme == 5;
	size_t a = off + scheme, e = a;
	while (e < off + len && b[e] != '/' && b[e] != '?')
		e++;
	if (memchr(b + a, '@', e - a))
		return -1; /* userinfo: user@host is read as host by some, user by others */
	r->port = 80;
	if (e == a || hp_authority(b + a, e - a, &r->host, &r->port, &has_port) < 0)
		return -1;
	r->path_off = e;
	r->path_len = off + len - e;
	return 0;
}

struct hp_seen {
	int content_length, transfer_encoding, host;
	int close, keep_alive; /* Connection or Proxy-Connection tokens */
	int conn_upgrade;      /* Connection (only) names upgrade */
	int upgrade;           /* Upgrade headers seen */
	const char *upgrade_v; /* the Upgrade value, trimmed */
	size_t upgrade_vlen;
};

static void hp_connection_tokens(const char *v, size_t len, int is_connection, struct hp_seen *s)
{
	while (len) {
		const char *comma = memchr(v, ',', len);
		size_t tl = comma ? (size_t)(comma - v) : len;
		const char *t = v;
		size_t n = tl;
		http_lex_trim(&t, &n);
		s->close |= http_lex_name_is(t, n, "close");
		s->keep_alive |= http_lex_name_is(t, n, "keep-alive");
		s->conn_upgrade |= is_connection && http_lex_name_is(t, n, "upgrade");
		v += tl + (comma ? 1 : 0);
		len -= tl + (comma ? 1 : 0);
	}
}

static int hp_header(const char *line, size_t len, struct http_req *r, struct hp_seen *s)
{
	if (line[0] == ' ' || line[0] == '\t')
		return -1; /* obs-fold */
	const char *colon = memchr(line, ':', len);
	if (!colon || colon == line)
		return -1;
	for (const char *p = line; p < colon; p++)
		if (!http_lex_tchar((unsigned char)*p))
			return -1; /* includes whitespace before the colon */
	size_t nlen = (size_t)(colon - line);
	const char *v = colon + 1;
	size_t vlen = len - nlen - 1;
	for (size_t i = 0; i < vlen; i++) {
		unsigned char c = (unsigned char)v[i];
		if ((c < 0x20 && c != '\t') || c == 0x7f)
			return -1;
	}
	http_lex_trim(&v, &vlen);
	if (http_lex_name_is(line, nlen, "Content-Length")) {
		unsigned long long cl;
		if (s->content_length++ || http_lex_digits(v, vlen, 18, &cl) < 0)
			return -1;
		r->body = HTTP_BODY_LENGTH;
		r->content_length = cl;
	} else if (http_lex_name_is(line, nlen, "Transfer-Encoding")) {
		if (s->transfer_encoding++ || vlen != 7 || strncasecmp(v, "chunked", 7) != 0)
			return -1;
		r->body = HTTP_BODY_CHUNKED;
	} else if (http_lex_name_is(line, nlen, "Connection")) {
		hp_connection_tokens(v, vlen, 1, s);
	} else if (http_lex_name_is(line, nlen, "Proxy-Connection")) {
		hp_connection_tokens(v, vlen, 0, s);
	} else if (r->kind == HTTP_FORWARD && http_lex_name_is(line, nlen, "Upgrade")) {
		/* Forwarded as it is when the request upgrades: it must read
		 * one way, once. */
		if (s->upgrade++ || http_lex_protocol_list(v, vlen) < 0)
			return HTTP_E_UPGRADE;
		s->upgrade_v = v;
		s->upgrade_vlen = vlen;
	} else if (http_lex_name_is(line, nlen, "Host")) {
		struct host h;
		uint16_t port = r->port;
		int has_port;
		if (s->host++ || hp_authority(v, vlen, &h, &port, &has_port) < 0)
			return -1;
		if (h.kind != r->host.kind || strcmp(h.text, r->host.text) != 0 ||
		    (has_port && port != r->port))
			return -1;
	}
	return 0;
}

int http_parse_head(const char *buf, size_t head_len, struct http_req *r)
{
	struct http_req out;
	memset(&out, 0, sizeof(out));
	if (head_len < 4 || head_len > HTTP_HEAD_MAX ||
	    memcmp(buf + head_len - 4, "\r\n\r\n", 4) != 0 || memchr(buf, '\0', head_len))
		return -400;
	const char *nl = memchr(buf, '\n', head_len);
	size_t line_len = (size_t)(nl - buf) + 1, t_off, t_len;
	if (line_len > HTTP_LINE_MAX)
		return -414;
	if (line_len < 4 || buf[line_len - 2] != '\r')
		return -400;
	if (hp_request_line(buf, line_len, &out, &t_off, &t_len) < 0)
		return -400;
	int t = hp_target(buf, t_off, t_len, &out);
	if (t < 0)
		return t == HTTP_E_HTTPS ? t : -400;
	struct hp_seen seen = { 0, 0, 0, 0, 0, 0, 0, NULL, 0 };
	size_t pos = line_len;
	out.hdr_off = pos;
	while (pos < head_len - 2) {
		const char *l = buf + pos;
		const char *e = memchr(l, '\n', head_len - pos);
		size_t len = (size_t)(e - l) + 1;
		if (len < 3 || l[len - 2] != '\r')
			return -400;
		int h = hp_header(l, len - 2, &out, &seen);
		if (h < 0)
			return h == HTTP_E_UPGRADE ? h : -400;
		pos += len;
	}
	if (seen.content_length && seen.transfer_encoding)
		return -400;
	/* An HTTP/1.0 server ignores Upgrade (RFC 7230 6.7), so an HTTP/1.0
	 * request never upgrades.  Bytes after an upgrade request's head are
	 * the new protocol's once the server switched, the next request's if
	 * it did not: a body between them could be read as either. */
	if (out.minor == 1 && seen.conn_upgrade && seen.upgrade) {
		if (out.body == HTTP_BODY_CHUNKED ||
		    (out.body == HTTP_BODY_LENGTH && out.content_length > 0))
			return HTTP_E_UPGRADE_BODY;
		out.upgrade_off = (size_t)(seen.upgrade_v - buf);
		out.upgrade_len = seen.upgrade_vlen;
	}
	if (out.ws_uri && !out.upgrade_len)
		return HTTP_E_UPGRADE;
	out.keep = !seen.close && (out.minor == 1 || seen.keep_alive);
	out.hdr_len = pos - out.hdr_off;
	out.head_len = head_len;
	*r = out;
	return 0;
}

/* Headers that belong to the hop from the client to the proxy, or that the
 * rebuild writes itself.  Upgrade is hop-by-hop too, passed on only with
 * the Connection: Upgrade that makes it count. */
static int hp_dropped(const char *line, size_t len, int upgrade)
{
	static const char *const drop[] = {
		"Host", "Connection", "Proxy-Connection", "Keep-Alive", "Proxy-Authorization",
	};
	const char *colon = memchr(line, ':', len);
	size_t nlen = colon ? (size_t)(colon - line) : len;
	for (size_t i = 0; i < sizeof(drop) / sizeof(drop[0]); i++)
		if (http_lex_name_is(line, nlen, drop[i]))
			return 1;
	return !upgrade && http_lex_name_is(line, nlen, "Upgrade");
}

ssize_t http_rebuild(const char *buf, const struct http_req *r, char *out, size_t cap)
{
	struct http_out o = { out, cap, 0, 0 };
	http_out_put(&o, buf + r->method_off, r->method_len);
	http_out_puts(&o, " ");
	if (r->path_len == 0 || buf[r->path_off] == '?')
		http_out_puts(&o, "/");
	http_out_put(&o, buf + r->path_off, r->path_len);
	http_out_puts(&o, r->minor ? " HTTP/1.1\r\nHost: " : " HTTP/1.0\r\nHost: ");
	if (r->host.kind == HOST_IPV6)
		http_out_puts(&o, "[");
	http_out_puts(&o, r->host.text);
	if (r->host.kind == HOST_IPV6)
		http_out_puts(&o, "]");
	if (r->port != 80) {
		char port[16];
		(void)snprintf(port, sizeof(port), ":%u", (unsigned)r->port);
		http_out_puts(&o, port);
	}
	http_out_puts(&o, "\r\n");
	for (size_t pos = r->hdr_off; pos < r->hdr_off + r->hdr_len;) {
		const char *l = buf + pos;
		const char *e = memchr(l, '\n', r->hdr_off + r->hdr_len - pos);
		size_t len = (size_t)(e - l) + 1;
		if (!hp_dropped(l, len - 2, r->upgrade_len != 0))
			http_out_put(&o, l, len);
		pos += len;
	}
	/* An upgrade request cannot say close: a server that switches keeps
	 * the connection for the new protocol.  One that does not switch ends
	 * its response where its framing says, and the bridge closes the
	 * server's connection there (relay.h). */
	http_out_puts(&o, r->upgrade_len ? "Connection: Upgrade\r\n\r\n" : "Connection: close\r\n\r\n");
	return o.full ? -ENOSPC : (ssize_t)o.n;
}
