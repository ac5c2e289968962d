/* proto_http_response.c: see proto_http.h (the response side: the
 * Connection rewrite, the framing of a response, the 101 check, and the
 * bridge's own refusals). */
#include "proto_http.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "http_lex.h"

ssize_t http_response_close(const char *buf, size_t len, int keep, char *out, size_t cap,
			    int *final)
{
	static const char *const drop[] = { "Connection", "Keep-Alive", "Proxy-Connection" };
	struct http_out o = { out, cap, 0, 0 };
	if (len < 16 || memcmp(buf, "HTTP/1.", 7) != 0 || (buf[7] != '0' && buf[7] != '1') ||
	    buf[8] != ' ' || memcmp(buf + len - 4, "\r\n\r\n", 4) != 0 || memchr(buf, '\0', len))
		return -EPROTO;
	for (int i = 9; i < 12; i++)
		if (buf[i] < '0' || buf[i] > '9')
			return -EPROTO;
	if (buf[12] != ' ' && buf[12] != '\r')
		return -EPROTO;
	*final = buf[9] != '1' || memcmp(buf + 9, "101", 3) == 0;
	for (size_t pos = 0; pos < len - 2;) {
		const char *e = memchr(buf + pos, '\n', len - pos);
		size_t l = (size_t)(e - (buf + pos)) + 1;
		/* A lone CR is a line break to some clients: a response could
		 * split itself past the Connection: close added below. */
		if (l < 2 || buf[pos + l - 2] != '\r' || memchr(buf + pos, '\r', l - 2))
			return -EPROTO;
		const char *colon = pos ? memchr(buf + pos, ':', l) : NULL;
		size_t nlen = colon ? (size_t)(colon - (buf + pos)) : 0;
		int dropped = 0;
		for (size_t i = 0; *final && buf[9] != '1' && colon && i < sizeof(drop) / sizeof(drop[0]); i++)
			dropped |= http_lex_name_is(buf + pos, nlen, drop[i]);
		if (!dropped)
			http_out_put(&o, buf + pos, l);
		pos += l;
	}
	if (*final && buf[9] != '1')
		http_out_puts(&o, !keep ? "Connection: close\r\n"
			: buf[7] == '0' ? "Connection: keep-alive\r\n" : "");
	http_out_puts(&o, "\r\n");
	return o.full ? -ENOSPC : (ssize_t)o.n;
}

/* Whether the protocol p[0..n) is one of the list offer[0..offer_len). */
static int hp_offered(const char *p, size_t n, const char *offer, size_t offer_len)
{
	size_t pos = 0, on;
	const char *o;
	while (http_lex_protocol_next(offer, offer_len, &pos, &o, &on) > 0)
		if (on == n && strncasecmp(o, p, n) == 0)
			return 1;
	return 0;
}

int http_response_switch(const char *buf, size_t len, const char *offer, size_t offer_len,
			 char *chosen)
{
	const char *v = NULL;
	size_t vlen = 0;
	int seen = 0;
	if (offer_len == 0)
		return -EPERM;
	if (len < 16 || memcmp(buf, "HTTP/1.", 7) != 0 || memcmp(buf + 8, " 101", 4) != 0 ||
	    memcmp(buf + len - 4, "\r\n\r\n", 4) != 0)
		return -EPROTO;
	for (size_t pos = 0; pos < len;) {
		const char *l = buf + pos, *e = memchr(l, '\n', len - pos);
		if (!e)
			return -EPROTO;
		size_t ll = (size_t)(e - l) + 1;
		if (ll < 2 || e[-1] != '\r')
			return -EPROTO;
		const char *colon = pos ? memchr(l, ':', ll) : NULL;
		pos += ll;
		if (!colon || !http_lex_name_is(l, (size_t)(colon - l), "Upgrade"))
			continue;
		v = colon + 1;
		vlen = (size_t)(e - 1 - v); /* up to the CR, which is not the colon */
		http_lex_trim(&v, &vlen);
		seen++;
	}
	if (seen != 1 || http_lex_protocol_list(v, vlen) < 0)
		return -EPROTO;
	size_t pos = 0, n;
	const char *p;
	while (http_lex_protocol_next(v, vlen, &pos, &p, &n) > 0)
		if (!hp_offered(p, n, offer, offer_len))
			return -EPROTO;
	memcpy(chosen, v, vlen);
	chosen[vlen] = '\0';
	return 0;
}

