/* chunked.h: a chunked request body (RFC 9112 section 7.1), checked as it
 * passes from the sandboxed command to the server of an absolute-form
 * request, never relayed blindly: a server that reads a malformed size
 * differently from the next hop (a smuggled request) must never see one.
 *
 * What the server gets is rebuilt: each size line as bare lowercase hex
 * (chunk extensions, which no server needs, dropped), the data and the
 * trailer lines as they came.  Refused with 400: a size that is not hex,
 * longer than CHUNKED_SIZE_DIGITS digits (overflow), a size line longer
 * than CHUNKED_LINE_MAX (extension abuse) or with a control byte, a bare
 * LF or CR, data not followed by CRLF, a trailer that is not a header line
 * (obs-fold included) or names Content-Length, Transfer-Encoding or Host,
 * trailers over CHUNKED_TRAILERS_MAX in all.
 *
 * Belongs here: the bounded incremental parser.  Pure. */
#ifndef CORDON_BRIDGE_CHUNKED_H
#define CORDON_BRIDGE_CHUNKED_H

#include <stddef.h>
#include <stdint.h>

#define CHUNKED_SIZE_DIGITS 15      /* < 2^60 bytes: no overflow possible */
#define CHUNKED_LINE_MAX 1024       /* a size line with its extensions */
#define CHUNKED_TRAILER_LINE_MAX ((size_t)8192)
#define CHUNKED_TRAILERS_MAX 65536  /* as the head */
#define CHUNKED_SLACK 32            /* out may exceed in by this much */

struct chunked {
	int st;
	uint64_t size;    /* the size being read, then the data left */
	unsigned digits;
	size_t line;      /* bytes of the current size or trailer line */
	size_t trailers;  /* trailer bytes so far */
	char name[24];    /* the start of the current trailer line */
};

enum chunked_result { CHUNKED_BAD = -1, CHUNKED_MORE = 0, CHUNKED_DONE = 1 };

/* Zero it for a new body. */
void chunked_init(struct chunked *k);

/* Feed in[0..len).  Writes what the server gets into out (room for
 * len + CHUNKED_SLACK bytes), its length into *outlen, and how much of in
 * was body into *used (the rest, after the body's end, is not this
 * body's).  CHUNKED_MORE: the body goes on; CHUNKED_DONE: it ended (and
 * out holds its last bytes); CHUNKED_BAD: malformed, out is not to be sent.
 * After DONE or BAD every call returns the same. */
enum chunked_result chunked_feed(struct chunked *k, const char *in, size_t len, size_t *used,
				 char *out, size_t *outlen);

#endif
