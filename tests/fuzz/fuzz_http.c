/* fuzz_http.c: the head scanner fed in two pieces, the parser and the
 * rebuild on any bytes.  An accepted forward request rebuilds into a head
 * that ends once, with CRLFCRLF, and carries no NUL and no bare LF.  The
 * bytes after a chunked request's head go through the chunked parser in
 * two pieces: an accepted body rebuilds into one the parser accepts again,
 * unchanged (what the server reads is what was checked).  Any input taken
 * as a response head is rewritten into one head that says Connection:
 * close. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "chunked.h"
#include "proto_http.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char rebuilt[HTTP_REBUILT_MAX];

static char body1[65536 * 2 + 2 * CHUNKED_SLACK], body2[sizeof(body1) + CHUNKED_SLACK];

static void fz_chunked(const char *b, size_t len)
{
	struct chunked k;
	size_t used1, used2, o1, o2;
	chunked_init(&k);
	if (len > 65536 * 2)
		len = 65536 * 2;
	enum chunked_result r = chunked_feed(&k, b, len / 2, &used1, body1, &o1);
	if (r == CHUNKED_MORE) {
		r = chunked_feed(&k, b + len / 2, len - len / 2, &used2, body1 + o1, &o2);
		o1 += o2;
	}
	if (r != CHUNKED_DONE)
		return;
	chunked_init(&k);
	if (chunked_feed(&k, body1, o1, &used2, body2, &o2) != CHUNKED_DONE || used2 != o1 ||
	    o2 != o1 || memcmp(body1, body2, o1) != 0)
		abort();
}

static void fz_response(const char *b, size_t size)
{
	static const char close_end[] = "Connection: close\r\n\r\n";
	const char *end = size >= 4 ? memmem(b, size < HTTP_HEAD_MAX ? size : HTTP_HEAD_MAX,
					     "\r\n\r\n", 4) : NULL;
	int final;
	if (!end)
		return;
	size_t hl = (size_t)(end - b) + 4;
	enum http_body body;
	unsigned long long len;
	(void)http_response_frame(b, hl, size & 1, &body, &len);
	ssize_t m = http_response_close(b, hl, 0, rebuilt, hl + 64, &final);
	if (m < 0)
		return;
	struct http_scan sc = { 0, 0 };
	if (m < 4 || (final && b[9] != '1' && !memmem(rebuilt, (size_t)m, close_end, sizeof(close_end) - 1)) ||
	    http_scan_head(&sc, rebuilt, (size_t)m) != (int)m)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *b = (const char *)data;
	if (size >= 5 && memcmp(b, "HTTP/", 5) == 0)
		fz_response(b, size);
	struct http_scan sc = { 0, 0 };
	int n = http_scan_head(&sc, b, size / 2);
	if (n == 0)
		n = http_scan_head(&sc, b, size);
	if (n <= 0)
		return 0;
	struct http_req r;
	if (http_parse_head(b, (size_t)n, &r) != 0)
		return 0;
	if (r.port == 0 || r.head_len != (size_t)n)
		abort();
	if (r.kind != HTTP_FORWARD)
		return 0;
	if (r.body == HTTP_BODY_CHUNKED)
		fz_chunked(b + n, size - (size_t)n);
	ssize_t m = http_rebuild(b, &r, rebuilt, sizeof(rebuilt));
	if (m < 4 || memchr(rebuilt, '\0', (size_t)m))
		abort();
	struct http_scan sc2 = { 0, 0 };
	if (http_scan_head(&sc2, rebuilt, (size_t)m) != (int)m)
		abort();
	return 0;
}
