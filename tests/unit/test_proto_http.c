/* test_proto_http.c: the head scanner, the parser's accepted forms and each
 * ambiguous or malformed form it refuses, and the rebuilt head. */
#include <criterion/criterion.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "proto_http.h"

static int scan_all(const char *s, size_t len)
{
	struct http_scan sc = { 0, 0 };
	return http_scan_head(&sc, s, len);
}

static int parse(const char *s, struct http_req *r)
{
	size_t len = strlen(s);
	int n = scan_all(s, len);
	if (n <= 0)
		return n == 0 ? -1 : n;
	cr_assert_eq((size_t)n, len, "head ends early in test input");
	return http_parse_head(s, (size_t)n, r);
}

static void bad(const char *s)
{
	struct http_req r;
	int rc = parse(s, &r);
	cr_assert_eq(rc, -400, "accepted or wrong status %d: %s", rc, s);
}

Test(http_scan, incremental_and_terminator)
{
	const char *h = "CONNECT a.test:443 HTTP/1.1\r\nHost: a.test:443\r\n\r\nBODY";
	struct http_scan sc = { 0, 0 };
	size_t total = strlen(h);
	int n = 0;
	for (size_t len = 1; len <= total && n == 0; len++)
		n = http_scan_head(&sc, h, len);
	cr_assert_eq(n, (int)(total - 4));
}

Test(http_scan, refusals)
{
	cr_assert_eq(scan_all("GET http://a/ HTTP/1.1\n\n", 24), -400, "bare LF");
	cr_assert_eq(scan_all("GET http://a/ HTTP/1.1\r\nX: a\nb\r\n\r\n", 34), -400, "bare LF in header");
	cr_assert_eq(scan_all("GET http://a/\0 HTTP/1.1\r\n\r\n", 27), -400, "NUL");
	char *big = malloc(HTTP_HEAD_MAX + 10);
	memset(big, 'a', HTTP_HEAD_MAX + 10);
	cr_assert_eq(scan_all(big, HTTP_LINE_MAX - 1), 0);
	cr_assert_eq(scan_all(big, HTTP_LINE_MAX), -414);
	memcpy(big, "GET / HTTP/1.1\r\n", 16);
	cr_assert_eq(scan_all(big, HTTP_HEAD_MAX - 1), 0);
	cr_assert_eq(scan_all(big, HTTP_HEAD_MAX), -431);
	cr_assert_eq(scan_all(big, HTTP_HEAD_MAX + 10), -431);
	free(big);
}

Test(http_parse, connect_forms)
{
	struct http_req r;
	cr_assert_eq(parse("CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n", &r), 0);
	cr_assert_eq(r.kind, HTTP_CONNECT);
	cr_assert_str_eq(r.host.text, "example.com");
	cr_assert_eq(r.port, 443);
	cr_assert_eq(r.minor, 1);
	/* pip and requests send HTTP/1.0 CONNECT, without Host. */
	cr_assert_eq(parse("CONNECT Example.com.:443 HTTP/1.0\r\n\r\n", &r), 0);
	cr_assert_str_eq(r.host.text, "example.com");
	cr_assert_eq(r.minor, 0);
	cr_assert_eq(parse("CONNECT [::1]:8080 HTTP/1.1\r\n\r\n", &r), 0);
	cr_assert_eq(r.host.kind, HOST_IPV6);
	cr_assert_eq(r.port, 8080);
	cr_assert_eq(parse("CONNECT 2130706433:80 HTTP/1.1\r\n\r\n", &r), 0);
	cr_assert_str_eq(r.host.text, "127.0.0.1");
	cr_assert_eq(parse("CONNECT [::ffff:127.0.0.1]:80 HTTP/1.1\r\n\r\n", &r), 0);
	cr_assert_eq(r.host.kind, HOST_IPV4);
}

