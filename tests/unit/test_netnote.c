/* test_netnote.c: reading the no-route counters of /proc/net/snmp{,6}. */
#include <criterion/criterion.h>

#include <stdio.h>
#include <string.h>

#include "observe/netnote.h"

static const char snmp[] =
	"Ip: Forwarding DefaultTTL InReceives InHdrErrors InAddrErrors ForwDatagrams "
	"InUnknownProtos InDiscards InDelivers OutRequests OutDiscards OutNoRoutes ReasmTimeout\n"
	"Ip: 2 64 0 0 0 0 0 0 0 0 0 2 0\n"
	"Icmp: InMsgs InErrors\n"
	"Icmp: 0 0\n";
static const char snmp6[] =
	"Ip6InReceives                   \t0\n"
	"Ip6OutNoRoutes                  \t3\n"
	"Ip6OutNoRoutesX                 \t9\n";

Test(netnote, counts_both_families)
{
	cr_assert_eq(netnote_noroutes(snmp, snmp6), 5);
	cr_assert_eq(netnote_noroutes(snmp, NULL), 2);
	cr_assert_eq(netnote_noroutes(NULL, snmp6), 3);
	cr_assert_eq(netnote_noroutes(NULL, NULL), 0);
}

Test(netnote, malformed_counts_nothing)
{
	cr_assert_eq(netnote_noroutes("Ip: OutNoRoutes\n", ""), 0, "no value line");
	cr_assert_eq(netnote_noroutes("Ip: A OutNoRoutes\nIp: 1\n", ""), 0, "short value line");
	cr_assert_eq(netnote_noroutes("", "Ip6OutNoRoutes"), 0);
	cr_assert_eq(netnote_noroutes("Ip: OutNoRoutes\nIp: 7\n", ""), 7);
}

#define LINE(host, port, decision, reason, addr)                                               \
	"{\"time\":\"2026-01-01T00:00:00.000Z\",\"client_port\":1,\"protocol\":\"http\","   \
	"\"host\":" host ",\"port\":" port ",\"address\":" addr ",\"decision\":\"" decision   \
	"\",\"reason\":\"" reason "\",\"bytes_up\":0,\"bytes_down\":0,\"duration_ms\":0}"

static void add(struct netnote_proxy *s, const char *line)
{
	netnote_proxy_add(s, line, strlen(line));
}

Test(netnote, proxy_one_line_per_host_port_reason)
{
	struct netnote_proxy s = { 0 };
	add(&s, LINE("\"registry.example\"", "443", "deny", "unlisted", "null"));
	add(&s, LINE("\"registry.example\"", "443", "deny", "unlisted", "null"));
	add(&s, LINE("\"registry.example\"", "80", "deny", "unlisted", "null"));
	add(&s, LINE("\"ok.example\"", "443", "allow", "closed", "\"93.184.216.34\""));
	add(&s, LINE("null", "0", "error", "bad-request", "null"));
	add(&s, LINE("\"gone.example\"", "443", "error", "client-closed", "null"));
	add(&s, LINE("\"nx.example\"", "443", "error", "could-not-resolve", "null"));
	add(&s, "not json");
	cr_assert_eq(s.seen, 7, "every logged connection counts as seen");
	cr_assert_eq(s.n, 3, "one per host, port and reason; the client's own errors are not");
	char out[512];
	netnote_proxy_line(&s.v[0], out, sizeof(out));
	cr_assert_str_eq(out, "refused registry.example:443 (not listed): add --allow-domain "
			 "registry.example");
	netnote_proxy_line(&s.v[2], out, sizeof(out));
	cr_assert(strstr(out, "nx.example:443 (could not resolve)"), "%s", out);
}

Test(netnote, proxy_reasons_name_the_flag)
{
	char out[512];
	struct netnote_host h = { "svc.test", 5432, "local-address", "127.0.0.1" };
	netnote_proxy_line(&h, out, sizeof(out));
	cr_assert(strstr(out, "127.0.0.1") && strstr(out, "--allow-domain svc.test:5432"), "%s", out);
	struct netnote_host d = { "bad.test", 443, "denied", "" };
	netnote_proxy_line(&d, out, sizeof(out));
	cr_assert(strstr(out, "--deny-domain"), "%s", out);
	struct netnote_host v6 = { "::1", 22, "unlisted", "" };
	netnote_proxy_line(&v6, out, sizeof(out));
	cr_assert(strstr(out, "refused [::1]:22") && strstr(out, "--allow-domain [::1]"), "%s", out);
	struct netnote_host cf = { "down.test", 443, "connect-failed", "" };
	netnote_proxy_line(&cf, out, sizeof(out));
	cr_assert_str_eq(out, "failed down.test:443 (could not connect)");
	struct netnote_host ctl = { "a\x1b]0;x\x07.test", 80, "unlisted", "" };
	netnote_proxy_line(&ctl, out, sizeof(out));
	cr_assert_null(strchr(out, '\x1b'), "no terminal escape reaches stderr: %s", out);
}

Test(netnote, proxy_table_is_bounded)
{
	struct netnote_proxy s = { 0 };
	char line[512];
	for (int i = 0; i < NETNOTE_MAX_HOSTS + 5; i++) {
		(void)snprintf(line, sizeof(line), LINE("\"h%d.test\"", "443", "deny", "unlisted", "null"), i);
		add(&s, line);
	}
	cr_assert_eq(s.n, NETNOTE_MAX_HOSTS);
	cr_assert_eq(s.more, 5);
}
