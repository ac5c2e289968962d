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

/* An upgraded connection says so; any other line has no "upgrade" key. */
Test(netlog, upgrade)
{
	struct netlog_entry e = {
		.start = { 0, 0 }, .client_port = 1, .protocol = "http", .host = "a.test", .port = 80,
		.address = "127.0.0.1", .decision = "allow", .reason = "closed",
		.upgrade = "websocket", .bytes_up = 10, .bytes_down = 20, .duration_ms = 3,
	};
	char out[1024];
	size_t n = netlog_format(&e, out, sizeof(out));
	cr_assert_gt(n, 0);
	out[n] = '\0';
	cr_assert(strstr(out, "\"reason\":\"closed\",\"upgrade\":\"websocket\",\"bytes_up\":10,"), "%s", out);
	e.upgrade = NULL;
	n = netlog_format(&e, out, sizeof(out));
	out[n] = '\0';
	cr_assert_null(strstr(out, "upgrade"), "%s", out);
}
