/* allow.h: the domain allowlist (--allow-domain, --deny-domain).
 *
 * Patterns: HOST (exactly that host), *.HOST (strict subdomains), **.HOST
 * (HOST and its subdomains), each with an optional :PORT (any port when
 * absent); an IP literal only exactly.  A deny that matches wins over every
 * allow.  Wildcards never match an IP literal.  A bare * (every host) only
 * when the list was built with allow_all_ok.
 *
 * Belongs here: parsing patterns and matching a canonical host (host.h)
 * against them.  Pure. */
#ifndef CORDON_BRIDGE_ALLOW_H
#define CORDON_BRIDGE_ALLOW_H

#include <stddef.h>
#include <stdint.h>

#include "err.h"
#include "host.h"

enum allow_kind { ALLOW_EXACT = 1, ALLOW_SUB, ALLOW_BOTH, ALLOW_ANY };

struct allow_rule {
	enum allow_kind kind;
	uint16_t port;     /* 0: any port */
	struct host host;  /* canonical; unused for ALLOW_ANY */
};

enum allow_verdict {
	ALLOW_UNLISTED = 0, /* no rule matches: refused */
	ALLOW_DENIED,       /* a deny rule matches: refused */
	ALLOW_WILDCARD,     /* allowed by a *. / **. / * rule */
	ALLOW_NAMED,        /* allowed by a rule naming exactly this host, any port */
	ALLOW_NAMED_PORT,   /* allowed by a rule naming exactly this host and port */
};

/* Parse pattern (NUL-terminated) into *r.  flag names the option for the
 * message ("--allow-domain").  A bare * is refused unless allow_all_ok.
 * -EINVAL with *e filled on a bad pattern. */
int allow_rule_parse(const char *pattern, const char *flag, int allow_all_ok,
		     struct allow_rule *r, struct cordon_err *e) __attribute__((warn_unused_result));

/* Nonzero when rule r matches host h on port. */
int allow_rule_matches(const struct allow_rule *r, const struct host *h, uint16_t port);

/* The verdict for h:port over the deny and allow rules.  ALLOW_NAMED_PORT
 * wins over ALLOW_NAMED, which wins over ALLOW_WILDCARD, when several match
 * (they decide which non-public addresses may be reached, addr.h). */
enum allow_verdict allow_check(const struct allow_rule *allow, size_t nallow,
			       const struct allow_rule *deny, size_t ndeny,
			       const struct host *h, uint16_t port);

#endif
