/* test_wire.c: the record table (wire_check) and records over a real
 * SOCK_SEQPACKET socketpair (wire_send / wire_recv). */
#include <criterion/criterion.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "unit_util.h"
#include "wire.h"

static const struct wire_peer to_inner = { WIRE_TO_INNER, 0 };
static const struct wire_peer to_outer = { WIRE_TO_OUTER, 0 };

static void expect_bad(const struct wire_peer *p, uint32_t type, size_t len, int has_fd,
		       const char *needle)
{
	struct cordon_err e;
	memset(&e, 0, sizeof(e));
	cr_assert_eq(wire_check(p, type, len, has_fd, &e), -EPROTO,
		     "type %u len %zu fd %d accepted", type, len, has_fd);
	cr_assert_eq(e.err, EPROTO);
	cr_assert_eq(e.exit_code, EXIT_CORDON_FAILED);
	cr_assert_not_null(strstr(e.msg, needle), "want '%s' in: %s", needle, e.msg);
}

static void expect_good(const struct wire_peer *p, uint32_t type, size_t len, int has_fd)
{
	struct cordon_err e;
	memset(&e, 0, sizeof(e));
	cr_assert_eq(wire_check(p, type, len, has_fd, &e), 0, "type %u len %zu fd %d: %s",
		     type, len, has_fd, e.msg);
}

/* ---- wire_check ----------------------------------------------------------- */

Test(wire_check, unknown_types)
{
	expect_bad(&to_inner, 0, 4, 0, "unknown record type 0");
	expect_bad(&to_inner, WIRE_TYPE_END, 4, 0, "unknown record type");
	expect_bad(&to_outer, 1000, 4, 0, "unknown record type 1000");
	expect_bad(&to_outer, UINT32_MAX, 4, 0, "unknown record type");
}

Test(wire_check, valid_records)
{
	expect_good(&to_inner, WIRE_BIND_CHECK, 2, 1);
	expect_good(&to_inner, WIRE_BIND_CHECK, WIRE_DATA_MAX, 1);
	expect_good(&to_inner, WIRE_BINDS_END, 4, 0);
	expect_good(&to_outer, WIRE_STARTED, 4, 0);
	expect_good(&to_outer, WIRE_ERROR, sizeof(struct cordon_err), 0);
}

Test(wire_check, wrong_direction)
{
	expect_bad(&to_outer, WIRE_BIND_CHECK, 10, 1, "bind-check record sent the wrong way");
	expect_bad(&to_outer, WIRE_BINDS_END, 4, 0, "wrong way");
	expect_bad(&to_inner, WIRE_STARTED, 4, 0, "started record sent the wrong way");
	expect_bad(&to_inner, WIRE_ERROR, sizeof(struct cordon_err), 0, "wrong way");
}

Test(wire_check, size_bounds)
{
	expect_bad(&to_inner, WIRE_BIND_CHECK, 1, 1, "bind-check record of 1 bytes");
	expect_bad(&to_inner, WIRE_BIND_CHECK, 0, 1, "of 0 bytes");
	expect_bad(&to_inner, WIRE_BIND_CHECK, WIRE_DATA_MAX + 1, 1, "bytes");
	expect_bad(&to_inner, WIRE_BINDS_END, 3, 0, "binds-end record of 3 bytes");
	expect_bad(&to_inner, WIRE_BINDS_END, 5, 0, "of 5 bytes");
	expect_bad(&to_outer, WIRE_STARTED, 0, 0, "started record of 0 bytes");
	expect_bad(&to_outer, WIRE_STARTED, 8, 0, "of 8 bytes");
	expect_bad(&to_outer, WIRE_ERROR, sizeof(struct cordon_err) - 1, 0, "error record of");
	expect_bad(&to_outer, WIRE_ERROR, sizeof(struct cordon_err) + 1, 0, "error record of");
}

Test(wire_check, descriptor_required_or_forbidden)
{
	expect_bad(&to_inner, WIRE_BIND_CHECK, 10, 0, "bind-check record lacks a descriptor");
	expect_bad(&to_inner, WIRE_BINDS_END, 4, 1, "binds-end record carries a descriptor");
	expect_bad(&to_outer, WIRE_STARTED, 4, 1, "carries a descriptor");
	expect_bad(&to_outer, WIRE_ERROR, sizeof(struct cordon_err), 1, "carries a descriptor");
}

