/* fuzz_upstream_reply.c: upstream_reply, the reader of the upstream proxy's
 * answer to a CONNECT, on any bytes, whole and as a growing prefix (as the
 * bridge calls it while bytes arrive).  A verdict is one of: need more (0),
 * a 2xx head of n bytes ending in CRLFCRLF within the input and the cap,
 * -400..-599 for a refusal that says so, or -502.  Once a prefix has a
 * verdict, every longer input has the same one: bytes after the head
 * (the tunnel's first bytes) never change what the head said. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "upstream.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_one(const char *b, size_t len, int r)
{
	if (r > 0) {
		if ((size_t)r > len || r < 12 || memcmp(b + r - 4, "\r\n\r\n", 4) != 0 ||
		    memcmp(b, "HTTP/1.", 7) != 0 || b[9] != '2')
			abort();
	} else if (r < 0 && r != -502 && (r > -400 || r < -599)) {
		abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* A copy of exactly size bytes: ASan sees any read past the input. */
	char *b = malloc(size ? size : 1);
	if (!b)
		return 0;
	memcpy(b, data, size);
	int whole = upstream_reply(b, size);
	check_one(b, size, whole);
	int first = 0;
	size_t step = size / 7 + 1;
	for (size_t n = 0; n <= size; n += step) {
		int r = upstream_reply(b, n);
		check_one(b, n, r);
		if (first == 0 && r != 0)
			first = r;
		if (first != 0 && r != first)
			abort();
	}
	if (first != 0 && whole != first)
		abort();
	free(b);
	return 0;
}
