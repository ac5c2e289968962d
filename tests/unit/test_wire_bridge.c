/* test_wire_bridge.c: the bridge channel's table: direction, sizes,
 * descriptors, once-only, and a round trip with a descriptor. */
#include <criterion/criterion.h>

#include <errno.h>
#include <fcntl.h>
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
