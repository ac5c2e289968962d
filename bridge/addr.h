/* addr.h: which addresses the bridge may connect to.  A name that resolves
 * to loopback, a private network or a cloud metadata service would let the
 * sandbox reach what is not on the internet (SSRF), so every resolved
 * address is classified before the connect.
 *
 * Belongs here: the non-public table (DESIGN section 8) and the pure
 * decision over one address.  No resolution. */
#ifndef CORDON_BRIDGE_ADDR_H
#define CORDON_BRIDGE_ADDR_H

#include <stddef.h>

enum addr_class {
	ADDR_PUBLIC = 0,
	ADDR_NONPUBLIC,  /* loopback, private, link-local, reserved, multicast, ... */
	ADDR_METADATA,   /* 169.254.169.254, fd00:ec2::254: cloud credentials */
};

/* Classify an address: family AF_INET (4 bytes) or AF_INET6 (16 bytes; an
 * IPv4-mapped, NAT64 (64:ff9b::/96) or 6to4 address is classified by the
 * IPv4 address it carries, which is where it ends up; the deprecated
 * IPv4-compatible ::/96 is non-public).  Any other family is ADDR_NONPUBLIC. */
enum addr_class addr_classify(int family, const unsigned char *a);

/* The rule: a public address may be reached; a non-public one only when the
 * host was named exactly by an allow rule (named != 0); a metadata address
 * only when the rule named that very address (ip_named != 0). */
int addr_permitted(enum addr_class c, int named, int ip_named);

#endif