Test(wire_check, once_only)
{
	struct wire_peer in = { WIRE_TO_INNER, 1u << WIRE_BINDS_END };
	expect_bad(&in, WIRE_BINDS_END, 4, 0, "second binds-end record");
	expect_good(&in, WIRE_BIND_CHECK, 4, 1);
	in.seen |= 1u << WIRE_BIND_CHECK;
	expect_good(&in, WIRE_BIND_CHECK, 4, 1); /* not once-only */
	struct wire_peer out = { WIRE_TO_OUTER, 1u << WIRE_STARTED };
	expect_bad(&out, WIRE_STARTED, 4, 0, "second started record");
	expect_good(&out, WIRE_ERROR, sizeof(struct cordon_err), 0);
	out.seen |= 1u << WIRE_ERROR;
	expect_bad(&out, WIRE_ERROR, sizeof(struct cordon_err), 0, "second error record");
}

/* ---- over a socketpair ---------------------------------------------------- */


static void send_raw(int sock, const void *buf, size_t len, const int *fds, size_t nfds)
{
	union {
		char raw[CMSG_SPACE(4 * sizeof(int))];
		struct cmsghdr align;
	} ctl;
	memset(&ctl, 0, sizeof(ctl));
	struct iovec iov = { .iov_base = (void *)buf, .iov_len = len };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };
	if (nfds) {
		msg.msg_control = ctl.raw;
		msg.msg_controllen = CMSG_SPACE(nfds * sizeof(int));
		struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(nfds * sizeof(int));
		memcpy(CMSG_DATA(c), fds, nfds * sizeof(int));
	}
	cr_assert_eq(sendmsg(sock, &msg, 0), (ssize_t)len);
}

static struct wire_rec rec;

static void clear_rec(void)
{
	memset(&rec, 'X', sizeof(rec));
}

Test(wire, round_trip_with_descriptor)
{
	int sv[2], pp[2];
	pair(sv);
	cr_assert_eq(pipe2(pp, O_CLOEXEC), 0);
	const char path[] = "/home/u/src";
	cr_assert_eq(wire_send(sv[0], WIRE_BIND_CHECK, path, sizeof(path), pp[1]), 0);
	close(pp[1]);

	struct wire_peer p = to_inner;
	struct cordon_err e;
	memset(&e, 0, sizeof(e));
	clear_rec();
	cr_assert_eq(wire_recv(sv[1], &p, &rec, &e), 1, "%s", e.msg);
	cr_assert_eq(rec.type, WIRE_BIND_CHECK);
	cr_assert_eq(rec.len, sizeof(path));
	cr_assert_str_eq(rec.data, path);
	cr_assert_geq(rec.fd, 0);
	int fl = fcntl(rec.fd, F_GETFD);
	cr_assert(fl >= 0 && (fl & FD_CLOEXEC), "received descriptor is not CLOEXEC");
	/* It is the pipe we sent. */
	cr_assert_eq(write(rec.fd, "z", 1), 1);
	close(rec.fd);
	char c = 0;
	cr_assert_eq(read(pp[0], &c, 1), 1);
	cr_assert_eq(c, 'z');
	close(pp[0]);
	close(sv[0]);
	close(sv[1]);
}

Test(wire, round_trip_without_descriptor)
{
	int sv[2];
	pair(sv);
	uint32_t count = 7;
	cr_assert_eq(wire_send(sv[0], WIRE_BINDS_END, &count, sizeof(count), -1), 0);
	struct wire_peer p = to_inner;
	struct cordon_err e;
	clear_rec();
	cr_assert_eq(wire_recv(sv[1], &p, &rec, &e), 1, "%s", e.msg);
	cr_assert_eq(rec.type, WIRE_BINDS_END);
	cr_assert_eq(rec.len, 4);
	cr_assert_eq(rec.fd, -1);
	uint32_t got;
	memcpy(&got, rec.data, sizeof(got));
	cr_assert_eq(got, 7);
	cr_assert(p.seen & (1u << WIRE_BINDS_END), "once-only record not remembered");
	close(sv[0]);
	close(sv[1]);
}

Test(wire, error_record_round_trip)
{
	int sv[2];
	pair(sv);
	struct cordon_err sent;
	memset(&sent, 0, sizeof(sent));
	(void)err_set(&sent, ENOENT, "frob: command not found");
	sent.exit_code = EXIT_NOT_FOUND;
	cr_assert_eq(wire_send(sv[1], WIRE_ERROR, &sent, sizeof(sent), -1), 0);
	struct wire_peer p = to_outer;
	struct cordon_err e;
	clear_rec();
	cr_assert_eq(wire_recv(sv[0], &p, &rec, &e), 1, "%s", e.msg);
	struct cordon_err got;
	memcpy(&got, rec.data, sizeof(got));
	cr_assert_eq(got.err, ENOENT);
	cr_assert_eq(got.exit_code, EXIT_NOT_FOUND);
	cr_assert_str_eq(got.msg, "frob: command not found");
	close(sv[0]);
	close(sv[1]);
}

