/* netnote.h: after a failed run with --net none, one line saying that the
 * command tried to reach the network, when it did.
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

#include <stdint.h>
#include <sys/types.h>

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

/* If the namespace counted an attempt, print the note on stderr; close. */
void netnote_finish(struct netnote *n, int print);

#endif
