/* test_netnote.c: reading the no-route counters of /proc/net/snmp{,6}. */
#include <criterion/criterion.h>

#include "netnote.h"

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
