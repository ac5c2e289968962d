/* test_wire_bridge.c: the bridge channel's table: direction, sizes,
 * descriptors, once-only, and a round trip with a descriptor; the
 * decisions memfd's records: framing, decoding, and what its table
 * refuses. */
#include <criterion/criterion.h>

#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <string.h>
#include <unistd.h>

#include "unit_util.h"
#include "wire_bridge.h"

Test(wire_bridge, check_table)
{
	struct wire_bridge_peer to_bridge = { WIRE_BRIDGE_TO_BRIDGE, 0 };
	struct wire_bridge_peer to_inner = { WIRE_BRIDGE_TO_INNER, 0 };
	struct cordon_err e;
	cr_assert_eq(wire_bridge_check(&to_bridge, WIRE_BRIDGE_LISTENER, 2, 1, &e), 0);
	cr_assert_eq(wire_bridge_check(&to_bridge, WIRE_BRIDGE_LISTENER, 2, 0, &e), -EPROTO);
	cr_assert_eq(wire_bridge_check(&to_bridge, WIRE_BRIDGE_LISTENER, 3, 1, &e), -EPROTO);
	cr_assert_eq(wire_bridge_check(&to_inner, WIRE_BRIDGE_LISTENER, 2, 1, &e), -EPROTO);
	cr_assert(strstr(e.msg, "wrong way"));
	cr_assert_eq(wire_bridge_check(&to_inner, WIRE_BRIDGE_READY, 1, 0, &e), 0);
	cr_assert_eq(wire_bridge_check(&to_inner, WIRE_BRIDGE_READY, 1, 1, &e), -EPROTO);
	cr_assert_eq(wire_bridge_check(&to_bridge, WIRE_BRIDGE_READY, 1, 0, &e), -EPROTO);
	cr_assert_eq(wire_bridge_check(&to_inner, 0, 1, 0, &e), -EPROTO);
	cr_assert_eq(wire_bridge_check(&to_inner, WIRE_BRIDGE_TYPE_END, 1, 0, &e), -EPROTO);
	cr_assert(strstr(e.msg, "unknown"));
	cr_assert(strstr(e.msg, "bridge protocol error"), "%s", e.msg);
}

Test(wire_bridge, round_trip_and_once)
{
	int sv[2];
	pair(sv);
	int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	cr_assert_geq(fd, 0);
	uint16_t port = 3128;
	cr_assert_eq(wire_bridge_send(sv[0], WIRE_BRIDGE_LISTENER, &port, sizeof(port), fd), 0);
	uint32_t count = 1;
	cr_assert_eq(wire_bridge_send(sv[0], WIRE_BRIDGE_LISTENERS_END, &count, 4, -1), 0);
	cr_assert_eq(wire_bridge_send(sv[0], WIRE_BRIDGE_LISTENERS_END, &count, 4, -1), 0);
	struct wire_bridge_peer p = { WIRE_BRIDGE_TO_BRIDGE, 0 };
	struct wire_bridge_rec r;
	struct cordon_err e;
	cr_assert_eq(wire_bridge_recv(sv[1], &p, &r, &e), 1);
	cr_assert_eq(r.type, WIRE_BRIDGE_LISTENER);
	cr_assert_geq(r.fd, 0);
	cr_assert_eq(fcntl(r.fd, F_GETFD) & FD_CLOEXEC, FD_CLOEXEC);
	close(r.fd);
	cr_assert_eq(wire_bridge_recv(sv[1], &p, &r, &e), 1);
	cr_assert_eq(r.type, WIRE_BRIDGE_LISTENERS_END);
	cr_assert_eq(wire_bridge_recv(sv[1], &p, &r, &e), -EPROTO);
	cr_assert(strstr(e.msg, "bridge protocol error: second listeners-end"), "%s", e.msg);
	close(sv[0]);
	cr_assert_eq(wire_bridge_recv(sv[1], &p, &r, &e), 0);
	close(sv[1]);
	close(fd);
}