Test(http_parse, connect_refusals)
{
	bad("CONNECT example.com HTTP/1.1\r\n\r\n");
	bad("CONNECT example.com: HTTP/1.1\r\n\r\n");
	bad("CONNECT example.com:0 HTTP/1.1\r\n\r\n");
	bad("CONNECT example.com:65536 HTTP/1.1\r\n\r\n");
	bad("CONNECT example.com:+443 HTTP/1.1\r\n\r\n");
	bad("CONNECT example.com:443/ HTTP/1.1\r\n\r\n");
	bad("CONNECT user@example.com:443 HTTP/1.1\r\n\r\n");
	bad("CONNECT ::1:443 HTTP/1.1\r\n\r\n");
	bad("CONNECT [fe80::1%25eth0]:443 HTTP/1.1\r\n\r\n");
	bad("CONNECT exa%6dple.com:443 HTTP/1.1\r\n\r\n");
	bad("CONNECT example.com:443 HTTP/1.1\r\nHost: other.com:443\r\n\r\n");
	bad("CONNECT example.com:443 HTTP/2.0\r\n\r\n");
	bad("CONNECT example.com:443  HTTP/1.1\r\n\r\n");
	bad("CONNECT  example.com:443 HTTP/1.1\r\n\r\n");
	bad("CONNECT example.com:443 HTTP/1.1 \r\n\r\n");
	bad("\r\n\r\n");
}

Test(http_parse, absolute_forms)
{
	struct http_req r;
	const char *h = "GET http://Example.com:8080/a/b?c=d HTTP/1.1\r\nHost: example.com:8080\r\n"
			"User-Agent: t\r\nProxy-Connection: keep-alive\r\nConnection: keep-alive\r\n"
			"Proxy-Authorization: Basic x\r\nAccept: */*\r\n\r\n";
	cr_assert_eq(parse(h, &r), 0);
	cr_assert_eq(r.kind, HTTP_FORWARD);
	cr_assert_str_eq(r.host.text, "example.com");
	cr_assert_eq(r.port, 8080);
	char out[HTTP_REBUILT_MAX];
	ssize_t n = http_rebuild(h, &r, out, sizeof(out));
	cr_assert_gt(n, 0);
	out[n] = '\0';
	cr_assert_str_eq(out, "GET /a/b?c=d HTTP/1.1\r\nHost: example.com:8080\r\nUser-Agent: t\r\n"
			      "Accept: */*\r\nConnection: close\r\n\r\n");
	cr_assert_eq(http_rebuild(h, &r, out, 20), -ENOSPC);

	const char *q = "POST HTTP://a.test?x HTTP/1.0\r\nContent-Length: 3\r\n\r\n";
	cr_assert_eq(parse(q, &r), 0);
	cr_assert_eq(r.port, 80);
	n = http_rebuild(q, &r, out, sizeof(out));
	out[n] = '\0';
	cr_assert_str_eq(out, "POST /?x HTTP/1.0\r\nHost: a.test\r\nContent-Length: 3\r\n"
			      "Connection: close\r\n\r\n");
	const char *v6 = "GET http://[::1]:81 HTTP/1.1\r\nHost: [::1]:81\r\nTransfer-Encoding: chunked\r\n\r\n";
	cr_assert_eq(parse(v6, &r), 0);
	n = http_rebuild(v6, &r, out, sizeof(out));
	out[n] = '\0';
	cr_assert_str_eq(out, "GET / HTTP/1.1\r\nHost: [::1]:81\r\nTransfer-Encoding: chunked\r\n"
			      "Connection: close\r\n\r\n");
	/* Host without a port agrees with any port of the URI. */
	cr_assert_eq(parse("GET http://a.test:81/ HTTP/1.1\r\nhost: A.TEST\r\n\r\n", &r), 0);
	/* obs-text in a value is allowed. */
	cr_assert_eq(parse("GET http://a.test/ HTTP/1.1\r\nX: \xe9t\xe9\r\n\r\n", &r), 0);
}

/* curl and urllib send a '\' or UTF-8 in the path or query as is, and a
 * server reached directly takes them: the path passes through unchanged. */
