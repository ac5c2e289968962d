/* test_chunked.c: the chunked request body parser: what passes (rebuilt),
 * what is refused, and that any split of the input gives the same. */
#include <criterion/criterion.h>

#include <string.h>

#include "chunked.h"

/* Feed s in pieces of step bytes; the result, and the output in out. */
static enum chunked_result feed(const char *s, size_t len, size_t step, char *out, size_t *outlen,
				size_t *used_total)
{
	struct chunked k;
	chunked_init(&k);
	enum chunked_result r = CHUNKED_MORE;
	size_t at = 0;
	*outlen = 0;
	while (at < len && r == CHUNKED_MORE) {
		size_t n = len - at < step ? len - at : step, used, o;
		char buf[4096 + CHUNKED_SLACK];
		r = chunked_feed(&k, s + at, n, &used, buf, &o);
		cr_assert_leq(o, n + CHUNKED_SLACK);
		cr_assert_leq(used, n);
		if (r != CHUNKED_BAD) {
			memcpy(out + *outlen, buf, o);
			*outlen += o;
		}
		at += used;
		if (r == CHUNKED_MORE)
			cr_assert_eq(used, n, "the body goes on: all of it is used");
	}
	*used_total = at;
	return r;
}

/* body_len 0: all of in is the body. */
static void expect_pass(const char *in, const char *want, size_t body_len)
{
	static const size_t steps[] = { 1, 2, 3, 7, 4096 };
	for (size_t s = 0; s < sizeof(steps) / sizeof(steps[0]); s++) {
		char out[8192];
		size_t olen, used;
		enum chunked_result r = feed(in, strlen(in), steps[s], out, &olen, &used);
		cr_assert_eq(r, CHUNKED_DONE, "'%s' step %zu", in, steps[s]);
		out[olen] = '\0';
		cr_assert_str_eq(out, want, "step %zu", steps[s]);
		cr_assert_eq(used, body_len ? body_len : strlen(in), "'%s': the body ends where it ends", in);
	}
}

static void expect_bad(const char *in, size_t len)
{
	static const size_t steps[] = { 1, 5, 4096 };
	for (size_t s = 0; s < sizeof(steps) / sizeof(steps[0]); s++) {
		char out[1 << 17];
		size_t olen, used;
		cr_assert_eq(feed(in, len, steps[s], out, &olen, &used), CHUNKED_BAD, "'%.60s' step %zu",
			     in, steps[s]);
	}
}

Test(chunked, valid_bodies_pass_intact)
{
	expect_pass("0\r\n\r\n", "0\r\n\r\n", 5);
	expect_pass("5\r\nhello\r\n0\r\n\r\n", "5\r\nhello\r\n0\r\n\r\n", 15);
	expect_pass("A\r\n0123456789\r\n00\r\n\r\n", "a\r\n0123456789\r\n0\r\n\r\n", 21);
	/* Pipelined bytes after the body are not the body's. */
	expect_pass("1\r\nx\r\n0\r\n\r\nGET http://other.test/ HTTP/1.1\r\n\r\n", "1\r\nx\r\n0\r\n\r\n", 11);
	/* Extensions and whitespace before them: accepted, dropped. */
	expect_pass("3;name=\"v a\"\r\nabc\r\n0;x\r\n\r\n", "3\r\nabc\r\n0\r\n\r\n", 0);
	expect_pass("3 \t;e\r\nabc\r\n0\r\n\r\n", "3\r\nabc\r\n0\r\n\r\n", 0);
	/* Trailers pass as they came. */
	expect_pass("2\r\nhi\r\n0\r\nX-Checksum: abc\r\nX-B:\t1\r\n\r\n",
		    "2\r\nhi\r\n0\r\nX-Checksum: abc\r\nX-B:\t1\r\n\r\n", 0);
	/* Data may hold anything, CR LF and NUL included. */
	char in[] = "4\r\n\r\n\0\n\r\n0\r\n\r\n";
	char out[64];
	size_t olen, used;
	cr_assert_eq(feed(in, sizeof(in) - 1, 1, out, &olen, &used), CHUNKED_DONE);
	cr_assert_eq(olen, sizeof(in) - 1);
	cr_assert_eq(memcmp(out, in, olen), 0);
}

#define BAD(s) expect_bad((s), sizeof(s) - 1)

Test(chunked, malformed_sizes_refused)
{
	BAD("g\r\n");                      /* not hex */
	BAD("\r\n");                       /* no digits */
	BAD("-1\r\n");
	BAD("+1\r\n");
	BAD("0x5\r\nhello\r\n0\r\n\r\n");
	BAD("1000000000000000\r\n");       /* 16 digits: could overflow */
	BAD("ffffffffffffffffff\r\n");
	BAD("5\nhello\r\n0\r\n\r\n");       /* bare LF */
	BAD("5\rhello\r\n");               /* bare CR */
	BAD("5 5\r\nhello\r\n");           /* a space inside the size */
	BAD("5\r\nhelloXX0\r\n\r\n");       /* data not followed by CRLF */
	BAD("5\r\nhello\n0\r\n\r\n");
	BAD("5\r\nhello\r\n0\r\n\n");       /* bare LF at the end */
	BAD("1;\x01\r\nx\r\n0\r\n\r\n");   /* a control byte in an extension */
	BAD("1;a\nb\r\nx\r\n");
	BAD("1\r\nx\r\n0\r\n folded: 1\r\n\r\n");        /* obs-fold trailer */
	BAD("1\r\nx\r\n0\r\nno colon\r\n\r\n");
	BAD("1\r\nx\r\n0\r\n: empty name\r\n\r\n");
	BAD("1\r\nx\r\n0\r\nContent-Length: 5\r\n\r\n");  /* framing in a trailer */
	BAD("1\r\nx\r\n0\r\ntransfer-encoding: chunked\r\n\r\n");
	BAD("1\r\nx\r\n0\r\nHost: other.test\r\n\r\n");
	BAD("1\r\nx\r\n0\r\nX: a\x00b\r\n\r\n");
}

Test(chunked, bounded)
{
	static char big[CHUNKED_TRAILERS_MAX + 4096];
	/* Extension abuse: a size line past CHUNKED_LINE_MAX. */
	memset(big, 'a', sizeof(big));
	memcpy(big, "1;", 2);
	expect_bad(big, CHUNKED_LINE_MAX + 8);
	/* Leading zeros count toward the digits. */
	memset(big, '0', 20);
	memcpy(big + 20, "1\r\n", 3);
	expect_bad(big, 23);
	/* Trailers past CHUNKED_TRAILERS_MAX in all. */
	size_t n = 0;
	memcpy(big, "0\r\n", 3);
	n = 3;
	while (n + 100 < sizeof(big)) {
		memcpy(big + n, "X-Pad: ", 7);
		memset(big + n + 7, 'p', 91);
		memcpy(big + n + 98, "\r\n", 2);
		n += 100;
	}
	expect_bad(big, n);
	/* The largest size is accepted (its data never comes here). */
	struct chunked k;
	chunked_init(&k);
	size_t used, olen;
	char out[64];
	cr_assert_eq(chunked_feed(&k, "fffffffffffffff\r\nab", 19, &used, out, &olen), CHUNKED_MORE);
	cr_assert_eq(olen, 19);
	cr_assert_eq(memcmp(out, "fffffffffffffff\r\nab", 19), 0);
}