Test(wire, string_payload_nul_terminated_by_receiver)
{
	int sv[2];
	pair(sv);
	int dfd = open("/", O_PATH | O_CLOEXEC);
	cr_assert_geq(dfd, 0);
	cr_assert_eq(wire_send(sv[0], WIRE_BIND_CHECK, "abc", 3, dfd), 0);
	struct wire_peer p = to_inner;
	struct cordon_err e;
	clear_rec();
	cr_assert_eq(wire_recv(sv[1], &p, &rec, &e), 1, "%s", e.msg);
	cr_assert_eq(rec.len, 3);
	cr_assert_eq(rec.data[3], '\0');
	cr_assert_str_eq(rec.data, "abc");
	close(rec.fd);

	/* The largest payload is terminated too. */
	static char big[WIRE_DATA_MAX];
	memset(big, 'b', sizeof(big));
	cr_assert_eq(wire_send(sv[0], WIRE_BIND_CHECK, big, sizeof(big), dfd), 0);
	clear_rec();
	cr_assert_eq(wire_recv(sv[1], &p, &rec, &e), 1, "%s", e.msg);
	cr_assert_eq(rec.len, WIRE_DATA_MAX);
	cr_assert_eq(rec.data[WIRE_DATA_MAX], '\0');
	cr_assert_eq(strlen(rec.data), WIRE_DATA_MAX);
	close(rec.fd);
	close(dfd);
	close(sv[0]);
	close(sv[1]);
}

Test(wire, second_once_only_record_refused)
{
	int sv[2];
	pair(sv);
	int32_t pid = 2;
	cr_assert_eq(wire_send(sv[1], WIRE_STARTED, &pid, sizeof(pid), -1), 0);
	cr_assert_eq(wire_send(sv[1], WIRE_STARTED, &pid, sizeof(pid), -1), 0);
	struct wire_peer p = to_outer;
	struct cordon_err e;
	memset(&e, 0, sizeof(e));
	cr_assert_eq(wire_recv(sv[0], &p, &rec, &e), 1, "%s", e.msg);
	cr_assert_eq(wire_recv(sv[0], &p, &rec, &e), -EPROTO);
	cr_assert_not_null(strstr(e.msg, "second started record"), "%s", e.msg);
	close(sv[0]);
	close(sv[1]);
}

Test(wire, record_with_two_descriptors_refused_and_both_closed)
{
	int sv[2];
	pair(sv);
	int a = open("/", O_PATH | O_CLOEXEC), b = open("/tmp", O_PATH | O_CLOEXEC);
	cr_assert(a >= 0 && b >= 0);
	unsigned char buf[4 + 5];
	uint32_t type = WIRE_BIND_CHECK;
	memcpy(buf, &type, 4);
	memcpy(buf + 4, "/tmp", 5);
	int fds[2] = { a, b };
	send_raw(sv[0], buf, sizeof(buf), fds, 2);
	close(a);
	close(b);

	int before = count_fds();
	struct wire_peer p = to_inner;
	struct cordon_err e;
	memset(&e, 0, sizeof(e));
	int r = wire_recv(sv[1], &p, &rec, &e);
	cr_assert_lt(r, 0, "a record with two descriptors was accepted");
	cr_assert_eq(r, -EBADMSG);
	cr_assert_eq(count_fds(), before, "a received descriptor was left open");
	close(sv[0]);
	close(sv[1]);
}

Test(wire, refused_record_closes_its_descriptor)
{
	int sv[2];
	pair(sv);
	int a = open("/", O_PATH | O_CLOEXEC);
	cr_assert_geq(a, 0);
	uint32_t count = 0;
	/* BINDS_END must not carry a descriptor. */
	cr_assert_eq(wire_send(sv[0], WIRE_BINDS_END, &count, sizeof(count), a), 0);
	/* An unknown type with a descriptor. */
	unsigned char buf[8] = { 0 };
	uint32_t type = 99;
	memcpy(buf, &type, 4);
	send_raw(sv[0], buf, sizeof(buf), &a, 1);
	close(a);

	int before = count_fds();
	struct wire_peer p = to_inner;
	struct cordon_err e;
	cr_assert_eq(wire_recv(sv[1], &p, &rec, &e), -EPROTO);
	cr_assert_not_null(strstr(e.msg, "carries a descriptor"), "%s", e.msg);
	cr_assert_eq(count_fds(), before);
	cr_assert_eq(p.seen, 0, "a refused record was marked as seen");
	cr_assert_eq(wire_recv(sv[1], &p, &rec, &e), -EPROTO);
	cr_assert_not_null(strstr(e.msg, "unknown record type 99"), "%s", e.msg);
	cr_assert_eq(count_fds(), before);
	close(sv[0]);
	close(sv[1]);
}

