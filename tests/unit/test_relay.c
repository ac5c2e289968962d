/* test_relay.c: the splice pump between two socketpairs: the bytes sent
 * first, then the stream in order, and EOF passed on as a half-close while
 * the other direction still works. */
#include <criterion/criterion.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>

#include "relay.h"

Test(relay, pending_stream_and_half_close)
{
	int a[2], b[2]; /* a[0] client, a[1] bridge's client end; b[0] bridge's server end, b[1] server */
	cr_assert_eq(socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, a), 0);
	cr_assert_eq(socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, b), 0);
	struct relay_dir up, down;
	char *first = strdup("HEAD\n");
	cr_assert_eq(relay_open(&up, a[1], b[0], first, 5), 0);
	cr_assert_eq(relay_open(&down, b[0], a[1], NULL, 0), 0);
	cr_assert_eq(write(a[0], "body", 4), 4);
	cr_assert_eq(shutdown(a[0], SHUT_WR), 0);
	cr_assert_eq(relay_pump(&up), 0);
	char buf[64];
	ssize_t n = read(b[1], buf, sizeof(buf));
	cr_assert_eq(n, 9);
	cr_assert_eq(memcmp(buf, "HEAD\nbody", 9), 0);
	cr_assert(relay_done(&up), "the client's EOF reached the server as a half-close");
	cr_assert_eq(read(b[1], buf, sizeof(buf)), 0, "EOF at the server");
	cr_assert_eq(up.bytes, 9);
	/* The server still answers over the half-closed connection. */
	cr_assert_eq(write(b[1], "reply", 5), 5);
	cr_assert_eq(relay_pump(&down), 0);
	cr_assert_not(relay_done(&down));
	cr_assert_eq(read(a[0], buf, sizeof(buf)), 5);
	cr_assert_eq(close(b[1]), 0);
	cr_assert_eq(relay_pump(&down), 0);
	cr_assert(relay_done(&down));
	cr_assert_eq(read(a[0], buf, sizeof(buf)), 0);
	relay_close(&up);
	relay_close(&down);
	close(a[0]);
	close(a[1]);
	close(b[0]);
}

Test(relay, broken_destination_ends_the_direction)
{
	int a[2], b[2];
	cr_assert_eq(socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, a), 0);
	cr_assert_eq(socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, b), 0);
	struct relay_dir up;
	/* splice has no MSG_NOSIGNAL: the bridge ignores SIGPIPE (main.c). */
	signal(SIGPIPE, SIG_IGN);
	cr_assert_eq(relay_open(&up, a[1], b[0], NULL, 0), 0);
	close(b[1]);
	cr_assert_eq(write(a[0], "x", 1), 1);
	cr_assert_eq(relay_pump(&up), 0);
	cr_assert(up.dead && relay_done(&up), "nothing more can be delivered");
	cr_assert_eq(up.err, EPIPE);
	relay_close(&up);
	close(a[0]);
	close(a[1]);
	close(b[0]);
}

static void tcp_pair(int *client, int *accepted)
{
	int l = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t sl = sizeof(sa);
	cr_assert_eq(bind(l, (struct sockaddr *)&sa, sizeof(sa)), 0);
	cr_assert_eq(listen(l, 1), 0);
	cr_assert_eq(getsockname(l, (struct sockaddr *)&sa, &sl), 0);
	*client = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	cr_assert_eq(connect(*client, (struct sockaddr *)&sa, sizeof(sa)), 0);
	*accepted = accept4(l, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
	cr_assert_geq(*accepted, 0);
	close(l);
}

/* A client that resets after writing: what the bridge read before the
 * reset still reaches the server, which is slower than the client. */
Test(relay, a_reset_source_still_delivers_what_was_read)
{
	int cl, cb, srv[2];
	tcp_pair(&cl, &cb);
	cr_assert_eq(socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, srv), 0);
	int small = 4096;
	cr_assert_eq(setsockopt(srv[0], SOL_SOCKET, SO_SNDBUF, &small, sizeof(small)), 0);
	struct relay_dir up;
	cr_assert_eq(relay_open(&up, cb, srv[0], NULL, 0), 0);
	static char data[200000];
	for (size_t i = 0; i < sizeof(data); i++)
		data[i] = (char)(i * 7);
	cr_assert_eq(write(cl, data, sizeof(data)), (ssize_t)sizeof(data));
	usleep(50000); /* on loopback, in the bridge's receive queue by now */
	cr_assert_eq(relay_pump(&up), 0);
	cr_assert_gt(up.in_pipe, 0, "the server is slow: bytes wait in the pipe");
	struct linger lg = { 1, 0 };
	cr_assert_eq(setsockopt(cl, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg)), 0);
	cr_assert_eq(close(cl), 0); /* RST */
	static char got[sizeof(data) + 1];
	size_t n = 0;
	for (int i = 0; i < 100000 && !relay_done(&up); i++) {
		cr_assert_eq(relay_pump(&up), 0);
		ssize_t r = read(srv[1], got + n, sizeof(got) - n);
		if (r > 0)
			n += (size_t)r;
	}
	cr_assert(relay_done(&up));
	for (ssize_t r; (r = read(srv[1], got + n, sizeof(got) - n)) > 0;)
		n += (size_t)r;
	cr_assert_eq(n, up.bytes);
	cr_assert_eq(memcmp(got, data, n), 0, "in order, intact");
	/* All of it: the pipe's contents and the receive queue before the
	 * reset (Linux keeps it readable; the error comes after it). */
	cr_assert_eq(n, sizeof(data), "%zu bytes reached the server", n);
	relay_close(&up);
	close(cb);
	close(srv[0]);
	close(srv[1]);
}

