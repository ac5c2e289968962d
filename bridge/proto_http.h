/* proto_http.h: the head of an HTTP proxy request, as written by the
 * sandboxed command: CONNECT host:port (HTTP/1.0 or 1.1) or an absolute-URI
 * request (GET http://host[:port]/path ..., or ws:// for an upgrade).
 *
 * An absolute-URI request may ask to switch protocols (Connection:
 * upgrade, Upgrade: websocket): it is decided like any other, carries no
 * body, and its Upgrade is forwarded with Connection: Upgrade; the server's
 * 101 is checked against what was offered (http_response_switch).
 *
 * The decision is taken on the CONNECT authority or the URI's authority,
 * never on a Host header; any form two parsers could read two ways is
 * refused (userinfo, '#' or '\' in the target, a Host that disagrees,
 * duplicate Content-Length, Content-Length with Transfer-Encoding, bare LF,
 * NUL, obs-fold).  For a forwarded request the outgoing head is rebuilt
 * from the parsed parts, so what the server reads is what was checked.
 *
 * Belongs here: the bounded scanner and parser, and the rebuild
 * (proto_http.c); the response side (proto_http_response.c).  Both use the
 * tokens of http_lex.h.  Pure. */
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
/* An Upgrade value (the protocols a request offers) longer than this: 400.
 * "websocket" is 9 bytes; a list this long is no client's. */
#define HTTP_UPGRADE_MAX 128

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
	/* An HTTP/1.1 HTTP_FORWARD request that asks to switch protocols
	 * (Connection: upgrade and one Upgrade header): the Upgrade value's
	 * span, trimmed, at most HTTP_UPGRADE_MAX; upgrade_len 0 otherwise
	 * (an Upgrade header is then not forwarded). */
	size_t upgrade_off, upgrade_len;
	int ws_uri;                /* the URI said ws:// (taken only with an upgrade) */
};

/* http_parse_head's refusals besides -400 (malformed or ambiguous) and
 * -414: forms that are well made but not served, each with its own words. */
#define HTTP_E_HTTPS (-1000)        /* an https:// or wss:// absolute URI */
#define HTTP_E_UPGRADE_BODY (-1001) /* an upgrade request with a body */
#define HTTP_E_UPGRADE (-1002)      /* a bad Upgrade header, or ws:// without an upgrade */

/* Parse a complete head buf[0..head_len) (as found by http_scan_head).
 * 0 with *r filled, or -400, -414, HTTP_E_HTTPS, HTTP_E_UPGRADE_BODY or
 * HTTP_E_UPGRADE. */
int http_parse_head(const char *buf, size_t head_len, struct http_req *r)
	__attribute__((warn_unused_result));

/* What the client is told for http_parse_head's refusal err: the status
 * (400 or 414), the log's reason word and the body (static strings). */
struct http_refusal {
	int status;
	const char *reason, *body;
};
struct http_refusal http_refusal(int err);

/* The head to send to the server for an HTTP_FORWARD request: request line
 * "METHOD /path HTTP/1.x", Host from the checked authority, the client's
 * headers without hop-by-hop and proxy ones (Host, Connection,
 * Proxy-Connection, Keep-Alive, Proxy-Authorization, and Upgrade unless
 * the request asks to upgrade), and "Connection: close", or for an upgrade
 * "Connection: Upgrade".  Returns its length, or -ENOSPC when cap is too
 * small (HTTP_REBUILT_MAX always suffices). */
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

/* A 101 head buf[0..len) (CRLFCRLF included) to a request that offered
 * the protocols offer[0..offer_len) (its Upgrade value; offer_len 0: it
 * asked for no upgrade).  0 when the switch is the one asked for: one
 * Upgrade header naming only protocols offered (names and versions
 * compared without case), its value copied to chosen (HTTP_UPGRADE_MAX + 1
 * bytes, NUL-terminated).  -EPERM when nothing was offered (a server must
 * not switch unasked); -EPROTO when the 101 names no protocol, one not
 * offered, or is malformed. */
int http_response_switch(const char *buf, size_t len, const char *offer, size_t offer_len,
			 char *chosen) __attribute__((warn_unused_result));

/* How the body of the final response head buf[0..len) ends (to a HEAD
 * request when head_req): none (204, 304, HEAD), Content-Length, chunked,
 * or the connection's end (a 101, whatever the method, or any other
 * Transfer-Encoding).  0, or -EPROTO when both are given, or two
 * Content-Lengths, or one that is not a number: a client could read such
 * a response two ways. */
int http_response_frame(const char *buf, size_t len, int head_req, enum http_body *body,
			unsigned long long *length) __attribute__((warn_unused_result));

/* A complete response with status (403, 400, ...), a short text body and
 * Connection: close; the body is the reason line given.  Returns its length
 * or -ENOSPC. */
ssize_t http_response(int status, const char *body, char *out, size_t cap);

#endif
