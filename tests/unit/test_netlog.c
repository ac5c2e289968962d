/* test_netlog.c: the JSON line: every key, escaping, null, no truncation. */
#include <criterion/criterion.h>

#include <string.h>

#include "netlog.h"

Test(netlog, line)
{
	struct netlog_entry e = {
		.start = { 86400 + 3661, 5000000 }, .client_port = 4242, .protocol = "http",
		.host = "a.test", .port = 80, .address = NULL, .decision = "deny",
		.reason = "q\"\\\n\x01", .bytes_up = 1, .bytes_down = 2, .duration_ms = 3,
	};
	char out[1024];
	size_t n = netlog_format(&e, out, sizeof(out));
	cr_assert_gt(n, 0);
	out[n] = '\0';
	cr_assert_str_eq(out, "{\"time\":\"1970-01-02T01:01:01.005Z\",\"client_port\":4242,"
			      "\"protocol\":\"http\",\"host\":\"a.test\",\"port\":80,\"address\":null,"
			      "\"decision\":\"deny\",\"reason\":\"q\\\"\\\\\\u000a\\u0001\","
			      "\"bytes_up\":1,\"bytes_down\":2,\"duration_ms\":3}\n");
	cr_assert_eq(netlog_format(&e, out, 50), 0, "dropped, never truncated");
}