static void pair(int *a, int *b)
{
	int s[2];
	cr_assert_eq(socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, s), 0);
	*a = s[0];
	*b = s[1];
}

static size_t drain(int fd, char *buf, size_t cap)
{
	size_t n = 0;
	for (ssize_t r; n < cap && (r = read(fd, buf + n, cap - n)) > 0;)
		n += (size_t)r;
	buf[n] = '\0';
	return n;
}

/* A forwarded request's body ends where its framing says: nothing after
 * it (a pipelined request) reaches the server. */
Test(relay, framed_bodies_stop_at_their_end)
{
	int c, cb, sb, s;
	pair(&c, &cb);
	pair(&sb, &s);
	struct relay_dir up;
	char *first = strdup("HEAD|abc");
	cr_assert_eq(relay_open(&up, cb, sb, first, 8), 0);
	cr_assert_eq(relay_frame(&up, RELAY_LENGTH, 5, 5), 0);
	cr_assert_eq(write(c, "deGET http://other.test/", 24), 24);
	cr_assert_eq(relay_pump(&up), 0);
	cr_assert(relay_done(&up), "the body ended");
	char buf[256];
	drain(s, buf, sizeof(buf) - 1);
	cr_assert_str_eq(buf, "HEAD|abcde");
	relay_close(&up);

	/* Chunked: checked and rebuilt, across reads. */
	close(c);
	close(cb);
	pair(&c, &cb);
	first = strdup("HEAD|3;ext=1\r\nab");
	cr_assert_eq(relay_open(&up, cb, sb, first, strlen(first)), 0);
	cr_assert_eq(relay_frame(&up, RELAY_CHUNKED, 0, 5), 0);
	cr_assert_eq(write(c, "c\r\n0\r\nX-T: 1\r\n\r\nGET http://other.test/", 39), 39);
	cr_assert_eq(relay_pump(&up), 0);
	cr_assert(relay_done(&up));
	drain(s, buf, sizeof(buf) - 1);
	cr_assert_str_eq(buf, "HEAD|3\r\nabc\r\n0\r\nX-T: 1\r\n\r\n");
	relay_close(&up);

	/* A bad chunk size: refused, and nothing of it reaches the server. */
	close(c);
	close(cb);
	pair(&c, &cb);
	first = strdup("HEAD|");
	cr_assert_eq(relay_open(&up, cb, sb, first, 5), 0);
	cr_assert_eq(relay_frame(&up, RELAY_CHUNKED, 0, 5), 0);
	cr_assert_eq(write(c, "zz\r\n", 4), 4);
	cr_assert_eq(relay_pump(&up), -EBADMSG);
	drain(s, buf, sizeof(buf) - 1);
	cr_assert_str_eq(buf, "HEAD|");
	relay_close(&up);
	first = strdup("HEAD|1\nx");
	cr_assert_eq(relay_open(&up, cb, sb, first, 8), 0);
	cr_assert_eq(relay_frame(&up, RELAY_CHUNKED, 0, 5), -EBADMSG, "bad in the bytes read with the head");
	relay_close(&up);
	close(c);
	close(cb);
	close(sb);
	close(s);
}