Test(wire_bridge, decisions_round_trip)
{
	unsigned char buf[3 * WIRE_BRIDGE_FRAME_MAX];
	struct wire_bridge_decision a = { WIRE_BRIDGE_DENY, 443, 0, "unlisted", "", "evil.test" };
	struct wire_bridge_decision b = { WIRE_BRIDGE_ALLOW, 80, 0, "closed", "2001:db8::1", "" };
	struct wire_bridge_decision c = { WIRE_BRIDGE_FAILED, 0, 0, "bad-request", "", "" };
	memset(c.host, 'h', sizeof(c.host) - 1); /* the longest name: 253 bytes */
	size_t len = wire_bridge_decision_frame(&a, buf);
	cr_assert_eq(len, sizeof(struct wire_bridge_frame) +
		     offsetof(struct wire_bridge_decision, host) + strlen("evil.test"),
		     "only the host's own bytes travel");
	len += wire_bridge_decision_frame(&b, buf + len);
	len += wire_bridge_decision_frame(&c, buf + len);
	struct wire_bridge_decision d;
	struct cordon_err e;
	size_t at = 0;
	cr_assert_eq(wire_bridge_decision_next(buf, len, &at, &d, &e), 1);
	cr_assert_eq(d.verdict, WIRE_BRIDGE_DENY);
	cr_assert_eq(d.port, 443);
	cr_assert_str_eq(d.reason, "unlisted");
	cr_assert_str_eq(d.host, "evil.test");
	cr_assert_str_eq(d.address, "");
	cr_assert_eq(wire_bridge_decision_next(buf, len, &at, &d, &e), 1);
	cr_assert_eq(d.verdict, WIRE_BRIDGE_ALLOW);
	cr_assert_str_eq(d.address, "2001:db8::1");
	cr_assert_str_eq(d.host, "");
	cr_assert_eq(wire_bridge_decision_next(buf, len, &at, &d, &e), 1);
	cr_assert_eq(strlen(d.host), sizeof(d.host) - 1);
	cr_assert_eq(at, len);
	cr_assert_eq(wire_bridge_decision_next(buf, len, &at, &d, &e), 0, "the end");
	at = 0;
	cr_assert_eq(wire_bridge_decision_next(buf, 7, &at, &d, &e), 0, "a frame cut short");
	cr_assert_eq(wire_bridge_decision_next(buf, 20, &at, &d, &e), 0, "a payload cut short");
	cr_assert_eq(at, 0);
}

/* The receiver NUL-terminates what it was sent: strings that fill their
 * fields come out cut, never unterminated. */
Test(wire_bridge, decision_strings_terminated_by_the_receiver)
{
	unsigned char buf[WIRE_BRIDGE_FRAME_MAX];
	struct wire_bridge_decision a = { WIRE_BRIDGE_DENY, 1, 0, "", "", "x" };
	memset(a.reason, 'r', sizeof(a.reason));
	memset(a.address, 'a', sizeof(a.address));
	size_t len = wire_bridge_decision_frame(&a, buf);
	struct wire_bridge_decision d;
	struct cordon_err e;
	size_t at = 0;
	cr_assert_eq(wire_bridge_decision_next(buf, len, &at, &d, &e), 1);
	cr_assert_eq(strlen(d.reason), sizeof(d.reason) - 1);
	cr_assert_eq(strlen(d.address), sizeof(d.address) - 1);
	cr_assert_str_eq(d.host, "x");
}

static int next_of(const struct wire_bridge_frame *f, const void *payload, struct cordon_err *e)
{
	unsigned char buf[sizeof(*f) + 512];
	memcpy(buf, f, sizeof(*f));
	memcpy(buf + sizeof(*f), payload, f->len);
	struct wire_bridge_decision d;
	size_t at = 0;
	return wire_bridge_decision_next(buf, sizeof(*f) + f->len, &at, &d, e);
}

Test(wire_bridge, decisions_table_refuses)
{
	struct wire_bridge_decision ok = { WIRE_BRIDGE_ALLOW, 443, 0, "closed", "", "ok.test" };
	const uint32_t fixed = offsetof(struct wire_bridge_decision, host);
	struct cordon_err e;
	struct wire_bridge_frame f = { WIRE_BRIDGE_DECISION, fixed + 7 };
	cr_assert_eq(next_of(&f, &ok, &e), 1, "control: a good record");
	f.len = fixed - 1;
	cr_assert_eq(next_of(&f, &ok, &e), -EPROTO, "shorter than its fixed part");
	cr_assert(strstr(e.msg, "bridge decisions protocol error: decision record of"), "%s", e.msg);
	f.len = fixed + WIRE_BRIDGE_HOST_MAX;
	cr_assert_eq(next_of(&f, &ok, &e), -EPROTO, "a host with no room for its NUL");
	f = (struct wire_bridge_frame){ WIRE_BRIDGE_READY, 1 };
	cr_assert_eq(next_of(&f, &ok, &e), -EPROTO, "a socket's record in the memfd");
	cr_assert(strstr(e.msg, "unknown record type"), "%s", e.msg);
	f = (struct wire_bridge_frame){ 99, fixed };
	cr_assert_eq(next_of(&f, &ok, &e), -EPROTO);
	f = (struct wire_bridge_frame){ WIRE_BRIDGE_DECISION, fixed + 7 };
	struct wire_bridge_decision bad = ok;
	bad.verdict = WIRE_BRIDGE_FAILED + 1;
	cr_assert_eq(next_of(&f, &bad, &e), -EPROTO, "no such verdict");
	bad.verdict = 0;
	cr_assert_eq(next_of(&f, &bad, &e), -EPROTO, "no such verdict");
	bad = ok;
	bad.zero = 1;
	cr_assert_eq(next_of(&f, &bad, &e), -EPROTO, "padding that is not zero");
	/* And the other way: a decision is no record of the socket. */
	struct wire_bridge_peer to_inner = { WIRE_BRIDGE_TO_INNER, 0 };
	cr_assert_eq(wire_bridge_check(&to_inner, WIRE_BRIDGE_DECISION, fixed, 0, &e), -EPROTO);
	cr_assert(strstr(e.msg, "unknown"), "%s", e.msg);
}
