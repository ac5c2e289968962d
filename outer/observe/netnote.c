/* netnote.c: see netnote.h. */
#include "observe/netnote.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "err.h"
#include "sys.h"
#include "termsafe.h"

/* /proc/net/snmp: pairs of lines, "Ip: Name Name ..." then "Ip: 1 2 ...". */
static uint64_t snmp_ip_field(const char *t, const char *field)
{
	const char *names = strstr(t, "Ip: ");
	if (!names)
		return 0;
	const char *values = strchr(names, '\n');
	if (!values || strncmp(values + 1, "Ip: ", 4) != 0)
		return 0;
	values += 5;
	const char *p = names + 4;
	size_t flen = strlen(field);
	for (;;) {
		while (*p == ' ')
			p++;
		while (*values == ' ')
			values++;
		if (*p == '\n' || !*p || *values == '\n' || !*values)
			return 0;
		size_t len = strcspn(p, " \n");
		if (len == flen && strncmp(p, field, flen) == 0)
			return strtoull(values, NULL, 10);
		p += len;
		values += strcspn(values, " \n");
	}
}

/* /proc/net/snmp6: "Name <spaces> value" per line. */
static uint64_t snmp6_field(const char *t, const char *field)
{
	size_t flen = strlen(field);
	for (const char *p = t; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (strncmp(p, field, flen) == 0 && (p[flen] == ' ' || p[flen] == '\t'))
			return strtoull(p + flen, NULL, 10);
	return 0;
}

uint64_t netnote_noroutes(const char *snmp, const char *snmp6)
{
	return (snmp ? snmp_ip_field(snmp, "OutNoRoutes") : 0) +
	       (snmp6 ? snmp6_field(snmp6, "Ip6OutNoRoutes") : 0);
}

void netnote_open(struct netnote *n, pid_t pid)
{
	char path[64];
	(void)snprintf(path, sizeof(path), "/proc/%d/net/snmp", (int)pid);
	n->snmp = open(path, O_RDONLY | O_CLOEXEC);
	(void)snprintf(path, sizeof(path), "/proc/%d/net/snmp6", (int)pid);
	n->snmp6 = open(path, O_RDONLY | O_CLOEXEC);
}

/* The text of an open /proc file from its start; "" when unreadable. */
static void read_all(int fd, char *buf, size_t len)
{
	ssize_t r = fd >= 0 && lseek(fd, 0, SEEK_SET) == 0 ? sys_read_full(fd, buf, len - 1) : -1;
	buf[r > 0 ? r : 0] = '\0';
}

uint64_t netnote_settle(struct netnote *n)
{
	uint64_t tried = 0;
	if (n->snmp >= 0 || n->snmp6 >= 0) {
		static char snmp[8192], snmp6[16384];
		read_all(n->snmp, snmp, sizeof(snmp));
		read_all(n->snmp6, snmp6, sizeof(snmp6));
		tried = netnote_noroutes(snmp, snmp6);
	}
	sys_close(&n->snmp);
	sys_close(&n->snmp6);
	return tried;
}

const char *const netnote_tried =
	"cordon: note: the command tried to reach the network, which this sandbox does not "
	"have (--net none)\n";

const char *const netnote_no_connection =
	"cordon: note: the command made no connection through cordon's proxy; some clients "
	"ignore the proxy variables and need configuration (Node before 22.21: fetch and "
	"https): see \"Clients\" in cordon's README\n";

/* Refusals and the failures that name their cause; the rest (a client
 * that closed, a malformed request) are the client's own doing. */
static int np_worth_a_line(const struct wire_bridge_decision *d)
{
	static const char *const failures[] = {
		"could-not-resolve", "connect-failed", "connect-timeout", "upstream-refused",
		"upstream-failed", "upstream-closed",
	};
	if (d->verdict == WIRE_BRIDGE_DENY)
		return 1;
	for (size_t i = 0; i < sizeof(failures) / sizeof(failures[0]); i++)
		if (strcmp(d->reason, failures[i]) == 0)
			return 1;
	return 0;
}

static void np_copy(char *dst, size_t cap, const char *src)
{
	(void)snprintf(dst, cap, "%s", src);
}

void netnote_proxy_add(struct netnote_proxy *s, const struct wire_bridge_decision *d)
{
	s->seen++;
	if (!d->host[0] || d->port == 0 || !np_worth_a_line(d))
		return;
	size_t i = 0;
	for (; i < s->n; i++)
		if (s->v[i].port == d->port && strcmp(s->v[i].host, d->host) == 0 &&
		    strcmp(s->v[i].reason, d->reason) == 0)
			break;
	if (i == s->n && s->n == NETNOTE_MAX_HOSTS) {
		s->more++;
	} else if (i == s->n) {
		struct netnote_host *h = &s->v[s->n++];
		np_copy(h->host, sizeof(h->host), d->host);
		h->port = d->port;
		np_copy(h->reason, sizeof(h->reason), d->reason);
		np_copy(h->address, sizeof(h->address), d->address);
	}
}

/* The sandbox chose these bytes (a host name it asked for): escaped as
 * termsafe.h does before they reach the user's terminal; an IPv6 address
 * in brackets. */
static void np_printable(char *dst, size_t cap, const char *src, int brackets)
{
	char safe[4 * sizeof(((struct netnote_host *)0)->host)]; /* \xHH: 4 bytes per byte */
	int v6 = brackets && strchr(src, ':');
	(void)termsafe(safe, sizeof(safe), src, strlen(src));
	(void)snprintf(dst, cap, "%s%s%s", v6 ? "[" : "", safe, v6 ? "]" : "");
}

void netnote_proxy_line(const struct netnote_host *h, char *out, size_t cap)
{
	char host[300], addr[80], to[96] = "";
	np_printable(host, sizeof(host), h->host, 1);
	np_printable(addr, sizeof(addr), h->address, 0);
	if (addr[0])
		(void)snprintf(to, sizeof(to), " to %s", addr);
	const char *r = h->reason;
	unsigned p = h->port;
	if (strcmp(r, "unlisted") == 0)
		(void)snprintf(out, cap, "refused %s:%u (not listed): add --allow-domain %s", host, p,
			       host);
	else if (strcmp(r, "denied") == 0)
		(void)snprintf(out, cap, "refused %s:%u (a --deny-domain rule matches it): only "
			       "removing that rule allows it", host, p);
	else if (strcmp(r, "non-public-address") == 0)
		(void)snprintf(out, cap, "refused %s:%u (resolves to %s, a private address; a "
			       "wildcard rule never reaches one): add --allow-domain %s", host, p,
			       addr, host);
	else if (strcmp(r, "local-address") == 0)
		(void)snprintf(out, cap, "refused %s:%u (resolves to %s, this machine; a rule "
			       "without a port never reaches it): add --allow-domain %s:%u", host, p,
			       addr, host, p);
	else if (strcmp(r, "metadata-address") == 0)
		(void)snprintf(out, cap, "refused %s:%u (resolves to %s, a cloud metadata "
			       "address): only --allow-domain %s:%u allows it", host, p, addr, addr, p);
	else if (strcmp(r, "could-not-resolve") == 0)
		(void)snprintf(out, cap, "failed %s:%u (could not resolve): no address for that "
			       "name from this machine's resolver", host, p);
	else if (strncmp(r, "upstream-", 9) == 0)
		(void)snprintf(out, cap, "failed %s:%u (the upstream proxy: %s)", host, p, r + 9);
	else if (strcmp(r, "connect-timeout") == 0)
		(void)snprintf(out, cap, "failed %s:%u (the connection%s timed out)", host, p, to);
	else
		(void)snprintf(out, cap, "failed %s:%u (could not connect%s)", host, p, to);
}

void netnote_proxy_say(FILE *out, const void *proxy)
{
	const struct netnote_proxy *s = proxy;
	char line[800];
	for (size_t i = 0; i < s->n; i++) {
		netnote_proxy_line(&s->v[i], line, sizeof(line));
		fprintf(out, "cordon: %s\n", line);
	}
	if (s->more)
		fprintf(out, "cordon: and %llu more refused or failed connections (--net-log FILE "
			"lists each)\n", s->more);
}
