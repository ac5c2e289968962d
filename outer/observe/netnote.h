/* netnote.h: what cordon says about the network when a run ends.
 *
 * --net proxy: one line per refused or failed host (host, port, reason,
 * the flag that would allow it), from the bridge's decisions: a client
 * says only "403", "forbidden by your security policy" or "Cannot connect
 * to proxy", and not which flag would help.  And when a failed run made
 * no connection at all, one line saying that some clients ignore the proxy
 * variables (Node before 22.21), pointing to the README's client table.
 *
 * --net none: after a failed run, one line saying that the command tried
 * to reach the network, when it did.
 *
 * Tools report a missing network in their own words, and not all of them
 * say it (pip without retries says only "no matching distribution").  The
 * kernel counts, per network namespace, every connect or send that found no
 * route (Ip OutNoRoutes in /proc/net/snmp, Ip6OutNoRoutes in snmp6); in a
 * sandbox with only a loopback, that is exactly an attempt to reach another
 * host (a DNS query included).  cordon opens the sandbox's counters while it
 * starts (an open file keeps the namespace readable after the sandbox is
 * gone) and reads them at the end: the note is a fact, never a guess. */
#ifndef CORDON_NETNOTE_H
#define CORDON_NETNOTE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>
#include "wire_bridge.h"

struct netnote {
	int snmp, snmp6; /* -1: not open */
};

#define NETNOTE_INIT { -1, -1 }

/* Pure: the sum of Ip OutNoRoutes in snmp (the text of /proc/net/snmp) and
 * Ip6OutNoRoutes in snmp6 (either may be NULL). */
uint64_t netnote_noroutes(const char *snmp, const char *snmp6);

/* Open the counters of pid's network namespace (best effort: a note is not
 * worth failing a run for). */
void netnote_open(struct netnote *n, pid_t pid);

/* Read how many attempts the namespace counted (0: none, or unreadable);
 * close.  Safe to call again (then 0). */
uint64_t netnote_settle(struct netnote *n);

/* The note for a failed run whose namespace counted an attempt. */
extern const char *const netnote_tried;

#define NETNOTE_MAX_HOSTS 16

struct netnote_host {
	char host[256];    /* as the bridge logged it (canonical) */
	unsigned port;
	char reason[32];   /* the bridge's reason word ("unlisted") */
	char address[64];  /* the address refused, "" if none */
};

struct netnote_proxy {
	unsigned long long seen;     /* connections the bridge logged */
	struct netnote_host v[NETNOTE_MAX_HOSTS];
	size_t n;
	unsigned long long more;     /* refusals of hosts past the table */
};

/* Pure: take one of the bridge's decisions (wire_bridge.h) into s: each
 * counts as a connection seen; a refusal, or a failure cordon can explain
 * (could not resolve, connect), of a host:port not yet listed adds it. */
void netnote_proxy_add(struct netnote_proxy *s, const struct wire_bridge_decision *d);

/* Pure: the line for h, without "cordon: " and the newline ("refused
 * registry.example:443 (not listed): add --allow-domain registry.example").
 * The host and the address are shown through termsafe.h: a byte that
 * could act on a terminal is escaped. */
void netnote_proxy_line(const struct netnote_host *h, char *out, size_t cap);

/* Write the lines of proxy (a struct netnote_proxy) to out: one per host
 * listed, and one for those past the table. */
void netnote_proxy_say(FILE *out, const void *proxy);

/* The note for a failed run that made no connection (s->seen 0): some
 * clients ignore the proxy variables. */
extern const char *const netnote_no_connection;

#endif
