/* test_netnote.c: reading the no-route counters of /proc/net/snmp{,6}, and
 * the lines on refused hosts from the bridge's decisions. */
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

static void add(struct netnote_proxy *s, const char *host, uint16_t port, uint32_t verdict,
		const char *reason, const char *addr)
{
	struct wire_bridge_decision d = { verdict, port, 0, "", "", "" };
	(void)snprintf(d.reason, sizeof(d.reason), "%s", reason);
	(void)snprintf(d.address, sizeof(d.address), "%s", addr);
	(void)snprintf(d.host, sizeof(d.host), "%s", host);
	netnote_proxy_add(s, &d);
}

Test(netnote, proxy_one_line_per_host_port_reason)
{
	struct netnote_proxy s = { 0 };
	add(&s, "registry.example", 443, WIRE_BRIDGE_DENY, "unlisted", "");
	add(&s, "registry.example", 443, WIRE_BRIDGE_DENY, "unlisted", "");
	add(&s, "registry.example", 80, WIRE_BRIDGE_DENY, "unlisted", "");
	add(&s, "ok.example", 443, WIRE_BRIDGE_ALLOW, "closed", "93.184.216.34");
	add(&s, "", 0, WIRE_BRIDGE_FAILED, "bad-request", "");
	add(&s, "gone.example", 443, WIRE_BRIDGE_FAILED, "client-closed", "");
	add(&s, "nx.example", 443, WIRE_BRIDGE_FAILED, "could-not-resolve", "");
	add(&s, "", 0, WIRE_BRIDGE_DENY, "unlisted", "");
	cr_assert_eq(s.seen, 8, "every decision counts as a connection seen");
	cr_assert_eq(s.n, 3, "one per host, port and reason; the client's own errors are not, "
		     "nor a refusal without a host");
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
	cr_assert_str_eq(out, "refused a\\x1b]0;x\\x07.test:80 (not listed): add --allow-domain "
			 "a\\x1b]0;x\\x07.test", "escaped as termsafe.h does");
	struct netnote_host csi = { "c.test", 443, "connect-failed", "\xc2\x9b" "2J" };
	netnote_proxy_line(&csi, out, sizeof(out));
	cr_assert_str_eq(out, "failed c.test:443 (could not connect to \\xc2\\x9b2J)", "%s", out);
}

Test(netnote, proxy_table_is_bounded)
{
	struct netnote_proxy s = { 0 };
	char line[512];
	for (int i = 0; i < NETNOTE_MAX_HOSTS + 5; i++) {
		(void)snprintf(line, sizeof(line), "h%d.test", i);
		add(&s, line, 443, WIRE_BRIDGE_DENY, "unlisted", "");
	}
	cr_assert_eq(s.n, NETNOTE_MAX_HOSTS);
	cr_assert_eq(s.more, 5);
}