Test(http_parse, raw_path_bytes)
{
	struct http_req r;
	char out[HTTP_REBUILT_MAX];
	const char *h = "GET http://a.test:81/p/\xc3\xa9?q=a\\b HTTP/1.1\r\nHost: a.test:81\r\n\r\n";
	cr_assert_eq(parse(h, &r), 0);
	cr_assert_str_eq(r.host.text, "a.test");
	ssize_t n = http_rebuild(h, &r, out, sizeof(out));
	cr_assert_gt(n, 0);
	out[n] = '\0';
	cr_assert_str_eq(out, "GET /p/\xc3\xa9?q=a\\b HTTP/1.1\r\nHost: a.test:81\r\n"
			      "Connection: close\r\n\r\n");
	cr_assert_eq(parse("GET http://a.test?\\ HTTP/1.1\r\n\r\n", &r), 0);
	cr_assert_str_eq(r.host.text, "a.test");
	/* In an authority they stay refused, wherever it is written. */
	bad("GET http://a.test\\b.test/ HTTP/1.1\r\n\r\n");
	bad("GET http://a.test\\/ HTTP/1.1\r\n\r\n");
	bad("GET http://\xc3\xa9.test/ HTTP/1.1\r\n\r\n");
	bad("GET http://a.test:8\xc3\xa9/ HTTP/1.1\r\n\r\n");
	bad("CONNECT a.test\\:443 HTTP/1.1\r\n\r\n");
	bad("CONNECT \xc3\xa9.test:443 HTTP/1.1\r\n\r\n");
	bad("GET http://a.test/ HTTP/1.1\r\nHost: a.test\\\r\n\r\n");
	bad("GET http://a.test/ HTTP/1.1\r\nHost: \xc3\xa9.test\r\n\r\n");
	bad("GET http://a.test/\xc3\xa9#x HTTP/1.1\r\n\r\n");
}

Test(http_parse, absolute_refusals)
{
	bad("GET /path HTTP/1.1\r\nHost: example.com\r\n\r\n");
	bad("GET https://example.com/ HTTP/1.1\r\n\r\n");
	bad("GET http://user@example.com/ HTTP/1.1\r\n\r\n");
	bad("GET http://user:pw@example.com/ HTTP/1.1\r\n\r\n");
	bad("GET http://allowed.test#@denied.test/ HTTP/1.1\r\n\r\n");
	bad("GET http://denied.test\\@allowed.test/ HTTP/1.1\r\n\r\n");
	bad("GET http://allowed.test/#x HTTP/1.1\r\n\r\n");
	bad("GET http://exa%6dple.com/ HTTP/1.1\r\n\r\n");
	bad("GET http:///x HTTP/1.1\r\n\r\n");
	bad("GET http://a.test:0/ HTTP/1.1\r\n\r\n");
	bad("GET http://a.test/ HTTP/1.1\r\nHost: b.test\r\n\r\n");
	bad("GET http://a.test/ HTTP/1.1\r\nHost: a.test:81\r\n\r\n");
	bad("GET http://a.test/ HTTP/1.1\r\nHost: a.test\r\nHost: a.test\r\n\r\n");
	bad("GET http://a.test/ HTTP/1.1\r\nHost: a.test@b.test\r\n\r\n");
	bad("POST http://a.test/ HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 1\r\n\r\n");
	bad("POST http://a.test/ HTTP/1.1\r\nContent-Length: 1\r\nTransfer-Encoding: chunked\r\n\r\n");
	bad("POST http://a.test/ HTTP/1.1\r\nTransfer-Encoding: chunked\r\nContent-Length: 1\r\n\r\n");
	bad("POST http://a.test/ HTTP/1.1\r\nTransfer-Encoding: gzip, chunked\r\n\r\n");
	bad("POST http://a.test/ HTTP/1.1\r\nContent-Length: -1\r\n\r\n");
	bad("POST http://a.test/ HTTP/1.1\r\nContent-Length: 1 2\r\n\r\n");
	bad("GET http://a.test/ HTTP/1.1\r\nX: a\r\n folded\r\n\r\n");
	bad("GET http://a.test/ HTTP/1.1\r\nX : a\r\n\r\n");
	bad("GET http://a.test/ HTTP/1.1\r\n: a\r\n\r\n");
	bad("GET http://a.test/ HTTP/1.1\r\nNoColon\r\n\r\n");
	bad("GET http://a.test/ HTTP/1.1\r\nX: a\rb\r\n\r\n");
	bad("GET http://a.test/\x7f HTTP/1.1\r\n\r\n");
	bad("G(T http://a.test/ HTTP/1.1\r\n\r\n");
	cr_assert_eq(scan_all("GET http://a.test/ HTTP/1.1\r\n\r", 29), 0, "incomplete: wait");
}

