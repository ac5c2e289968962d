/* http_lex.h: the tokens of HTTP/1.1 heads that the request parser
 * (proto_http.c) and the response checks (proto_http_response.c) share,
 * and the bounded writer both rebuild heads with.  Pure. */
#ifndef CORDON_BRIDGE_HTTP_LEX_H
#define CORDON_BRIDGE_HTTP_LEX_H

#include <stddef.h>

/* 1 if c is a tchar of RFC 7230 3.2.6. */
int http_lex_tchar(unsigned char c);

/* s[0..len) as a decimal of 1 to max_digits digits: 0, else -1. */
int http_lex_digits(const char *s, size_t len, unsigned max_digits, unsigned long long *v)
	__attribute__((warn_unused_result));

/* Optional whitespace (SP, HTAB) off both ends of v[0..len). */
void http_lex_trim(const char **v, size_t *len);

/* 1 if the header name n[0..nlen) is want, without case. */
int http_lex_name_is(const char *n, size_t nlen, const char *want);

/* The next element of a protocol list v[0..len) (RFC 7230 6.7:
 * 1#protocol, protocol = token ["/" token]), from *pos on: 1 with its
 * span, 0 past the last one, -1 for one that is empty or not a protocol.
 * *pos starts at 0. */
int http_lex_protocol_next(const char *v, size_t len, size_t *pos, const char **p, size_t *plen);

/* A well-formed protocol list of 1 to HTTP_UPGRADE_MAX bytes: 0, else -1. */
int http_lex_protocol_list(const char *v, size_t len);

/* A head written into p[0..cap): a write that does not fit sets full and
 * every later one is dropped, so one check at the end covers them all. */
struct http_out {
	char *p;
	size_t cap, n;
	int full;
};

void http_out_put(struct http_out *o, const char *s, size_t len);
void http_out_puts(struct http_out *o, const char *s);

#endif
