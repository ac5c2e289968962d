/* http_lex.c: see http_lex.h. */
#include "http_lex.h"

#include <string.h>
#include <strings.h>

#include "proto_http.h"

int http_lex_tchar(unsigned char c)
{
	if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'))
		return 1;
	return c && strchr("!#$%&'*+-.^_`|~", c) != NULL;
}

int http_lex_digits(const char *s, size_t len, unsigned max_digits, unsigned long long *v)
{
	if (len == 0 || len > max_digits)
		return -1;
	unsigned long long acc = 0;
	for (size_t i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		acc = acc * 10 + (unsigned)(s[i] - '0');
	}
	*v = acc;
	return 0;
}


/* Optional whitespace around a header value. */
void http_lex_trim(const char **v, size_t *len)
{
	while (*len && (**v == ' ' || **v == '\t'))
		(*v)++, (*len)--;
	while (*len && ((*v)[*len - 1] == ' ' || (*v)[*len - 1] == '\t'))
		(*len)--;
}

int http_lex_name_is(const char *n, size_t nlen, const char *want)
{
	return nlen == strlen(want) && strncasecmp(n, want, nlen) == 0;
}


/* The next element of a protocol list v[0..len) (RFC 7230 6.7:
 * 1#protocol, protocol = token ["/" token]), from *pos on: 1 with its
 * span, 0 past the last one, -1 for one that is empty or not a protocol.
 * *pos starts at 0. */
int http_lex_protocol_next(const char *v, size_t len, size_t *pos, const char **p, size_t *plen)
{
	if (*pos > len)
		return 0;
	const char *comma = memchr(v + *pos, ',', len - *pos);
	size_t end = comma ? (size_t)(comma - v) : len;
	const char *t = v + *pos;
	size_t n = end - *pos, slash = 0;
	*pos = comma ? end + 1 : len + 1;
	http_lex_trim(&t, &n);
	for (size_t i = 0; i < n; i++) {
		if (t[i] == '/' && i > 0 && !slash)
			slash = i;
		else if (!http_lex_tchar((unsigned char)t[i]))
			return -1;
	}
	if (n == 0 || (slash && slash == n - 1))
		return -1;
	*p = t;
	*plen = n;
	return 1;
}

/* A well-formed protocol list of 1 to HTTP_UPGRADE_MAX bytes: 0, else -1. */
int http_lex_protocol_list(const char *v, size_t len)
{
	size_t pos = 0, n;
	const char *p;
	int r;
	if (len == 0 || len > HTTP_UPGRADE_MAX)
		return -1;
	while ((r = http_lex_protocol_next(v, len, &pos, &p, &n)) > 0)
		;
	return r;
}


void http_out_put(struct http_out *o, const char *s, size_t len)
{
	if (o->full || len > o->cap - o->n) {
		o->full = 1;
		return;
	}
	memcpy(o->p + o->n, s, len);
	o->n += len;
}

void http_out_puts(struct http_out *o, const char *s)
{
	http_out_put(o, s, strlen(s));
}
