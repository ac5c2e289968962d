/* test_addr.c: the non-public table and the permission rule. */
#include <criterion/criterion.h>

#include <arpa/inet.h>
#include <netinet/in.h>

#include "addr.h"

static enum addr_class c4(const char *s)
{
	unsigned char a[4];
	cr_assert_eq(inet_pton(AF_INET, s, a), 1, "%s", s);
	return addr_classify(AF_INET, a);
}

static enum addr_class c6(const char *s)
{
	unsigned char a[16];
	cr_assert_eq(inet_pton(AF_INET6, s, a), 1, "%s", s);
	return addr_classify(AF_INET6, a);
}

Test(addr, ipv4_nonpublic)
{
	static const char *const local[] = {
		"0.0.0.0", "0.255.255.255", "127.0.0.1", "127.255.255.254", "169.254.0.1",
		"169.254.255.255",
	};
	for (size_t i = 0; i < sizeof(local) / sizeof(local[0]); i++)
		cr_assert_eq(c4(local[i]), ADDR_LOCAL, "%s: this machine or its link", local[i]);
	static const char *const np[] = {
		"10.0.0.1", "10.255.255.255", "100.64.0.1",
		"100.127.255.255", "172.16.0.1", "172.31.255.255", "192.0.0.1", "192.0.2.1", "192.88.99.1", "192.168.1.1",
		"198.18.0.1", "198.19.255.255", "198.51.100.1", "203.0.113.1", "224.0.0.1",
		"239.255.255.255", "240.0.0.1", "255.255.255.255",
	};
	for (size_t i = 0; i < sizeof(np) / sizeof(np[0]); i++)
		cr_assert_eq(c4(np[i]), ADDR_NONPUBLIC, "%s", np[i]);
	cr_assert_eq(c4("169.254.169.254"), ADDR_METADATA);
}

Test(addr, ipv4_public_edges)
{
	static const char *const pub[] = {
		"1.1.1.1", "8.8.8.8", "9.255.255.255", "11.0.0.0", "100.63.255.255",
		"100.128.0.0", "126.255.255.255", "128.0.0.0", "169.253.255.255",
		"169.255.0.0", "172.15.255.255", "172.32.0.0", "192.0.1.0", "192.0.3.0",
		"192.167.255.255", "192.169.0.0", "198.17.255.255", "198.20.0.0",
		"223.255.255.255",
	};
	for (size_t i = 0; i < sizeof(pub) / sizeof(pub[0]); i++)
		cr_assert_eq(c4(pub[i]), ADDR_PUBLIC, "%s", pub[i]);
}

Test(addr, ipv6)
{
	static const char *const local[] = {
		"::", "::1", "::ffff:127.0.0.1", "::ffff:0.0.0.0", "2002:7f00:1::", "fe80::1",
		"febf::1", "64:ff9b::7f00:1",
	};
	for (size_t i = 0; i < sizeof(local) / sizeof(local[0]); i++)
		cr_assert_eq(c6(local[i]), ADDR_LOCAL, "%s: this machine or its link", local[i]);
	static const char *const np[] = {
		"::2", "::127.0.0.1", "::ffff:10.0.0.1",
		"64:ff9b::10.0.0.1", "64:ff9b:1::1", "100::1", "2001::1", "2001:db8::1",
		"2002:a00:1::1", "3fff::1", "fc00::1", "fd12:3456::1",
		"fec0::1", "ff02::1",
	};
	for (size_t i = 0; i < sizeof(np) / sizeof(np[0]); i++)
		cr_assert_eq(c6(np[i]), ADDR_NONPUBLIC, "%s", np[i]);
	cr_assert_eq(c6("fd00:ec2::254"), ADDR_METADATA);
	cr_assert_eq(c6("::ffff:169.254.169.254"), ADDR_METADATA);
	cr_assert_eq(c6("2606:4700::1111"), ADDR_PUBLIC);
	cr_assert_eq(c6("2a00:1450::1"), ADDR_PUBLIC);
	cr_assert_eq(c6("::ffff:8.8.8.8"), ADDR_PUBLIC);
	cr_assert_eq(c6("64:ff9b::808:808"), ADDR_PUBLIC);
	cr_assert_eq(c6("2002:808:808::1"), ADDR_PUBLIC);
	cr_assert_eq(addr_classify(AF_UNIX, (const unsigned char *)"x"), ADDR_NONPUBLIC);
}

Test(addr, permitted)
{
	cr_assert(addr_permitted(ADDR_PUBLIC, 0, 0, 0));
	cr_assert_not(addr_permitted(ADDR_NONPUBLIC, 0, 0, 0));
	cr_assert(addr_permitted(ADDR_NONPUBLIC, 1, 0, 0), "private: a name without a port is enough");
	cr_assert(addr_permitted(ADDR_NONPUBLIC, 0, 1, 0));
	cr_assert_not(addr_permitted(ADDR_LOCAL, 0, 0, 0));
	cr_assert_not(addr_permitted(ADDR_LOCAL, 1, 0, 0), "this machine: a name without a port is not");
	cr_assert_not(addr_permitted(ADDR_LOCAL, 1, 1, 0), "nor the address without a port");
	cr_assert_not(addr_permitted(ADDR_LOCAL, 0, 0, 1), "a port without a name is not");
	cr_assert(addr_permitted(ADDR_LOCAL, 1, 0, 1));
	cr_assert(addr_permitted(ADDR_LOCAL, 1, 1, 1));
	cr_assert_not(addr_permitted(ADDR_METADATA, 0, 0, 0));
	cr_assert_not(addr_permitted(ADDR_METADATA, 1, 0, 1), "a name is not enough for metadata");
	cr_assert_not(addr_permitted(ADDR_METADATA, 1, 1, 0), "nor the address without its port");
	cr_assert(addr_permitted(ADDR_METADATA, 1, 1, 1));
}

Test(addr, own)
{
	struct addr_host own[2] = { { AF_INET, { 203, 0, 113, 7 } }, { AF_INET6, { 0x20, 0x01, [15] = 9 } } };
	unsigned char a[16] = { 203, 0, 113, 7 }, m[16] = { [10] = 0xff, [11] = 0xff, 203, 0, 113, 7 };
	cr_assert(addr_is_own(AF_INET, a, own, 2));
	cr_assert(addr_is_own(AF_INET6, m, own, 2), "the mapped form is the same address");
	unsigned char n64[16] = { 0x00, 0x64, 0xff, 0x9b, [12] = 203, 0, 113, 7 };
	unsigned char six[16] = { 0x20, 0x02, 203, 0, 113, 7 };
	cr_assert(addr_is_own(AF_INET6, n64, own, 2), "NAT64 ends at the same address");
	cr_assert(addr_is_own(AF_INET6, six, own, 2), "6to4 ends at the same address");
	cr_assert(addr_is_own(AF_INET6, own[1].a, own, 2));
	a[3] = 8;
	cr_assert_not(addr_is_own(AF_INET, a, own, 2));
	cr_assert_not(addr_is_own(AF_INET, own[0].a, NULL, 0));
}
