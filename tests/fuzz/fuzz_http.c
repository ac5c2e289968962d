/* fuzz_http.c: the head scanner fed in two pieces, the parser and the
 * rebuild on any bytes.  An accepted forward request rebuilds into a head
 * that ends once, with CRLFCRLF, and carries no NUL and no bare LF. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "proto_http.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char rebuilt[HTTP_REBUILT_MAX];

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *b = (const char *)data;
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
	ssize_t m = http_rebuild(b, &r, rebuilt, sizeof(rebuilt));
	if (m < 4 || memchr(rebuilt, '\0', (size_t)m))
		abort();
	struct http_scan sc2 = { 0, 0 };
	if (http_scan_head(&sc2, rebuilt, (size_t)m) != (int)m)
		abort();
	return 0;
}
