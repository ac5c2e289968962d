/* host.h: the one canonical form of a destination host, taken from bytes the
 * sandboxed command wrote (a CONNECT authority, an absolute URI, a SOCKS5
 * domain) or from an --allow-domain pattern.  Matching and the address check
 * see only this form, so two spellings of one host can never get two
 * different verdicts.
 *
 * Belongs here: the pure canonicalizer.  No resolution, no policy. */
#ifndef CORDON_BRIDGE_HOST_H
#define CORDON_BRIDGE_HOST_H

#include <stddef.h>

#define HOST_NAME_MAX_LEN 253

enum host_kind { HOST_NAME = 1, HOST_IPV4, HOST_IPV6 };

struct host {
	enum host_kind kind;
	/* NUL-terminated canonical text: a lowercase name without trailing dot,
	 * a dotted quad, or inet_ntop's IPv6 form without brackets.  An IPv4
	 * address written as IPv6 (::ffff:a.b.c.d) is HOST_IPV4. */
	char text[HOST_NAME_MAX_LEN + 1];
	unsigned char addr[16]; /* network order: 4 bytes (IPV4) or 16 (IPV6) */
};

/* Canonicalize in[0..len) (not NUL-terminated; a NUL inside is refused).
 * Accepted: a DNS name of letters, digits, '-', '_' and dots, at most 253
 * bytes, labels of 1-63 bytes, one trailing dot dropped; every form
 * inet_aton accepts for IPv4 (1 to 4 parts, decimal, 0-octal, 0x-hex); an
 * IPv6 address, bare or in brackets.  Refused (-EINVAL): anything else,
 * among it NUL, CR, LF, space, '%' (percent-encoding, zone index), empty
 * labels, and a name whose last label is numeric but no valid IPv4 address
 * (a resolver could still read it as one).  *h is written only on success. */
int host_canon(const char *in, size_t len, struct host *h) __attribute__((warn_unused_result));

#endif
