/* fuzz_http.c: the head scanner fed in two pieces, the parser and the
 * rebuild on any bytes.  An accepted forward request rebuilds into a head
 * that ends once, with CRLFCRLF, and carries no NUL and no bare LF.  The
 * bytes after a chunked request's head go through the chunked parser in
 * two pieces: an accepted body rebuilds into one the parser accepts again,
 * unchanged (what the server reads is what was checked).  Any input taken
 * as a response head is rewritten into one head that says Connection:
 * close.  An upgrade request has no body, an Upgrade value within bounds,
 * and rebuilds with Connection: Upgrade (any other with Connection:
 * close); a 101 is never a switch when nothing was offered, and an
 * accepted one names protocols only, within bounds. */
#include <errno.h>
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

/* The 101 check with offer[0..offer_len) on the head buf[0..hl). */
static void fz_switch(const char *b, size_t hl, const char *offer, size_t offer_len)
{
	char chosen[HTTP_UPGRADE_MAX + 1];
	int r = http_response_switch(b, hl, offer, offer_len, chosen);
	if (offer_len == 0 && r != -EPERM)
		abort();
	if (r != 0)
		return;
	size_t n = strlen(chosen);
	if (n == 0 || n > HTTP_UPGRADE_MAX || memcmp(b + 8, " 101", 4) != 0)
		abort();
	for (size_t i = 0; i < n; i++)
		if (chosen[i] < 0x21 && chosen[i] != ' ' && chosen[i] != '\t')
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
	fz_switch(b, hl, "websocket, h2c/2", 16);
	fz_switch(b, hl, "", 0);
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
	if (r.upgrade_len &&
	    (r.upgrade_len > HTTP_UPGRADE_MAX || r.upgrade_off + r.upgrade_len > r.head_len ||
	     r.minor != 1 || r.body == HTTP_BODY_CHUNKED ||
	     (r.body == HTTP_BODY_LENGTH && r.content_length != 0)))
		abort();
	if (r.ws_uri && !r.upgrade_len)
		abort();
	if (r.body == HTTP_BODY_CHUNKED)
		fz_chunked(b + n, size - (size_t)n);
	/* What follows an upgrade request's head, as the server's answer to
	 * its offer. */
	const char *after = b + n;
	size_t alen = size - (size_t)n;
	const char *aend = r.upgrade_len && alen >= 4 ? memmem(after, alen, "\r\n\r\n", 4) : NULL;
	if (aend)
		fz_switch(after, (size_t)(aend - after) + 4, b + r.upgrade_off, r.upgrade_len);
	ssize_t m = http_rebuild(b, &r, rebuilt, sizeof(rebuilt));
	static const char up_end[] = "\r\nConnection: Upgrade\r\n\r\n", close_end[] = "\r\nConnection: close\r\n\r\n";
	const char *want = r.upgrade_len ? up_end : close_end;
	size_t wl = strlen(want);
	if (m < 4 || memchr(rebuilt, '\0', (size_t)m) || (size_t)m < wl ||
	    memcmp(rebuilt + m - wl, want, wl) != 0)
		abort();
	struct http_scan sc2 = { 0, 0 };
	if (http_scan_head(&sc2, rebuilt, (size_t)m) != (int)m)
		abort();
	return 0;
}