Test(http_response, body_and_length)
{
	char out[512];
	ssize_t n = http_response(403, "denied.test is not allowed\n", out, sizeof(out));
	cr_assert_gt(n, 0);
	out[n] = '\0';
	cr_assert(strstr(out, "HTTP/1.1 403 Forbidden\r\n") == out);
	cr_assert(strstr(out, "Content-Length: 27\r\n"));
	cr_assert(strstr(out, "\r\n\r\ndenied.test is not allowed\n"));
	cr_assert_eq(http_response(400, "x", out, 10), -ENOSPC);
}

Test(http_parse, body_framing)
{
	struct http_req r;
	cr_assert_eq(parse("GET http://a.test/ HTTP/1.1\r\n\r\n", &r), 0);
	cr_assert_eq(r.body, HTTP_BODY_NONE);
	cr_assert_eq(parse("POST http://a.test/ HTTP/1.1\r\nContent-Length: 12\r\n\r\n", &r), 0);
	cr_assert_eq(r.body, HTTP_BODY_LENGTH);
	cr_assert_eq(r.content_length, 12);
	cr_assert_eq(parse("PUT http://a.test/ HTTP/1.1\r\nTransfer-Encoding: Chunked\r\n\r\n", &r), 0);
	cr_assert_eq(r.body, HTTP_BODY_CHUNKED);
	bad("PUT http://a.test/ HTTP/1.1\r\nTransfer-Encoding: gzip, chunked\r\n\r\n");
}

