/* test_loop.c: what the bridge does with each connection once the sandbox
 * ended: keep relaying until its sandbox side was passed on in full, never
 * past the drain deadline. */
#include <criterion/criterion.h>

#include "loop.h"

Test(loop, drained_tunnel_is_done_as_allowed)
{
	cr_assert_eq(loop_drain_step(CS_RELAY, 1, 100, 1500), LOOP_DRAIN_DONE);
}

Test(loop, tunnel_with_bytes_still_in_flight_is_kept)
{
	cr_assert_eq(loop_drain_step(CS_RELAY, 0, 100, 1500), LOOP_DRAIN_KEEP);
	cr_assert_eq(loop_drain_step(CS_RELAY, 0, 1499, 1500), LOOP_DRAIN_KEEP);
}

Test(loop, connection_not_yet_relaying_is_kept)
{
	static const enum conn_state early[] = { CS_HEAD, CS_SOCKS_REQ, CS_RESOLVING, CS_CONNECTING,
						 CS_UPSTREAM_REPLY, CS_REFUSING };
	for (size_t i = 0; i < sizeof(early) / sizeof(early[0]); i++)
		cr_assert_eq(loop_drain_step(early[i], 0, 100, 1500), LOOP_DRAIN_KEEP, "state %d",
			     early[i]);
}

Test(loop, deadline_cuts_whatever_is_left)
{
	cr_assert_eq(loop_drain_step(CS_RELAY, 0, 1500, 1500), LOOP_DRAIN_CUT);
	cr_assert_eq(loop_drain_step(CS_RELAY, 1, 1501, 1500), LOOP_DRAIN_CUT);
	cr_assert_eq(loop_drain_step(CS_HEAD, 0, 2000, 1500), LOOP_DRAIN_CUT);
}

Test(loop, wait_is_unbounded_until_the_sandbox_ends_then_the_time_left)
{
	cr_assert_eq(loop_wait_ms(0, 12345), -1);
	cr_assert_eq(loop_wait_ms(1500, 100), 1400);
	cr_assert_eq(loop_wait_ms(1500, 1500), 0);
	cr_assert_eq(loop_wait_ms(1500, 9999), 0);
}