/* Responses to a forwarded request: each head says Connection: close. */
Test(relay, response_heads_rewritten)
{
	int c, cb, sb, s;
	pair(&c, &cb);
	pair(&sb, &s);
	struct relay_dir down;
	char *first = strdup("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nConn");
	cr_assert_eq(relay_open(&down, sb, cb, first, strlen(first)), 0);
	cr_assert_eq(relay_frame(&down, RELAY_RESPONSE, 0, 0), 0);
	cr_assert_eq(relay_pump(&down), 0);
	const char *rest = "ection: keep-alive\r\nContent-Length: 2\r\n\r\nok";
	cr_assert_eq(write(s, rest, strlen(rest)), (ssize_t)strlen(rest));
	close(s);
	cr_assert_eq(relay_pump(&down), 0);
	cr_assert(relay_done(&down));
	char buf[512];
	drain(c, buf, sizeof(buf) - 1);
	cr_assert_str_eq(buf, "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\n"
			      "Connection: close\r\n\r\nok");
	relay_close(&down);
	/* A server that answers garbage: -EPROTO (the client gets 502). */
	pair(&sb, &s);
	cr_assert_eq(relay_open(&down, sb, cb, NULL, 0), 0);
	cr_assert_eq(relay_frame(&down, RELAY_RESPONSE, 0, 0), 0);
	cr_assert_eq(write(s, "SSH-2.0-x\r\n\r\n", 13), 13);
	cr_assert_eq(relay_pump(&down), -EPROTO);
	relay_close(&down);
	close(c);
	close(cb);
	close(sb);
	close(s);
}

/* A kept connection: the response goes to its end and no further, and the
 * bytes after a request body are kept for the next request. */
Test(relay, keep_alive_framing)
{
	int c, cb, sb, s;
	pair(&c, &cb);
	pair(&sb, &s);
	struct relay_dir down, up;
	char *first = strdup("HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nab");
	cr_assert_eq(relay_open(&down, sb, cb, first, strlen(first)), 0);
	cr_assert_eq(relay_frame(&down, RELAY_RESPONSE, 0, 0), 0);
	down.keep = 1;
	cr_assert_eq(write(s, "cEXTRA", 6), 6);
	cr_assert_eq(relay_pump(&down), 0);
	cr_assert(relay_done(&down) && down.reusable && down.stopped);
	char buf[512];
	drain(c, buf, sizeof(buf) - 1);
	cr_assert_str_eq(buf, "HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nabc");
	relay_close(&down);
	close(s);
	close(sb);
	/* Chunked, split across reads. */
	pair(&sb, &s);
	first = strdup("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nh");
	cr_assert_eq(relay_open(&down, sb, cb, first, strlen(first)), 0);
	cr_assert_eq(relay_frame(&down, RELAY_RESPONSE, 0, 0), 0);
	down.keep = 1;
	cr_assert_eq(relay_pump(&down), 0);
	cr_assert_not(relay_done(&down));
	cr_assert_eq(write(s, "i\r\n0\r\n\r\n", 8), 8);
	cr_assert_eq(relay_pump(&down), 0);
	cr_assert(relay_done(&down) && down.reusable);
	drain(c, buf, sizeof(buf) - 1);
	cr_assert_str_eq(buf, "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nhi\r\n0\r\n\r\n");
	relay_close(&down);
	/* No length: not reusable, Connection: close, until EOF. */
	first = strdup("HTTP/1.1 200 OK\r\n\r\nxyz");
	cr_assert_eq(relay_open(&down, sb, cb, first, strlen(first)), 0);
	cr_assert_eq(relay_frame(&down, RELAY_RESPONSE, 0, 0), 0);
	down.keep = 1;
	close(s);
	cr_assert_eq(relay_pump(&down), 0);
	cr_assert(relay_done(&down));
	cr_assert_not(down.reusable);
	drain(c, buf, sizeof(buf) - 1);
	cr_assert_str_eq(buf, "HTTP/1.1 200 OK\r\nConnection: close\r\n\r\nxyz");
	relay_close(&down);
	close(sb);
	/* The request side: what follows a body is kept, not sent. */
	pair(&sb, &s);
	first = strdup("HEAD|abcGET http://x.test/ HTTP/1.1\r\n");
	cr_assert_eq(relay_open(&up, cb, sb, first, strlen(first)), 0);
	cr_assert_eq(relay_frame(&up, RELAY_LENGTH, 3, 5), 0);
	cr_assert_eq(relay_pump(&up), 0);
	cr_assert(relay_done(&up));
	cr_assert_eq(up.rest_len, 29);
	cr_assert_eq(memcmp(up.rest, "GET http://x.test/ HTTP/1.1", 27), 0);
	drain(s, buf, sizeof(buf) - 1);
	cr_assert_str_eq(buf, "HEAD|abc");
	relay_close(&up);
	close(c);
	close(cb);
	close(sb);
	close(s);
}

/* A 101 to an upgrade: passed on unchanged, then both directions are
 * streams; the bytes the client sent after its request reach the server
 * first, in order, and half-closes still pass. */
