/* main.c: cordon-connect HOST PORT, the ProxyCommand that cordon puts in
 * GIT_SSH_COMMAND for --net proxy: neither socat nor an OpenBSD nc can be
 * assumed inside the sandbox.  It opens a tunnel to HOST:PORT through the
 * proxy at 127.0.0.1:3128 (CONNECT) and relays standard input and output
 * over it, half-closes included.  Static (musl), so it runs whatever the
 * sandbox hides.  Exit: 0 when both directions ended; 1 with a message
 * when the proxy refused (its 403 text names the flag) or failed. */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "sys.h"

#define CONNECT_HEAD_MAX 8192

static int cc_fail(const char *what)
{
	fprintf(stderr, "cordon-connect: %s\n", what);
	return 1;
}

/* Read the proxy's reply head byte by byte, so that no byte of the tunnel
 * is read here; print a refusal's body for the user. */
static int cc_reply(int s)
{
	char head[CONNECT_HEAD_MAX + 1];
	size_t n = 0;
	while (n < CONNECT_HEAD_MAX) {
		ssize_t r = read(s, head + n, 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return cc_fail("the proxy closed the connection");
		n++;
		if (n >= 4 && memcmp(head + n - 4, "\r\n\r\n", 4) == 0)
			break;
	}
	head[n] = '\0';
	if (n >= 12 && strncmp(head, "HTTP/1.", 7) == 0 && head[9] == '2')
		return 0;
	char body[1024];
	ssize_t b = read(s, body, sizeof(body) - 1);
	if (b > 0) {
		body[b] = '\0';
		fputs(body, stderr);
	}
	return cc_fail(n >= 12 ? "the proxy refused the tunnel" : "bad reply from the proxy");
}

int main(int argc, char **argv)
{
	if (argc != 3 || strlen(argv[1]) > 255 || strpbrk(argv[1], " \r\n") ||
	    strspn(argv[2], "0123456789") != strlen(argv[2]) || !*argv[2] || strlen(argv[2]) > 5)
		return cc_fail("usage: cordon-connect HOST PORT");
	AUTO_FD s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(3128) };
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (s < 0 || connect(s, (struct sockaddr *)&a, sizeof(a)) < 0)
		return cc_fail("cannot reach the proxy at 127.0.0.1:3128 (is this cordon --net proxy?)");
	int v6 = strchr(argv[1], ':') != NULL;
	char req[600];
	int len = snprintf(req, sizeof(req), "CONNECT %s%s%s:%s HTTP/1.1\r\nHost: %s%s%s:%s\r\n\r\n",
			   v6 ? "[" : "", argv[1], v6 ? "]" : "", argv[2],
			   v6 ? "[" : "", argv[1], v6 ? "]" : "", argv[2]);
	if (len < 0 || (size_t)len >= sizeof(req) || sys_write_all(s, req, (size_t)len) < 0)
		return cc_fail("cannot write to the proxy");
	if (cc_reply(s) != 0)
		return 1;
	/* Relay: stdin -> socket, socket -> stdout, until both reached EOF. */
	struct pollfd p[2] = { { STDIN_FILENO, POLLIN, 0 }, { s, POLLIN, 0 } };
	int out_done = 0, in_done = 0;
	char buf[65536];
	while (!out_done || !in_done) {
		if (poll(p, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			return cc_fail("poll");
		}
		for (int i = 0; i < 2; i++) {
			if (!p[i].revents)
				continue;
			ssize_t r = read(p[i].fd, buf, sizeof(buf));
			if (r < 0 && (errno == EINTR || errno == EAGAIN))
				continue;
			int to = i == 0 ? s : STDOUT_FILENO;
			if (r <= 0) {
				p[i].fd = -1;
				if (i == 0) {
					in_done = 1;
					(void)shutdown(s, SHUT_WR);
				} else {
					out_done = 1;
					(void)close(STDOUT_FILENO);
				}
				continue;
			}
			if (sys_write_all(to, buf, (size_t)r) < 0)
				return i == 0 ? cc_fail("the tunnel broke") : 0;
		}
		if (out_done && !in_done)
			break; /* the server ended: ssh is done with us */
	}
	return 0;
}
