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
	ADDR_NONPUBLIC,  /* private (RFC 1918, ULA), CGNAT, reserved, multicast, ... */
	ADDR_LOCAL,      /* this host: loopback, 0.0.0.0/8 and ::, link-local, and
			    (addr_is_own) an address of one of its interfaces */
	ADDR_METADATA,   /* 169.254.169.254, fd00:ec2::254: cloud credentials */
};

/* An address of one of the host's own interfaces (gathered at intake). */
struct addr_host {
	int family;
	unsigned char a[16];
};

/* Classify an address: family AF_INET (4 bytes) or AF_INET6 (16 bytes; an
 * IPv4-mapped, NAT64 (64:ff9b::/96) or 6to4 address is classified by the
 * IPv4 address it carries, which is where it ends up; the deprecated
 * IPv4-compatible ::/96 is non-public).  Any other family is ADDR_NONPUBLIC. */
enum addr_class addr_classify(int family, const unsigned char *a);

/* Nonzero when a (family, as for addr_classify; an IPv4-mapped, NAT64 or
 * 6to4 address counts as the IPv4 one it carries) is one of the n
 * addresses of own. */
int addr_is_own(int family, const unsigned char *a, const struct addr_host *own, size_t n);

/* The rule: a public address may be reached; a non-public one only when the
 * host was named exactly by an allow rule (named != 0); a local one (the
 * host's own services) only when that rule also named the port
 * (port_named != 0): a port-less rule is for a service on the internet,
 * never every port of this machine; a metadata address only when the rule
 * named that very address and its port (ip_named, port_named). */
int addr_permitted(enum addr_class c, int named, int ip_named, int port_named);

#endif
