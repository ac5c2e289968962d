/* decision.h: the verdict on one proxied connection, in DESIGN section 8's
 * order: the canonical host and port against the allowlist, then (after
 * resolution) every address against the non-public table.  And the words
 * the sandboxed command gets back when it is refused: the host and the flag
 * that would allow it.
 *
 * Belongs here: pure decisions and their messages.  No I/O. */
#ifndef CORDON_BRIDGE_DECISION_H
#define CORDON_BRIDGE_DECISION_H

#include <stddef.h>
#include <stdint.h>

#include "addr.h"
#include "allow.h"
#include "host.h"

struct decision_rules {
	const struct allow_rule *allow;
	size_t nallow;
	const struct allow_rule *deny;
	size_t ndeny;
	const struct addr_host *own; /* the host's own addresses (addr.h) */
	size_t nown;
};

enum decision_reason {
	DECISION_ALLOWED = 0,
	DECISION_UNLISTED,    /* no --allow-domain matches */
	DECISION_DENIED,      /* a --deny-domain matches */
	DECISION_NONPUBLIC,   /* an address is private, reserved, ... and the host was not named */
	DECISION_LOCAL,       /* an address is this host's (loopback, link-local, its own)
				 and no rule named the host with this port */
	DECISION_METADATA,    /* a cloud metadata address that was not named */
};

struct decision {
	enum decision_reason reason;
	enum allow_verdict verdict; /* of the name check */
};

/* The name check: the verdict of allow_check and, for an IP literal, the
 * address check at once (a literal needs no resolution). */
struct decision decision_name(const struct decision_rules *rules, const struct host *h,
			      uint16_t port);

/* The address check for one resolved (or literal) address of a host that
 * passed decision_name: family AF_INET or AF_INET6, a in network order.
 * ip_literal: the host was written as that address. */
enum decision_reason decision_address(const struct decision_rules *rules, const struct decision *d,
				      int ip_literal, int family, const unsigned char *a);

/* The short reason word for the log ("allowed", "unlisted", "denied",
 * "non-public-address", "local-address", "metadata-address"). */
const char *decision_reason_word(enum decision_reason r);

/* The body of a 403 (or the text of a log line) for a refusal of h:port:
 * names the host and the flag that would allow it.  addr (may be NULL) is
 * the refused address in text. */
void decision_message(enum decision_reason r, const struct host *h, uint16_t port,
		      const char *addr, char *out, size_t cap);

#endif
