/* addr.c: see addr.h. */
#include "addr.h"

#include <netinet/in.h>
#include <stdint.h>
#include <string.h>

struct addr_net {
	unsigned char prefix[16];
	unsigned bits;
};

/* IPv4 ranges that are not the public internet (IANA special-purpose
 * registry): this network, RFC 1918, CGNAT, loopback, link-local, IETF
 * protocol assignments, TEST-NETs, 6to4 relay anycast, benchmarking,
 * multicast, reserved and broadcast. */
static const struct addr_net v4_nonpublic[] = {
	{ { 0 }, 8 }, { { 10 }, 8 }, { { 100, 64 }, 10 }, { { 127 }, 8 },
	{ { 169, 254 }, 16 }, { { 172, 16 }, 12 }, { { 192, 0, 0 }, 24 },
	{ { 192, 0, 2 }, 24 }, { { 192, 88, 99 }, 24 }, { { 192, 168 }, 16 },
	{ { 198, 18 }, 15 }, { { 198, 51, 100 }, 24 }, { { 203, 0, 113 }, 24 },
	{ { 224 }, 4 }, { { 240 }, 4 },
};

/* IPv6: unspecified and loopback (in ::/96, the deprecated compatible
 * form), discard, IETF protocol assignments (Teredo among them),
 * documentation, unique local, site-local, link-local and multicast. */
static const struct addr_net v6_nonpublic[] = {
	{ { 0 }, 96 },
	{ { 0x01, 0x00 }, 64 },
	{ { 0x20, 0x01, 0x00, 0x00 }, 23 },
	{ { 0x20, 0x01, 0x0d, 0xb8 }, 32 },
	{ { 0x3f, 0xff }, 20 },
	{ { 0x00, 0x64, 0xff, 0x9b, 0x00, 0x01 }, 48 },
	{ { 0xfc }, 7 },
	{ { 0xfe, 0x80 }, 10 },
	{ { 0xfe, 0xc0 }, 10 },
	{ { 0xff }, 8 },
};

/* This host itself: what a connect reaches without leaving the machine
 * (0.0.0.0 and :: connect to the loopback), and link-local, which reaches
 * only the neighbours of one link. */
static const struct addr_net v4_local[] = {
	{ { 0 }, 8 }, { { 127 }, 8 }, { { 169, 254 }, 16 },
};
static const struct addr_net v6_local[] = {
	{ { 0 }, 128 },
	{ { [15] = 1 }, 128 },
	{ { 0xfe, 0x80 }, 10 },
};

static int ad_in(const unsigned char *a, const struct addr_net *n)
{
	unsigned full = n->bits / 8, rest = n->bits % 8;
	if (memcmp(a, n->prefix, full) != 0)
		return 0;
	if (rest == 0)
		return 1;
	unsigned char mask = (unsigned char)(0xff << (8 - rest));
	return (a[full] & mask) == (n->prefix[full] & mask);
}

static int ad_in_table(const unsigned char *a, const struct addr_net *t, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (ad_in(a, &t[i]))
			return 1;
	return 0;
}

static enum addr_class ad_v4(const unsigned char *a)
{
	static const unsigned char metadata[4] = { 169, 254, 169, 254 };
	if (memcmp(a, metadata, 4) == 0)
		return ADDR_METADATA;
	if (ad_in_table(a, v4_local, sizeof(v4_local) / sizeof(v4_local[0])))
		return ADDR_LOCAL;
	return ad_in_table(a, v4_nonpublic, sizeof(v4_nonpublic) / sizeof(v4_nonpublic[0]))
		       ? ADDR_NONPUBLIC : ADDR_PUBLIC;
}

static enum addr_class ad_v6(const unsigned char *a)
{
	static const unsigned char metadata[16] = { 0xfd, 0x00, 0x0e, 0xc2, [15] = 0x54, [14] = 0x02 };
	static const unsigned char mapped[12] = { [10] = 0xff, [11] = 0xff };
	static const unsigned char nat64[12] = { 0x00, 0x64, 0xff, 0x9b };
	if (memcmp(a, metadata, 16) == 0)
		return ADDR_METADATA;
	/* The kernel connects an IPv4-mapped destination as IPv4; NAT64 and
	 * 6to4 gateways deliver to the IPv4 address inside. */
	if (memcmp(a, mapped, 12) == 0 || memcmp(a, nat64, 12) == 0)
		return ad_v4(a + 12);
	if (a[0] == 0x20 && a[1] == 0x02)
		return ad_v4(a + 2);
	if (ad_in_table(a, v6_local, sizeof(v6_local) / sizeof(v6_local[0])))
		return ADDR_LOCAL;
	return ad_in_table(a, v6_nonpublic, sizeof(v6_nonpublic) / sizeof(v6_nonpublic[0]))
		       ? ADDR_NONPUBLIC : ADDR_PUBLIC;
}

enum addr_class addr_classify(int family, const unsigned char *a)
{
	if (family == AF_INET)
		return ad_v4(a);
	if (family == AF_INET6)
		return ad_v6(a);
	return ADDR_NONPUBLIC;
}

int addr_is_own(int family, const unsigned char *a, const struct addr_host *own, size_t n)
{
	static const unsigned char mapped[12] = { [10] = 0xff, [11] = 0xff };
	static const unsigned char nat64[12] = { 0x00, 0x64, 0xff, 0x9b };
	/* The forms that end at an IPv4 address, as addr_classify reads them. */
	if (family == AF_INET6 && (memcmp(a, mapped, 12) == 0 || memcmp(a, nat64, 12) == 0)) {
		family = AF_INET;
		a += 12;
	} else if (family == AF_INET6 && a[0] == 0x20 && a[1] == 0x02) {
		family = AF_INET;
		a += 2;
	}
	size_t len = family == AF_INET ? 4 : 16;
	for (size_t i = 0; i < n; i++)
		if (own[i].family == family && memcmp(own[i].a, a, len) == 0)
			return 1;
	return 0;
}

int addr_permitted(enum addr_class c, int named, int ip_named, int port_named)
{
	switch (c) {
	case ADDR_PUBLIC:
		return 1;
	case ADDR_NONPUBLIC:
		return named || ip_named;
	case ADDR_LOCAL:
		return (named || ip_named) && port_named;
	case ADDR_METADATA:
		return ip_named && port_named;
	}
	return 0;
}
