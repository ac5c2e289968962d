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
				      R("169.254.169.254") };
	struct allow_rule deny[] = { R("bad.example.com") };
	struct decision_rules rules = { allow, 4, deny, 1 };
	unsigned char lo[4] = { 127, 0, 0, 1 }, pub[4] = { 93, 184, 216, 34 };
	struct host h = H("www.example.com");
	struct decision d = decision_name(&rules, &h, 443);
	cr_assert_eq(d.reason, DECISION_ALLOWED);
	cr_assert_eq(decision_address(&d, 0, AF_INET, pub), DECISION_ALLOWED);
	cr_assert_eq(decision_address(&d, 0, AF_INET, lo), DECISION_NONPUBLIC,
		     "a wildcard-allowed name resolving to loopback");
	h = H("local.test");
	d = decision_name(&rules, &h, 8080);
	cr_assert_eq(decision_address(&d, 0, AF_INET, lo), DECISION_ALLOWED, "named exactly");
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
	cr_assert_eq(decision_address(&d, 0, AF_INET, md), DECISION_METADATA);
	/* A refused name stays refused whatever the address. */
	h = H("elsewhere.org");
	d = decision_name(&rules, &h, 443);
	cr_assert_eq(decision_address(&d, 0, AF_INET, pub), DECISION_UNLISTED);
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
}
