/* allow.c: see allow.h. */
#include "allow.h"

#include <errno.h>
#include <string.h>

/* ":PORT" at the end of pattern[0..*len): a decimal 1-65535, no sign, at
 * most 5 digits.  A bracketed IPv6 host keeps its colons. */
static int ap_port(const char *p, size_t *len, uint16_t *port)
{
	size_t n = *len, i = n;
	while (i > 0 && p[i - 1] >= '0' && p[i - 1] <= '9')
		i--;
	if (i == 0 || p[i - 1] != ':' || i == n)
		return 0; /* no port */
	if (p[0] != '[' && memchr(p, ':', i - 1))
		return 0; /* a bare IPv6 address: its last group is no port */
	if (n - i > 5)
		return -EINVAL;
	unsigned v = 0;
	for (size_t k = i; k < n; k++)
		v = v * 10 + (unsigned)(p[k] - '0');
	if (v == 0 || v > 65535)
		return -EINVAL;
	*port = (uint16_t)v;
	*len = i - 1;
	return 0;
}

int allow_rule_parse(const char *pattern, const char *flag, int allow_all_ok,
		     struct allow_rule *r, struct cordon_err *e)
{
	struct allow_rule out = { .kind = ALLOW_EXACT };
	size_t len = strlen(pattern);
	const char *p = pattern;
	if (ap_port(p, &len, &out.port) < 0)
		return err_set(e, EINVAL, "%s %s: the port must be 1-65535", flag, pattern);
	if (len == 1 && p[0] == '*') {
		if (!allow_all_ok)
			return err_set(e, EINVAL, "%s %s: a bare * would allow every host; "
				       "name the hosts (*.example.com, **.example.com)", flag, pattern);
		out.kind = ALLOW_ANY;
		*r = out;
		return 0;
	}
	if (len > 3 && strncmp(p, "**.", 3) == 0) {
		out.kind = ALLOW_BOTH;
		p += 3;
		len -= 3;
	} else if (len > 2 && strncmp(p, "*.", 2) == 0) {
		out.kind = ALLOW_SUB;
		p += 2;
		len -= 2;
	}
	if (host_canon(p, len, &out.host) < 0)
		return err_set(e, EINVAL, "%s %s: not a host name or IP address "
			       "(expected host, *.host, **.host, optionally :PORT)", flag, pattern);
	if (out.kind != ALLOW_EXACT && out.host.kind != HOST_NAME)
		return err_set(e, EINVAL, "%s %s: a wildcard cannot apply to an IP address; "
			       "name the address exactly", flag, pattern);
	*r = out;
	return 0;
}

/* h is a strict subdomain of base: "a.b.c" of "b.c", never "xb.c". */
static int ap_strict_sub(const char *h, const char *base)
{
	size_t hl = strlen(h), bl = strlen(base);
	return hl > bl + 1 && h[hl - bl - 1] == '.' && strcmp(h + hl - bl, base) == 0;
}

int allow_rule_matches(const struct allow_rule *r, const struct host *h, uint16_t port)
{
	if (r->port && r->port != port)
		return 0;
	switch (r->kind) {
	case ALLOW_ANY:
		return 1;
	case ALLOW_EXACT:
		return r->host.kind == h->kind && strcmp(r->host.text, h->text) == 0;
	case ALLOW_SUB:
		return h->kind == HOST_NAME && ap_strict_sub(h->text, r->host.text);
	case ALLOW_BOTH:
		return h->kind == HOST_NAME &&
		       (strcmp(h->text, r->host.text) == 0 || ap_strict_sub(h->text, r->host.text));
	}
	return 0;
}

enum allow_verdict allow_check(const struct allow_rule *allow, size_t nallow,
			       const struct allow_rule *deny, size_t ndeny,
			       const struct host *h, uint16_t port)
{
	for (size_t i = 0; i < ndeny; i++)
		if (allow_rule_matches(&deny[i], h, port))
			return ALLOW_DENIED;
	enum allow_verdict v = ALLOW_UNLISTED;
	for (size_t i = 0; i < nallow; i++) {
		if (!allow_rule_matches(&allow[i], h, port))
			continue;
		if (allow[i].kind == ALLOW_EXACT && allow[i].port)
			return ALLOW_NAMED_PORT;
		if (allow[i].kind == ALLOW_EXACT)
			v = ALLOW_NAMED;
		else if (v == ALLOW_UNLISTED)
			v = ALLOW_WILDCARD;
	}
	return v;
}
