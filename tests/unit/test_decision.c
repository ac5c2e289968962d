/* test_decision.c: the verdict in DESIGN section 8's order and the words of
 * each refusal. */
#include <criterion/criterion.h>

#include <arpa/inet.h>
#include <string.h>

#include "decision.h"

static struct allow_rule R(const char *p)
{
	struct allow_rule r;
	cr_assert_eq(allow_rule_parse(p, "--allow-domain", 0, &r, NULL), 0, "%s", p);
	return r;
}

static struct host H(const char *s)
{
	struct host h;
	cr_assert_eq(host_canon(s, strlen(s), &h), 0, "%s", s);
	return h;
}

Test(decision, name_then_address)
{
	struct allow_rule allow[] = { R("**.example.com"), R("local.test:8080"), R("127.0.0.1:9"),
				      R("169.254.169.254:80") };
	struct allow_rule deny[] = { R("bad.example.com") };
	struct decision_rules rules = { allow, 4, deny, 1, NULL, 0 };
	unsigned char lo[4] = { 127, 0, 0, 1 }, pub[4] = { 93, 184, 216, 34 };
	struct host h = H("www.example.com");
	struct decision d = decision_name(&rules, &h, 443);
	cr_assert_eq(d.reason, DECISION_ALLOWED);
	cr_assert_eq(decision_address(&rules, &d, 0, AF_INET, pub), DECISION_ALLOWED);
	cr_assert_eq(decision_address(&rules, &d, 0, AF_INET, lo), DECISION_LOCAL,
		     "a wildcard-allowed name resolving to loopback");
	unsigned char priv[4] = { 10, 1, 2, 3 };
	cr_assert_eq(decision_address(&rules, &d, 0, AF_INET, priv), DECISION_NONPUBLIC);
	h = H("local.test");
	d = decision_name(&rules, &h, 8080);
	cr_assert_eq(decision_address(&rules, &d, 0, AF_INET, lo), DECISION_ALLOWED, "named exactly");
	h = H("bad.example.com");
	cr_assert_eq(decision_name(&rules, &h, 443).reason, DECISION_DENIED);
	h = H("elsewhere.org");
	cr_assert_eq(decision_name(&rules, &h, 443).reason, DECISION_UNLISTED);
	/* IP literals are checked at once. */
	h = H("127.1");
	cr_assert_eq(decision_name(&rules, &h, 9).reason, DECISION_ALLOWED);
	cr_assert_eq(decision_name(&rules, &h, 10).reason, DECISION_UNLISTED);
	h = H("169.254.169.254");
	cr_assert_eq(decision_name(&rules, &h, 80).reason, DECISION_ALLOWED, "metadata named as itself");
	/* A name that resolves to metadata is never enough. */
	unsigned char md[4] = { 169, 254, 169, 254 };
	h = H("local.test");
	d = decision_name(&rules, &h, 8080);
	cr_assert_eq(decision_address(&rules, &d, 0, AF_INET, md), DECISION_METADATA);
	/* A refused name stays refused whatever the address. */
	h = H("elsewhere.org");
	d = decision_name(&rules, &h, 443);
	cr_assert_eq(decision_address(&rules, &d, 0, AF_INET, pub), DECISION_UNLISTED);
}

/* A rule without a port is for a service on the internet: it never reaches
 * this machine (loopback, link-local, its own addresses), every port of it,
 * while a private address keeps the rule it had (named is enough). */
Test(decision, portless_rule_never_reaches_this_machine)
{
	struct allow_rule allow[] = { R("svc.test"), R("svc.test:8080"), R("127.0.0.1"),
				      R("169.254.169.254") };
	struct addr_host own[] = { { AF_INET, { 203, 0, 113, 7 } } };
	struct decision_rules rules = { allow, 4, NULL, 0, own, 1 };
	unsigned char lo[4] = { 127, 0, 0, 1 }, ll[4] = { 169, 254, 1, 1 }, me[4] = { 203, 0, 113, 7 },
		      priv[4] = { 192, 168, 1, 2 }, lo6[16] = { [15] = 1 }, pub[4] = { 93, 184, 216, 34 };
	struct host h = H("svc.test");
	struct decision d = decision_name(&rules, &h, 5432);
	cr_assert_eq(d.reason, DECISION_ALLOWED, "the name is listed for every port");
	cr_assert_eq(decision_address(&rules, &d, 0, AF_INET, lo), DECISION_LOCAL);
	cr_assert_eq(decision_address(&rules, &d, 0, AF_INET6, lo6), DECISION_LOCAL);
	cr_assert_eq(decision_address(&rules, &d, 0, AF_INET, ll), DECISION_LOCAL);
	cr_assert_eq(decision_address(&rules, &d, 0, AF_INET, me), DECISION_LOCAL,
		     "the host's own public address");
	cr_assert_eq(decision_address(&rules, &d, 0, AF_INET, priv), DECISION_ALLOWED,
		     "a private address keeps its rule");
	cr_assert_eq(decision_address(&rules, &d, 0, AF_INET, pub), DECISION_ALLOWED);
	d = decision_name(&rules, &h, 8080);
	cr_assert_eq(decision_address(&rules, &d, 0, AF_INET, lo), DECISION_ALLOWED,
		     "control: the port named");
	cr_assert_eq(decision_address(&rules, &d, 0, AF_INET, me), DECISION_ALLOWED);
	h = H("127.0.0.1");
	cr_assert_eq(decision_name(&rules, &h, 22).reason, DECISION_LOCAL,
		     "the loopback address named without a port");
	h = H("169.254.169.254");
	cr_assert_eq(decision_name(&rules, &h, 80).reason, DECISION_METADATA,
		     "metadata named without its port");
	rules.own = NULL;
	rules.nown = 0;
	h = H("svc.test");
	d = decision_name(&rules, &h, 5432);
	cr_assert_eq(decision_address(&rules, &d, 0, AF_INET, me), DECISION_ALLOWED,
		     "an address that is not this machine's is public");
}

Test(decision, messages_name_host_and_flag)
{
	char out[512];
	struct host h = H("Denied.Test");
	decision_message(DECISION_UNLISTED, &h, 443, NULL, out, sizeof(out));
	cr_assert(strstr(out, "denied.test:443"), "%s", out);
	cr_assert(strstr(out, "--allow-domain denied.test"), "%s", out);
	decision_message(DECISION_DENIED, &h, 443, NULL, out, sizeof(out));
	cr_assert(strstr(out, "--deny-domain"), "%s", out);
	decision_message(DECISION_NONPUBLIC, &h, 80, "127.0.0.1", out, sizeof(out));
	cr_assert(strstr(out, "127.0.0.1") && strstr(out, "non-public") &&
		  strstr(out, "--allow-domain denied.test:80"), "%s", out);
	h = H("[::1]");
	decision_message(DECISION_UNLISTED, &h, 22, NULL, out, sizeof(out));
	cr_assert(strstr(out, "[::1]:22"), "%s", out);
	cr_assert_str_eq(decision_reason_word(DECISION_METADATA), "metadata-address");
	h = H("svc.test");
	decision_message(DECISION_LOCAL, &h, 5432, "127.0.0.1", out, sizeof(out));
	cr_assert(strstr(out, "127.0.0.1") && strstr(out, "--allow-domain svc.test:5432"), "%s", out);
	cr_assert_str_eq(decision_reason_word(DECISION_LOCAL), "local-address");
}