Test(relay, upgrade_switches_to_a_tunnel)
{
	int c, cb, sb, s;
	pair(&c, &cb);
	pair(&sb, &s);
	struct relay_dir up, down;
	char *first = strdup("HEAD|EARLY");
	cr_assert_eq(relay_open(&up, cb, sb, first, strlen(first)), 0);
	cr_assert_eq(relay_frame(&up, RELAY_LENGTH, 0, 5), 0);
	cr_assert_eq(write(c, "LATER", 5), 5);
	cr_assert_eq(relay_pump(&up), 0);
	char buf[512];
	drain(s, buf, sizeof(buf) - 1);
	cr_assert_str_eq(buf, "HEAD|", "before the 101 nothing after the head is sent");
	cr_assert_eq(relay_open(&down, sb, cb, NULL, 0), 0);
	cr_assert_eq(relay_frame(&down, RELAY_RESPONSE, 0, 0), 0);
	down.keep = 1;
	strcpy(down.upgrade, "websocket");
	const char *sw = "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n";
	cr_assert_eq(write(s, sw, strlen(sw)), (ssize_t)strlen(sw));
	cr_assert_eq(write(s, "\x81\x01x", 3), 3);
	cr_assert_eq(relay_pump(&down), 0);
	cr_assert(down.switched && !down.reusable);
	cr_assert_str_eq(down.upgrade, "websocket");
	drain(c, buf, sizeof(buf) - 1);
	cr_assert_eq(strncmp(buf, sw, strlen(sw)), 0, "the 101 unchanged");
	cr_assert_str_eq(buf + strlen(sw), "\x81\x01x");
	cr_assert_eq(relay_switch(&up), 0);
	cr_assert_eq(relay_pump(&up), 0);
	drain(s, buf, sizeof(buf) - 1);
	cr_assert_str_eq(buf, "EARLYLATER", "kept bytes first, then the socket's, in order");
	cr_assert_eq(shutdown(c, SHUT_WR), 0);
	cr_assert_eq(relay_pump(&up), 0);
	cr_assert(relay_done(&up), "the client's half-close reached the server");
	cr_assert_eq(read(s, buf, sizeof(buf)), 0);
	cr_assert_eq(write(s, "more", 4), 4);
	cr_assert_eq(relay_pump(&down), 0);
	cr_assert_not(relay_done(&down), "the other way still runs");
	drain(c, buf, sizeof(buf) - 1);
	cr_assert_str_eq(buf, "more");
	cr_assert_eq(close(s), 0);
	cr_assert_eq(relay_pump(&down), 0);
	cr_assert(relay_done(&down));
	cr_assert_eq(up.bytes, 15);
	relay_close(&up);
	relay_close(&down);
	close(sb);
	close(c);
	close(cb);
}

/* A 101 nobody asked for, or to another protocol: an error, and nothing of
 * it reaches the client.  A 200 to an upgrade request: framed as usual. */
Test(relay, upgrade_refused_or_not_granted)
{
	static const struct { const char *offer; int rc; } cases[] = {
		{ "", -EPERM }, { "h2c", -EPROTO },
	};
	const char *sw = "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n\r\n";
	char buf[512];
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int c, cb, sb, s;
		pair(&c, &cb);
		pair(&sb, &s);
		struct relay_dir down;
		cr_assert_eq(relay_open(&down, sb, cb, NULL, 0), 0);
		cr_assert_eq(relay_frame(&down, RELAY_RESPONSE, 0, 0), 0);
		strcpy(down.upgrade, cases[i].offer);
		cr_assert_eq(write(s, sw, strlen(sw)), (ssize_t)strlen(sw));
		cr_assert_eq(relay_pump(&down), cases[i].rc, "offer '%s'", cases[i].offer);
		cr_assert_not(down.switched);
		cr_assert_eq(down.bytes, 0);
		cr_assert_eq(read(c, buf, sizeof(buf)), -1, "nothing for the client");
		relay_close(&down);
		close(c);
		close(cb);
		close(sb);
		close(s);
	}
	int c, cb, sb, s;
	pair(&c, &cb);
	pair(&sb, &s);
	struct relay_dir down;
	char *first = strdup("HTTP/1.1 200 OK\r\nConnection: keep-alive\r\nContent-Length: 2\r\n\r\nokNEXT");
	cr_assert_eq(relay_open(&down, sb, cb, first, strlen(first)), 0);
	cr_assert_eq(relay_frame(&down, RELAY_RESPONSE, 0, 0), 0);
	down.keep = 1;
	strcpy(down.upgrade, "websocket");
	cr_assert_eq(relay_pump(&down), 0);
	cr_assert(!down.switched && down.reusable && relay_done(&down));
	drain(c, buf, sizeof(buf) - 1);
	cr_assert_str_eq(buf, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok");
	relay_close(&down);
	close(c);
	close(cb);
	close(sb);
	close(s);
}
