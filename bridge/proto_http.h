/* proto_http.h: the head of an HTTP proxy request, as written by the
 * sandboxed command: CONNECT host:port (HTTP/1.0 or 1.1) or an absolute-URI
 * request (GET http://host[:port]/path ...).
 *
 * The decision is taken on the CONNECT authority or the URI's authority,
 * never on a Host header; any form two parsers could read two ways is
 * refused (userinfo, '#' or '\' in the target, a Host that disagrees,
 * duplicate Content-Length, Content-Length with Transfer-Encoding, bare LF,
 * NUL, obs-fold).  For a forwarded request the outgoing head is rebuilt
 * from the parsed parts, so what the server reads is what was checked.
 *
 * Belongs here: the bounded scanner and parser, and the rebuild.  Pure. */
#ifndef CORDON_BRIDGE_PROTO_HTTP_H
#define CORDON_BRIDGE_PROTO_HTTP_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "host.h"

#define HTTP_HEAD_MAX 65536  /* a head longer than this: 431 */
#define HTTP_LINE_MAX 8192   /* a request line longer than this: 414 */
/* The rebuilt head: the original's headers plus a request line, Host and
 * Connection of bounded size. */
#define HTTP_REBUILT_MAX (HTTP_HEAD_MAX + 512)

/* Where the incremental scan stopped; zero it for a new connection. */
struct http_scan {
	size_t pos;
	size_t line_end; /* end of the request line once seen (0: not yet) */
};

/* Scan buf[0..len) (the bytes read so far; earlier bytes unchanged) for the
 * end of the head.  0: need more; >0: the head's length, final CRLFCRLF
 * included; <0: -400 (NUL, bare LF), -414 (request line too long) or -431
 * (head too long).  Each byte is looked at once across calls. */
int http_scan_head(struct http_scan *s, const char *buf, size_t len);

enum http_kind { HTTP_CONNECT = 1, HTTP_FORWARD };

/* How a message's body ends: none, after a length, at a chunked body's
 * end, or (responses only) at the connection's end. */
enum http_body { HTTP_BODY_NONE = 0, HTTP_BODY_LENGTH, HTTP_BODY_CHUNKED, HTTP_BODY_CLOSE };

struct http_req {
	enum http_kind kind;
	struct host host;
	uint16_t port;
	unsigned minor;            /* HTTP/1.minor */
	size_t head_len;
	/* HTTP_FORWARD: spans of the head the outgoing head is built from. */
	size_t method_off, method_len;
	size_t path_off, path_len; /* after the authority; empty means "/" */
	size_t hdr_off, hdr_len;   /* header lines, each with its CRLF */
	/* The request body: none, content_length bytes, or chunked. */
	enum http_body body;
	unsigned long long content_length;
	int keep;                  /* the client may send another request after this one */
};

/* Parse a complete head buf[0..head_len) (as found by http_scan_head).
 * 0 with *r filled, or -400 on any malformed or ambiguous form. */
int http_parse_head(const char *buf, size_t head_len, struct http_req *r)
	__attribute__((warn_unused_result));

/* The head to send to the server for an HTTP_FORWARD request: request line
 * "METHOD /path HTTP/1.x", Host from the checked authority, the client's
 * headers without hop-by-hop and proxy ones (Host, Connection,
 * Proxy-Connection, Keep-Alive, Proxy-Authorization), and "Connection:
 * close".  Returns its length, or -ENOSPC when cap is too small
 * (HTTP_REBUILT_MAX always suffices). */
ssize_t http_rebuild(const char *buf, const struct http_req *r, char *out, size_t cap);

/* A response head buf[0..len) (CRLFCRLF included) from the server of a
 * forwarded request, for the client: the status line and headers kept but
 * Connection, Keep-Alive and Proxy-Connection, and "Connection: close"
 * added unless keep (the bridge closes the client's connection after this
 * response); with keep, an HTTP/1.0 head says "Connection: keep-alive"
 * (the hop to the client is the bridge's, and it keeps it).  *final is 0 for an interim 1xx head (another
 * follows), else 1; a 101 passes unchanged (a tunnel from then on).  Its
 * length, or -EPROTO (not an HTTP/1.x status line, a bare LF or CR, a NUL)
 * or -ENOSPC (cap below len + 32). */
ssize_t http_response_close(const char *buf, size_t len, int keep, char *out, size_t cap,
			    int *final) __attribute__((warn_unused_result));

/* How the body of the final response head buf[0..len) ends (to a HEAD
 * request when head_req): none (204, 304, HEAD), Content-Length, chunked,
 * or the connection's end (a 101, or any other Transfer-Encoding).  0, or
 * -EPROTO when both are given, or two Content-Lengths, or one that is not
 * a number: a client could read such a response two ways. */
int http_response_frame(const char *buf, size_t len, int head_req, enum http_body *body,
			unsigned long long *length) __attribute__((warn_unused_result));

/* A complete response with status (403, 400, ...), a short text body and
 * Connection: close; the body is the reason line given.  Returns its length
 * or -ENOSPC. */
ssize_t http_response(int status, const char *body, char *out, size_t cap);

#endif
