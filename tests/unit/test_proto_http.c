/* test_proto_http.c: the head scanner, the parser's accepted forms and each
 * ambiguous or malformed form it refuses, and the rebuilt head. */
#include <criterion/criterion.h>

#include <errno.h>
#include <stdio.h>
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

/* Refused as a bad upgrade: a 400 whose words say what an upgrade needs. */
static void bad_upgrade(const char *s)
{
	struct http_req r;
	int rc = parse(s, &r);
	cr_assert_eq(rc, HTTP_E_UPGRADE, "accepted or wrong status %d: %s", rc, s);
	cr_assert_eq(http_refusal(rc).status, 400);
	cr_assert(strstr(http_refusal(rc).body, "Connection: Upgrade"), "%s", http_refusal(rc).body);
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
	cr_assert_eq(FRAME("HTTP/1.1 101 Switching Protocols\r\nUpgrade: x\r\nContent-Length: 0\r\n\r\n", 1), 0);
	cr_assert_eq(body, HTTP_BODY_CLOSE, "after a 101, even to HEAD, the connection is a stream");
	cr_assert_eq(FRAME("HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 1\r\n\r\n", 0), -EPROTO);
	cr_assert_eq(FRAME("HTTP/1.1 200 OK\r\nContent-Length: 1\r\nTransfer-Encoding: chunked\r\n\r\n", 0), -EPROTO);
	cr_assert_eq(FRAME("HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n", 0), -EPROTO);
	cr_assert_eq(FRAME("HTTP/1.1 200 OK\r\nX: 1\r\nContent-Length:\n\r\n", 0), -EPROTO, "a bare LF");
	cr_assert_eq(FRAME("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\n\r\n", 0), -EPROTO, "a bare LF");
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

/* https:// and wss:// are not fetched by the bridge (it does not originate
 * TLS): a 400 of their own, whose words send the client to CONNECT. */
Test(http_parse, https_uri_told_to_use_connect)
{
	struct http_req r;
	cr_assert_eq(parse("GET https://example.com/ HTTP/1.1\r\n\r\n", &r), HTTP_E_HTTPS);
	cr_assert_eq(parse("GET HTTPS://example.com:8443/x HTTP/1.1\r\n\r\n", &r), HTTP_E_HTTPS);
	cr_assert_eq(parse("GET wss://example.com/ HTTP/1.1\r\nConnection: Upgrade\r\n"
			   "Upgrade: websocket\r\n\r\n", &r), HTTP_E_HTTPS);
	struct http_refusal why = http_refusal(HTTP_E_HTTPS);
	cr_assert_eq(why.status, 400);
	cr_assert_str_eq(why.reason, "https-uri");
	cr_assert(strstr(why.body, "CONNECT") && strstr(why.body, "HTTPS_PROXY"), "%s", why.body);
	char out[512];
	ssize_t n = http_response(why.status, why.body, out, sizeof(out));
	cr_assert_gt(n, 0);
	out[n] = '\0';
	cr_assert(strstr(out, "HTTP/1.1 400 Bad Request\r\n") == out);
	/* Control: the same authority over http:// is an ordinary request,
	 * and the other refusals keep their words. */
	cr_assert_eq(parse("GET http://example.com/ HTTP/1.1\r\n\r\n", &r), 0);
	cr_assert_eq(http_refusal(-400).status, 400);
	cr_assert_null(strstr(http_refusal(-400).body, "HTTPS_PROXY"));
	cr_assert_eq(http_refusal(-414).status, 414);
}

static const char *upgrade_of(const char *h, const struct http_req *r, char *buf)
{
	memcpy(buf, h + r->upgrade_off, r->upgrade_len);
	buf[r->upgrade_len] = '\0';
	return buf;
}

/* An upgrade is asked for by Connection naming upgrade (among other
 * tokens, any case) and one Upgrade header, in HTTP/1.1 only. */
Test(http_parse, upgrade_asked)
{
	struct http_req r;
	char v[HTTP_UPGRADE_MAX + 1];
	const char *h = "GET http://a.test:81/chat HTTP/1.1\r\nHost: a.test:81\r\n"
			"Connection: keep-alive, Upgrade\r\nUpgrade:  websocket \r\n"
			"Sec-WebSocket-Key: x\r\n\r\n";
	cr_assert_eq(parse(h, &r), 0);
	cr_assert_str_eq(upgrade_of(h, &r, v), "websocket");
	cr_assert(r.keep, "not granted, the connection is kept as for any request");
	h = "GET http://a.test/ HTTP/1.1\r\nconnection: UPGRADE\r\nUpgrade: h2c, WebSocket/13\r\n\r\n";
	cr_assert_eq(parse(h, &r), 0);
	cr_assert_str_eq(upgrade_of(h, &r, v), "h2c, WebSocket/13");
	/* Content-Length: 0 is no body. */
	h = "GET http://a.test/ HTTP/1.1\r\nContent-Length: 0\r\nConnection: upgrade\r\nUpgrade: websocket\r\n\r\n";
	cr_assert_eq(parse(h, &r), 0);
	cr_assert_gt(r.upgrade_len, 0);
	/* ws:// is taken for an upgrade, decided like http://. */
	h = "GET ws://A.test:82/x HTTP/1.1\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\n";
	cr_assert_eq(parse(h, &r), 0);
	cr_assert_str_eq(r.host.text, "a.test");
	cr_assert_eq(r.port, 82);
	cr_assert_eq(parse("GET ws://a.test/ HTTP/1.1\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\n", &r), 0);
	cr_assert_eq(r.port, 80);

	/* Not an upgrade: one half only, Proxy-Connection, HTTP/1.0. */
	static const char *const not_asked[] = {
		"GET http://a.test/ HTTP/1.1\r\nUpgrade: websocket\r\n\r\n",
		"GET http://a.test/ HTTP/1.1\r\nConnection: upgrade\r\n\r\n",
		"GET http://a.test/ HTTP/1.1\r\nProxy-Connection: upgrade\r\nUpgrade: websocket\r\n\r\n",
		"GET http://a.test/ HTTP/1.1\r\nConnection: upgraded\r\nUpgrade: websocket\r\n\r\n",
		"GET http://a.test/ HTTP/1.0\r\nConnection: upgrade\r\nUpgrade: websocket\r\n\r\n",
		"CONNECT a.test:443 HTTP/1.1\r\nConnection: upgrade\r\nUpgrade: websocket\r\n\r\n",
	};
	for (size_t i = 0; i < sizeof(not_asked) / sizeof(not_asked[0]); i++) {
		cr_assert_eq(parse(not_asked[i], &r), 0, "%s", not_asked[i]);
		cr_assert_eq(r.upgrade_len, 0, "%s", not_asked[i]);
	}
	/* ... and ws:// then means nothing: 400. */
	bad_upgrade("GET ws://a.test/ HTTP/1.1\r\n\r\n");
	bad_upgrade("GET ws://a.test/ HTTP/1.0\r\nConnection: upgrade\r\nUpgrade: websocket\r\n\r\n");
	bad("GET ws:// HTTP/1.1\r\nConnection: upgrade\r\nUpgrade: websocket\r\n\r\n");
	bad("GET ws://u@a.test/ HTTP/1.1\r\nConnection: upgrade\r\nUpgrade: websocket\r\n\r\n");
}

Test(http_parse, upgrade_refusals)
{
	struct http_req r;
	/* A body: after it the bytes would be either protocol's. */
	cr_assert_eq(parse("POST http://a.test/ HTTP/1.1\r\nContent-Length: 5\r\nConnection: upgrade\r\n"
			   "Upgrade: websocket\r\n\r\n", &r), HTTP_E_UPGRADE_BODY);
	cr_assert_eq(parse("POST http://a.test/ HTTP/1.1\r\nTransfer-Encoding: chunked\r\n"
			   "Connection: upgrade\r\nUpgrade: websocket\r\n\r\n", &r), HTTP_E_UPGRADE_BODY);
	cr_assert_eq(http_refusal(HTTP_E_UPGRADE_BODY).status, 400);
	/* Control: the same body without the upgrade is a request like any. */
	cr_assert_eq(parse("POST http://a.test/ HTTP/1.1\r\nContent-Length: 5\r\nConnection: keep-alive\r\n"
			   "Upgrade: websocket\r\n\r\n", &r), 0);
	/* An Upgrade value that reads two ways, or no way. */
	static const char *const lists[] = {
		"", ",", "websocket,", ",websocket", "a,,b", "web socket", "a/", "/a", "a/b/c",
		"a;b", "a\"b", "a/ b", "\xe9",
	};
	char h[512];
	for (size_t i = 0; i < sizeof(lists) / sizeof(lists[0]); i++) {
		snprintf(h, sizeof(h), "GET http://a.test/ HTTP/1.1\r\nConnection: upgrade\r\n"
			 "Upgrade: %s\r\n\r\n", lists[i]);
		bad_upgrade(h);
	}
	bad_upgrade("GET http://a.test/ HTTP/1.1\r\nConnection: upgrade\r\nUpgrade: websocket\r\n"
		    "Upgrade: websocket\r\n\r\n");
	char longv[HTTP_UPGRADE_MAX + 2];
	memset(longv, 'a', sizeof(longv) - 1);
	longv[sizeof(longv) - 1] = '\0';
	snprintf(h, sizeof(h), "GET http://a.test/ HTTP/1.1\r\nConnection: upgrade\r\nUpgrade: %s\r\n\r\n", longv);
	bad_upgrade(h);
	longv[HTTP_UPGRADE_MAX] = '\0';
	snprintf(h, sizeof(h), "GET http://a.test/ HTTP/1.1\r\nConnection: upgrade\r\nUpgrade: %s\r\n\r\n", longv);
	cr_assert_eq(parse(h, &r), 0, "HTTP_UPGRADE_MAX bytes: taken");
	cr_assert_eq(r.upgrade_len, HTTP_UPGRADE_MAX);
}

/* The rebuilt head: Upgrade and Connection: Upgrade for an upgrade, else
 * neither (Upgrade is hop-by-hop) and Connection: close. */
Test(http_rebuild, upgrade_headers)
{
	struct http_req r;
	char out[HTTP_REBUILT_MAX];
	const char *h = "GET http://a.test:81/chat?x HTTP/1.1\r\nHost: a.test:81\r\n"
			"Connection: Upgrade\r\nProxy-Connection: keep-alive\r\nUpgrade: websocket\r\n"
			"Sec-WebSocket-Version: 13\r\n\r\n";
	cr_assert_eq(parse(h, &r), 0);
	ssize_t n = http_rebuild(h, &r, out, sizeof(out));
	cr_assert_gt(n, 0);
	out[n] = '\0';
	cr_assert_str_eq(out, "GET /chat?x HTTP/1.1\r\nHost: a.test:81\r\nUpgrade: websocket\r\n"
			      "Sec-WebSocket-Version: 13\r\nConnection: Upgrade\r\n\r\n");
	h = "GET http://a.test/ HTTP/1.1\r\nUpgrade: websocket\r\nX: 1\r\n\r\n";
	cr_assert_eq(parse(h, &r), 0);
	n = http_rebuild(h, &r, out, sizeof(out));
	out[n] = '\0';
	cr_assert_str_eq(out, "GET / HTTP/1.1\r\nHost: a.test\r\nX: 1\r\nConnection: close\r\n\r\n");
	h = "GET ws://a.test/ HTTP/1.1\r\nConnection: upgrade\r\nupgrade: websocket\r\n\r\n";
	cr_assert_eq(parse(h, &r), 0);
	n = http_rebuild(h, &r, out, sizeof(out));
	out[n] = '\0';
	cr_assert_str_eq(out, "GET / HTTP/1.1\r\nHost: a.test\r\nupgrade: websocket\r\nConnection: Upgrade\r\n\r\n");
}

/* A 101 is the switch asked for, or refused. */
Test(http_response, switch_check)
{
	char chosen[HTTP_UPGRADE_MAX + 1];
#define SW(h, offer) http_response_switch((h), strlen(h), (offer), strlen(offer), chosen)
	const char *ok = "HTTP/1.1 101 Switching Protocols\r\nUpgrade: WebSocket\r\nConnection: Upgrade\r\n\r\n";
	cr_assert_eq(SW(ok, "websocket"), 0);
	cr_assert_str_eq(chosen, "WebSocket");
	cr_assert_eq(SW(ok, "h2c, websocket/13, websocket"), 0, "one of several offered");
	cr_assert_eq(SW(ok, ""), -EPERM, "a switch nobody asked for");
	cr_assert_eq(SW(ok, "h2c"), -EPROTO, "a protocol not offered");
	cr_assert_eq(SW(ok, "websocket/13"), -EPROTO, "another version is another protocol");
	cr_assert_eq(SW("HTTP/1.1 101 Switching Protocols\r\nUpgrade: h2c, websocket\r\n\r\n", "websocket"),
		     -EPROTO, "every protocol named must have been offered");
	cr_assert_eq(SW("HTTP/1.1 101 Switching Protocols\r\nUpgrade: h2c, websocket\r\n\r\n", "websocket, h2c"), 0);
	cr_assert_str_eq(chosen, "h2c, websocket");
	cr_assert_eq(SW("HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\n\r\n", "websocket"),
		     -EPROTO, "no Upgrade: to what?");
	cr_assert_eq(SW("HTTP/1.1 101 Switching Protocols\r\nUpgrade:\r\n\r\n", "websocket"), -EPROTO);
	cr_assert_eq(SW("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nUpgrade: websocket\r\n\r\n",
			"websocket"), -EPROTO, "two Upgrade headers");
	cr_assert_eq(SW("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\n\r\n", "websocket"), -EPROTO);
	cr_assert_eq(SW("HTTP/1.1 101 Switching Protocols\r\nUpgrade: web socket\r\n\r\n", "websocket"), -EPROTO);
	cr_assert_eq(SW("HTTP/1.1 200 OK\r\nUpgrade: websocket\r\n\r\n", "websocket"), -EPROTO, "not a 101");
	cr_assert_eq(SW("HTTP/1.1 101\r\nupgrade:websocket\r\n\r\n", "websocket"), 0);
#undef SW
}
