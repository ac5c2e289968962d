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

Test(relay, broken_destination_is_an_error)
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
	cr_assert_lt(relay_pump(&up), 0);
	relay_close(&up);
	close(a[0]);
	close(a[1]);
	close(b[0]);
}