Test(wire, short_record_refused)
{
	int sv[2];
	pair(sv);
	int a = open("/", O_PATH | O_CLOEXEC);
	send_raw(sv[0], "ab", 2, &a, 1);
	close(a);
	int before = count_fds();
	struct wire_peer p = to_inner;
	struct cordon_err e;
	cr_assert_eq(wire_recv(sv[1], &p, &rec, &e), -EPROTO);
	cr_assert_not_null(strstr(e.msg, "short record"), "%s", e.msg);
	cr_assert_eq(count_fds(), before);
	close(sv[0]);
	close(sv[1]);
}

Test(wire, oversized_record_refused)
{
	int sv[2];
	pair(sv);
	static unsigned char big[4 + WIRE_DATA_MAX + 1];
	uint32_t type = WIRE_BIND_CHECK;
	memcpy(big, &type, 4);
	memset(big + 4, 'a', sizeof(big) - 4);
	send_raw(sv[0], big, sizeof(big), NULL, 0);
	struct wire_peer p = to_inner;
	struct cordon_err e;
	memset(&e, 0, sizeof(e));
	cr_assert_lt(wire_recv(sv[1], &p, &rec, &e), 0);
	cr_assert_eq(e.err, EMSGSIZE);
	/* And the sender refuses to build one. */
	cr_assert_eq(wire_send(sv[0], WIRE_BIND_CHECK, big, WIRE_DATA_MAX + 1, -1), -EMSGSIZE);
	close(sv[0]);
	close(sv[1]);
}

Test(wire, eof)
{
	int sv[2];
	pair(sv);
	close(sv[0]);
	struct wire_peer p = to_inner;
	struct cordon_err e;
	cr_assert_eq(wire_recv(sv[1], &p, &rec, &e), 0);
	close(sv[1]);
}

Test(wire, empty_datagram_with_descriptor_does_not_leak_it)
{
	/* A zero-length datagram reads as EOF; a descriptor riding on it must
	 * not stay open in the receiver. */
	int sv[2];
	pair(sv);
	int a = open("/", O_PATH | O_CLOEXEC);
	char nothing = 0;
	send_raw(sv[0], &nothing, 0, &a, 1);
	close(a);
	int before = count_fds();
	struct wire_peer p = to_inner;
	struct cordon_err e;
	cr_assert_eq(wire_recv(sv[1], &p, &rec, &e), 0);
	cr_assert_eq(count_fds(), before, "descriptor leaked");
	close(sv[0]);
	close(sv[1]);
}

Test(wire, send_on_closed_peer_fails)
{
	int sv[2];
	pair(sv);
	close(sv[1]);
	uint32_t c = 0;
	cr_assert_eq(wire_send(sv[0], WIRE_BINDS_END, &c, sizeof(c), -1), -EPIPE);
	close(sv[0]);
}

/* The command stopped on its terminal (Ctrl-Z): to cordon only, a 32-bit
 * signal, no descriptor, as often as it stops. */
Test(wire_check, stopped)
{
	struct wire_peer out = { WIRE_TO_OUTER, 1u << WIRE_STOPPED };
	expect_good(&out, WIRE_STOPPED, 4, 0);
	expect_bad(&to_inner, WIRE_STOPPED, 4, 0, "stopped record sent the wrong way");
	expect_bad(&to_outer, WIRE_STOPPED, 8, 0, "stopped record of 8 bytes");
	expect_bad(&to_outer, WIRE_STOPPED, 4, 1, "carries a descriptor");
}

/* cordon's job went to the background or came back: to cordon-inner only,
 * a 32-bit flag, no descriptor, as often as it moves. */
Test(wire_check, foreground)
{
	struct wire_peer in = { WIRE_TO_INNER, 1u << WIRE_FOREGROUND };
	expect_good(&in, WIRE_FOREGROUND, 4, 0);
	expect_bad(&to_outer, WIRE_FOREGROUND, 4, 0, "foreground record sent the wrong way");
	expect_bad(&to_inner, WIRE_FOREGROUND, 0, 0, "foreground record of 0 bytes");
	expect_bad(&to_inner, WIRE_FOREGROUND, 4, 1, "carries a descriptor");
}