/* The client's connection ends after one response: each final head says so. */
Test(http_response, close_rewrite)
{
	char out[512];
	int final = -1;
	const char *h = "HTTP/1.1 200 OK\r\nConnection: keep-alive\r\nKeep-Alive: timeout=5\r\n"
			"Content-Length: 2\r\nproxy-connection: x\r\n\r\n";
	ssize_t n = http_response_close(h, strlen(h), 0, out, sizeof(out), &final);
	cr_assert_gt(n, 0);
	out[n] = '\0';
	cr_assert_eq(final, 1);
	cr_assert_str_eq(out, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\n");
	h = "HTTP/1.1 100 Continue\r\n\r\n";
	n = http_response_close(h, strlen(h), 0, out, sizeof(out), &final);
	out[n] = '\0';
	cr_assert_eq(final, 0, "an interim head: the real one follows");
	cr_assert_str_eq(out, h);
	h = "HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\n";
	n = http_response_close(h, strlen(h), 0, out, sizeof(out), &final);
	out[n] = '\0';
	cr_assert_eq(final, 1);
	cr_assert_str_eq(out, h, "a 101 passes unchanged");
	h = "HTTP/1.0 204\r\n\r\n";
	n = http_response_close(h, strlen(h), 0, out, sizeof(out), &final);
	out[n] = '\0';
	cr_assert_str_eq(out, "HTTP/1.0 204\r\nConnection: close\r\n\r\n");
	static const char *const bad_heads[] = {
		"HTTP/2 200 OK\r\n\r\n", "HTTP/1.1 2x0 OK\r\n\r\n", "HTTP/1.1 200 OK\nX: 1\r\n\r\n",
		"SSH-2.0-OpenSSH\r\n\r\n", "HTTP/1.1 200OK\r\n\r\n",
		"HTTP/1.1 200 OK\r\nX: a\rConnection: keep-alive\r\n\r\n",
	};
	for (size_t i = 0; i < sizeof(bad_heads) / sizeof(bad_heads[0]); i++)
		cr_assert_eq(http_response_close(bad_heads[i], strlen(bad_heads[i]), 0, out,
						 sizeof(out), &final), -EPROTO, "%s", bad_heads[i]);
	h = "HTTP/1.1 200 OK\r\n\r\n";
	cr_assert_eq(http_response_close(h, strlen(h), 0, out, 20, &final), -ENOSPC);
}

/* Keep-alive: the client's wish, the response's end, the rewrite. */
Test(http_response, keep_alive)
{
	struct http_req r;
	cr_assert_eq(parse("GET http://a.test/ HTTP/1.1\r\n\r\n", &r), 0);
	cr_assert(r.keep, "HTTP/1.1 keeps by default");
	cr_assert_eq(parse("GET http://a.test/ HTTP/1.1\r\nProxy-Connection: Keep-Alive, Close\r\n\r\n", &r), 0);
	cr_assert_not(r.keep);
	cr_assert_eq(parse("GET http://a.test/ HTTP/1.0\r\n\r\n", &r), 0);
	cr_assert_not(r.keep, "HTTP/1.0 closes by default");
	cr_assert_eq(parse("GET http://a.test/ HTTP/1.0\r\nConnection: keep-alive\r\n\r\n", &r), 0);
	cr_assert(r.keep);

	enum http_body body;
	unsigned long long len;
#define FRAME(h, head) http_response_frame((h), strlen(h), (head), &body, &len)
	cr_assert_eq(FRAME("HTTP/1.1 200 OK\r\nContent-Length: 42\r\n\r\n", 0), 0);
	cr_assert_eq(body, HTTP_BODY_LENGTH);
	cr_assert_eq(len, 42);
	cr_assert_eq(FRAME("HTTP/1.1 200 OK\r\nContent-Length: 42\r\n\r\n", 1), 0);
	cr_assert_eq(body, HTTP_BODY_NONE, "a response to HEAD has no body");
	cr_assert_eq(FRAME("HTTP/1.1 204 No Content\r\n\r\n", 0), 0);
	cr_assert_eq(body, HTTP_BODY_NONE);
	cr_assert_eq(FRAME("HTTP/1.1 304 Not Modified\r\nContent-Length: 9\r\n\r\n", 0), 0);
	cr_assert_eq(body, HTTP_BODY_NONE);
	cr_assert_eq(FRAME("HTTP/1.1 200 OK\r\ntransfer-encoding: Chunked\r\n\r\n", 0), 0);
	cr_assert_eq(body, HTTP_BODY_CHUNKED);
	cr_assert_eq(FRAME("HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, chunked\r\n\r\n", 0), 0);
	cr_assert_eq(body, HTTP_BODY_CLOSE);
	cr_assert_eq(FRAME("HTTP/1.0 200 OK\r\n\r\n", 0), 0);
	cr_assert_eq(body, HTTP_BODY_CLOSE, "no length: until the server closes");
	cr_assert_eq(FRAME("HTTP/1.1 101 Switching Protocols\r\nUpgrade: x\r\n\r\n", 0), 0);
	cr_assert_eq(body, HTTP_BODY_CLOSE);
	cr_assert_eq(FRAME("HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 1\r\n\r\n", 0), -EPROTO);
	cr_assert_eq(FRAME("HTTP/1.1 200 OK\r\nContent-Length: 1\r\nTransfer-Encoding: chunked\r\n\r\n", 0), -EPROTO);
	cr_assert_eq(FRAME("HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n", 0), -EPROTO);
#undef FRAME
	char out[256];
	int final;
	const char *h = "HTTP/1.0 200 OK\r\nConnection: close\r\nContent-Length: 2\r\n\r\n";
	ssize_t n = http_response_close(h, strlen(h), 1, out, sizeof(out), &final);
	out[n] = '\0';
	cr_assert_str_eq(out, "HTTP/1.0 200 OK\r\nContent-Length: 2\r\nConnection: keep-alive\r\n\r\n");
	h = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n";
	n = http_response_close(h, strlen(h), 1, out, sizeof(out), &final);
	out[n] = '\0';
	cr_assert_str_eq(out, h);
}
