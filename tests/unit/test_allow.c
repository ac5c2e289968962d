/* test_allow.c: the pattern language and the matcher. */
#include <criterion/criterion.h>

#include <errno.h>
#include <string.h>

#include "allow.h"

static struct allow_rule rule(const char *p)
{
	struct allow_rule r;
	struct cordon_err e = { 0 };
	cr_assert_eq(allow_rule_parse(p, "--allow-domain", 0, &r, &e), 0, "'%s': %s", p, e.msg);
	return r;
}

static void rule_bad(const char *p, const char *needle)
{
	struct allow_rule r;
	struct cordon_err e = { 0 };
	cr_assert_eq(allow_rule_parse(p, "--allow-domain", 0, &r, &e), -EINVAL, "'%s' accepted", p);
	cr_assert(strstr(e.msg, needle), "'%s': message '%s' lacks '%s'", p, e.msg, needle);
	cr_assert(strncmp(e.msg, "--allow-domain ", 15) == 0, "message names the flag: %s", e.msg);
}

static struct host H(const char *s)
{
	struct host h;
	cr_assert_eq(host_canon(s, strlen(s), &h), 0, "%s", s);
	return h;
}

static int m(const char *pattern, const char *host, uint16_t port)
{
	struct allow_rule r = rule(pattern);
	struct host h = H(host);
	return allow_rule_matches(&r, &h, port);
}

Test(allow, exact)
{
	cr_assert(m("example.com", "example.com", 443));
	cr_assert(m("example.com", "EXAMPLE.com.", 80));
	cr_assert(m("Example.COM.", "example.com", 80));
	cr_assert_not(m("example.com", "www.example.com", 443));
	cr_assert_not(m("example.com", "xexample.com", 443));
	cr_assert_not(m("example.com", "example.com.evil", 443));
}

Test(allow, star_is_strict_subdomains)
{
	cr_assert(m("*.example.com", "a.example.com", 443));
	cr_assert(m("*.example.com", "a.b.example.com", 443));
	cr_assert_not(m("*.example.com", "example.com", 443));
	cr_assert_not(m("*.example.com", "aexample.com", 443));
	cr_assert_not(m("*.example.com", "a.example.com.evil.net", 443));
}

Test(allow, double_star_is_both)
{
	cr_assert(m("**.example.com", "example.com", 443));
	cr_assert(m("**.example.com", "a.example.com", 443));
	cr_assert_not(m("**.example.com", "badexample.com", 443));
}

Test(allow, ports)
{
	cr_assert(m("example.com:443", "example.com", 443));
	cr_assert_not(m("example.com:443", "example.com", 80));
	cr_assert(m("*.example.com:8080", "a.example.com", 8080));
	cr_assert_not(m("*.example.com:8080", "a.example.com", 8081));
	cr_assert(m("[::1]:8080", "::1", 8080));
	cr_assert(m("::1", "[::1]", 22));
	cr_assert(m("127.0.0.1:9", "127.1", 9));
	rule_bad("example.com:0", "port");
	rule_bad("example.com:65536", "port");
	rule_bad("example.com:123456", "port");
	/* Not a port: a name that fails canonicalization. */
	rule_bad("example.com:", "not a host");
	rule_bad("example.com:-1", "not a host");
}

/* Every spelling of an address meets its rule, and wildcards never an IP. */
Test(allow, ip_literals)
{
	cr_assert(m("127.0.0.1", "2130706433", 80));
	cr_assert(m("127.0.0.1", "[::ffff:127.0.0.1]", 80));
	rule_bad("*.0.0.1", "");
	rule_bad("*.127.0.0.1", "wildcard");
	rule_bad("**.[::1]", "");
	struct allow_rule any;
	cr_assert_eq(allow_rule_parse("*", "--allow-domain", 1, &any, NULL), 0);
	struct allow_rule sub = rule("*.example.com");
	struct host ip = H("1.2.3.4");
	cr_assert_not(allow_rule_matches(&sub, &ip, 80));
}

Test(allow, bare_star_needs_allow_all)
{
	rule_bad("*", "every host");
	rule_bad("*:443", "every host");
	struct allow_rule r;
	cr_assert_eq(allow_rule_parse("*", "--allow-domain", 1, &r, NULL), 0);
	cr_assert_eq(r.kind, ALLOW_ANY);
	struct host h = H("anything.example");
	cr_assert(allow_rule_matches(&r, &h, 1));
}

Test(allow, bad_patterns)
{
	rule_bad("", "not a host");
	rule_bad("*.", "not a host");
	rule_bad("**.", "not a host");
	rule_bad("a.*.com", "not a host");
	rule_bad("exa mple.com", "not a host");
	rule_bad("http://example.com", "not a host");
}

Test(allow, check_deny_wins_and_named_beats_wildcard)
{
	struct allow_rule allow[] = { rule("**.example.com"), rule("api.example.com"),
				      rule("127.0.0.1:8080") };
	struct allow_rule deny[] = { rule("bad.example.com"), rule("*.internal.example.com") };
	struct host h;
	h = H("example.com");
	cr_assert_eq(allow_check(allow, 3, deny, 2, &h, 443), ALLOW_WILDCARD);
	h = H("api.example.com");
	cr_assert_eq(allow_check(allow, 3, deny, 2, &h, 443), ALLOW_NAMED);
	h = H("bad.example.com");
	cr_assert_eq(allow_check(allow, 3, deny, 2, &h, 443), ALLOW_DENIED);
	h = H("x.internal.example.com");
	cr_assert_eq(allow_check(allow, 3, deny, 2, &h, 443), ALLOW_DENIED);
	h = H("other.org");
	cr_assert_eq(allow_check(allow, 3, deny, 2, &h, 443), ALLOW_UNLISTED);
	h = H("127.1");
	cr_assert_eq(allow_check(allow, 3, deny, 2, &h, 8080), ALLOW_NAMED_PORT);
	cr_assert_eq(allow_check(allow, 3, deny, 2, &h, 8081), ALLOW_UNLISTED);
	cr_assert_eq(allow_check(NULL, 0, NULL, 0, &h, 80), ALLOW_UNLISTED);
	/* A rule naming the port wins over one without, in either order. */
	struct allow_rule both[] = { rule("api.example.com"), rule("api.example.com:8443"),
				     rule("**.example.com") };
	h = H("api.example.com");
	cr_assert_eq(allow_check(both, 3, NULL, 0, &h, 8443), ALLOW_NAMED_PORT);
	cr_assert_eq(allow_check(both + 1, 2, NULL, 0, &h, 443), ALLOW_WILDCARD);
	cr_assert_eq(allow_check(both, 3, NULL, 0, &h, 443), ALLOW_NAMED);
	struct allow_rule all;
	cr_assert_eq(allow_rule_parse("*", "--deny-domain", 1, &all, NULL), 0);
	h = H("api.example.com");
	cr_assert_eq(allow_check(allow, 3, &all, 1, &h, 443), ALLOW_DENIED);
}
