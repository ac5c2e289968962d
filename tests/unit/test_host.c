/* test_host.c: host_canon, every spelling of one host reduced to one form,
 * and every refused byte and shape. */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>

#include <errno.h>
#include <string.h>

#include "host.h"

static struct host canon_ok(const char *in)
{
	struct host h;
	int r = host_canon(in, strlen(in), &h);
	cr_assert_eq(r, 0, "'%s' refused, wanted accepted", in);
	return h;
}

static void canon_bad(const char *in, size_t len)
{
	struct host h = { .kind = HOST_NAME, .text = "untouched" };
	cr_assert_eq(host_canon(in, len, &h), -EINVAL, "'%.*s' accepted, wanted refused", (int)len, in);
	cr_assert_str_eq(h.text, "untouched", "*h written on a refusal");
}

static void expect(const char *in, enum host_kind kind, const char *text)
{
	struct host h = canon_ok(in);
	cr_assert_eq(h.kind, kind, "'%s': kind %d, want %d", in, h.kind, kind);
	cr_assert_str_eq(h.text, text, "'%s'", in);
}

Test(host, names_lowercase_one_trailing_dot)
{
	expect("Example.COM", HOST_NAME, "example.com");
	expect("example.com.", HOST_NAME, "example.com");
	expect("a-b_c.x9", HOST_NAME, "a-b_c.x9");
	expect("localhost", HOST_NAME, "localhost");
	expect("allowed.test", HOST_NAME, "allowed.test");
	canon_bad("example.com..", 13);
	canon_bad(".example.com", 12);
	canon_bad("a..b", 4);
	canon_bad(".", 1);
}

Test(host, refused_bytes)
{
	canon_bad("exa\0mple.com", 12);
	canon_bad("example.com\r", 12);
	canon_bad("example.com\n", 12);
	canon_bad("exa mple.com", 12);
	canon_bad("exa%6dple.com", 13);
	canon_bad("example.com/", 12);
	canon_bad("user@example.com", 16);
	canon_bad("ex\\ample.com", 12);
	canon_bad("\xc3\xa9.com", 6);
	canon_bad("", 0);
}

Test(host, length_limits)
{
	char name[300];
	/* 4 labels of 63 + 3 dots = 255: too long; 253 fits. */
	memset(name, 'a', sizeof(name));
	name[63] = name[127] = name[191] = '.';
	canon_bad(name, 255);
	struct host h;
	cr_assert_eq(host_canon(name, 253, &h), 0);
	cr_assert_eq(strlen(h.text), 253);
	/* 253 and a trailing dot is 253. */
	name[253] = '.';
	cr_assert_eq(host_canon(name, 254, &h), 0);
	/* A label of 64. */
	memset(name, 'b', 64);
	name[64] = '.';
	name[65] = 'c';
	canon_bad(name, 66);
	cr_assert_eq(host_canon(name + 1, 65, &h), 0);
}

/* Every inet_aton spelling of 127.0.0.1 is one address. */
Test(host, ipv4_every_inet_aton_form)
{
	static const char *const forms[] = {
		"127.0.0.1", "127.1", "127.0.1", "2130706433", "0x7f000001", "0x7f.1",
		"0177.0.0.1", "0177.1", "0x7F.0.0.1", "017700000001", "127.0.0.1.",
		"0x7f.0x0.0x0.0x1", "127.000.000.001",
	};
	for (size_t i = 0; i < sizeof(forms) / sizeof(forms[0]); i++)
		expect(forms[i], HOST_IPV4, "127.0.0.1");
	expect("0", HOST_IPV4, "0.0.0.0");
	expect("0.0.0.0", HOST_IPV4, "0.0.0.0");
	expect("169.254.169.254", HOST_IPV4, "169.254.169.254");
	expect("0xa9fea9fe", HOST_IPV4, "169.254.169.254");
	expect("4294967295", HOST_IPV4, "255.255.255.255");
	struct host h = canon_ok("1.2.3.4");
	static const unsigned char want[4] = { 1, 2, 3, 4 };
	cr_assert_eq(memcmp(h.addr, want, 4), 0);
}

/* Numeric-looking names that are no valid address: refused, since some
 * resolver could still read them as one. */
Test(host, numeric_non_addresses_refused)
{
	static const char *const bad[] = {
		"256.0.0.1", "1.2.3.4.5", "4294967296", "0x", "08", "09.1", "1.0x1g.3.4",
		"1.2.3.256", "1.2.65536", "1.16777216", "example.123", "example.0x10",
		"1.2.3.", /* one dot dropped: "1.2.3" is an address */
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (strcmp(bad[i], "1.2.3.") == 0) {
			expect(bad[i], HOST_IPV4, "1.2.0.3");
			continue;
		}
		canon_bad(bad[i], strlen(bad[i]));
	}
	/* A numeric label elsewhere than last is a name. */
	expect("123.example", HOST_NAME, "123.example");
	expect("0x10.example", HOST_NAME, "0x10.example");
}

Test(host, ipv6_forms)
{
	expect("::1", HOST_IPV6, "::1");
	expect("[::1]", HOST_IPV6, "::1");
	expect("[0:0:0:0:0:0:0:1]", HOST_IPV6, "::1");
	expect("[0000::0001]", HOST_IPV6, "::1");
	expect("[FD00:EC2::254]", HOST_IPV6, "fd00:ec2::254");
	expect("[2001:DB8::1]", HOST_IPV6, "2001:db8::1");
	expect("[::]", HOST_IPV6, "::");
	/* v4-mapped is the IPv4 address. */
	expect("[::ffff:127.0.0.1]", HOST_IPV4, "127.0.0.1");
	expect("[::ffff:7f00:1]", HOST_IPV4, "127.0.0.1");
	expect("::FFFF:169.254.169.254", HOST_IPV4, "169.254.169.254");
}

Test(host, ipv6_refused)
{
	static const char *const bad[] = {
		"[fe80::1%eth0]", "[fe80::1%25eth0]", "fe80::1%1", "[::1", "::1]", "[]",
		"[::1]x", "[:::1]", "[1:2:3:4:5:6:7:8:9]", "[::g]", "[example.com]",
		"[127.0.0.1]", "[ ::1]",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		canon_bad(bad[i], strlen(bad[i]));
}