int http_response_frame(const char *buf, size_t len, int head_req, enum http_body *body,
			unsigned long long *length)
{
	int cl = 0, te = 0, chunked = 0;
	*length = 0;
	for (size_t pos = 0; pos < len;) {
		const char *l = buf + pos, *e = memchr(l, '\n', len - pos);
		if (!e)
			break;
		size_t ll = (size_t)(e - l) + 1;
		/* A bare LF is refused by the rewrite too; here it would also
		 * put a colon just before the LF, past the value's end. */
		if (ll < 2 || l[ll - 2] != '\r')
			return -EPROTO;
		const char *colon = pos ? memchr(l, ':', ll) : NULL;
		pos += ll;
		if (!colon)
			continue;
		size_t nlen = (size_t)(colon - l);
		const char *v = colon + 1;
		size_t vlen = ll - nlen - 3; /* without the colon and CRLF */
		http_lex_trim(&v, &vlen);
		if (http_lex_name_is(l, nlen, "Content-Length")) {
			if (cl++ || http_lex_digits(v, vlen, 18, length) < 0)
				return -EPROTO;
		} else if (http_lex_name_is(l, nlen, "Transfer-Encoding")) {
			te++;
			chunked = vlen == 7 && strncasecmp(v, "chunked", 7) == 0;
		}
	}
	if (cl && te)
		return -EPROTO;
	if (len < 12)
		return -EPROTO;
	/* After a 101 the connection is the new protocol's, whatever the
	 * request's method. */
	int sw = memcmp(buf + 9, "101", 3) == 0;
	if (!sw && (head_req || memcmp(buf + 9, "204", 3) == 0 || memcmp(buf + 9, "304", 3) == 0))
		*body = HTTP_BODY_NONE;
	else if (!sw && te == 1 && chunked)
		*body = HTTP_BODY_CHUNKED;
	else if (!sw && cl && !te)
		*body = HTTP_BODY_LENGTH;
	else
		*body = HTTP_BODY_CLOSE; /* a 101, another coding, or no length */
	return 0;
}

static const char *hp_reason(int status)
{
	switch (status) {
	case 400: return "Bad Request";
	case 403: return "Forbidden";
	case 405: return "Method Not Allowed";
	case 408: return "Request Timeout";
	case 414: return "URI Too Long";
	case 431: return "Request Header Fields Too Large";
	case 502: return "Bad Gateway";
	case 503: return "Service Unavailable";
	case 504: return "Gateway Timeout";
	default: return "Error";
	}
}

struct http_refusal http_refusal(int err)
{
	switch (err) {
	case HTTP_E_HTTPS:
		return (struct http_refusal){ 400, "https-uri",
			"cordon: the proxy does not fetch https:// or wss:// URIs itself; use "
			"CONNECT (a client given HTTPS_PROXY / https_proxy opens a CONNECT "
			"tunnel)\n" };
	case HTTP_E_UPGRADE_BODY:
		return (struct http_refusal){ 400, "upgrade-with-body",
			"cordon: a request that asks for an Upgrade must not carry a body\n" };
	case HTTP_E_UPGRADE:
		return (struct http_refusal){ 400, "bad-upgrade",
			"cordon: a ws:// or Upgrade request must be HTTP/1.1 with Connection: "
			"Upgrade and one Upgrade header (at most 128 bytes) listing protocols\n" };
	case -414:
		return (struct http_refusal){ 414, "bad-request",
			"cordon: the request line is too long\n" };
	default:
		return (struct http_refusal){ 400, "bad-request",
			"cordon: malformed or ambiguous proxy request (the proxy takes CONNECT "
			"host:port and http:// absolute URIs, without userinfo)\n" };
	}
}

ssize_t http_response(int status, const char *body, char *out, size_t cap)
{
	int n = snprintf(out, cap,
			 "HTTP/1.1 %d %s\r\nContent-Type: text/plain\r\nContent-Length: %zu\r\n"
			 "Connection: close\r\n\r\n%s",
			 status, hp_reason(status), strlen(body), body);
	if (n < 0 || (size_t)n >= cap)
		return -ENOSPC;
	return n;
}
