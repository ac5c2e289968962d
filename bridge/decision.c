/* decision.c: see decision.h. */
#include "decision.h"

#include <stdio.h>
#include <sys/socket.h>

#include "addr.h"

struct decision decision_name(const struct decision_rules *rules, const struct host *h,
			      uint16_t port)
{
	struct decision d;
	d.verdict = allow_check(rules->allow, rules->nallow, rules->deny, rules->ndeny, h, port);
	switch (d.verdict) {
	case ALLOW_UNLISTED:
		d.reason = DECISION_UNLISTED;
		break;
	case ALLOW_DENIED:
		d.reason = DECISION_DENIED;
		break;
	default:
		d.reason = DECISION_ALLOWED;
		break;
	}
	if (d.reason == DECISION_ALLOWED && h->kind != HOST_NAME)
		d.reason = decision_address(rules, &d, 1, h->kind == HOST_IPV4 ? AF_INET : AF_INET6, h->addr);
	return d;
}

enum decision_reason decision_address(const struct decision_rules *rules, const struct decision *d,
				      int ip_literal, int family, const unsigned char *a)
{
	if (d->reason != DECISION_ALLOWED)
		return d->reason;
	enum addr_class c = addr_classify(family, a);
	/* The host's own public address reaches its services as loopback
	 * does (a service bound to 0.0.0.0 answers on both). */
	if (c != ADDR_METADATA && addr_is_own(family, a, rules->own, rules->nown))
		c = ADDR_LOCAL;
	int port_named = d->verdict == ALLOW_NAMED_PORT;
	int named = port_named || d->verdict == ALLOW_NAMED;
	if (addr_permitted(c, named, named && ip_literal, port_named))
		return DECISION_ALLOWED;
	return c == ADDR_METADATA ? DECISION_METADATA
	       : c == ADDR_LOCAL  ? DECISION_LOCAL : DECISION_NONPUBLIC;
}

const char *decision_reason_word(enum decision_reason r)
{
	switch (r) {
	case DECISION_ALLOWED: return "allowed";
	case DECISION_UNLISTED: return "unlisted";
	case DECISION_DENIED: return "denied";
	case DECISION_NONPUBLIC: return "non-public-address";
	case DECISION_LOCAL: return "local-address";
	case DECISION_METADATA: return "metadata-address";
	}
	return "refused";
}

void decision_message(enum decision_reason r, const struct host *h, uint16_t port,
		      const char *addr, char *out, size_t cap)
{
	const char *o = h->kind == HOST_IPV6 ? "[" : "", *c = h->kind == HOST_IPV6 ? "]" : "";
	switch (r) {
	case DECISION_UNLISTED:
		(void)snprintf(out, cap, "cordon: %s%s%s:%u is not allowed from this sandbox; "
			       "to allow it, run cordon with --allow-domain %s%s%s\n",
			       o, h->text, c, port, o, h->text, c);
		break;
	case DECISION_DENIED:
		(void)snprintf(out, cap, "cordon: %s%s%s:%u is refused by a --deny-domain rule "
			       "of this sandbox\n", o, h->text, c, port);
		break;
	case DECISION_LOCAL:
		(void)snprintf(out, cap, "cordon: %s%s%s:%u resolves to %s, an address of this "
			       "machine (loopback, link-local or its own); a rule reaches it only "
			       "with its port: --allow-domain %s%s%s:%u\n",
			       o, h->text, c, port, addr ? addr : h->text, o, h->text, c, port);
		break;
	case DECISION_NONPUBLIC:
	case DECISION_METADATA:
		(void)snprintf(out, cap, "cordon: %s%s%s:%u resolves to %s, a %s address; "
			       "to allow it, name it exactly with --allow-domain %s%s%s:%u\n",
			       o, h->text, c, port, addr ? addr : h->text,
			       r == DECISION_METADATA ? "cloud metadata" : "non-public",
			       o, r == DECISION_METADATA && addr ? addr : h->text, c, port);
		break;
	case DECISION_ALLOWED:
		(void)snprintf(out, cap, "cordon: %s%s%s:%u is allowed\n", o, h->text, c, port);
		break;
	}
}
