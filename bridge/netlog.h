/* netlog.h: one JSON line per proxied connection (--net-log FILE): time,
 * client port, protocol, host, port, address, decision, reason, for an
 * upgraded connection the protocol it switched to, bytes each way,
 * duration.  Strings are escaped here; the host is canonical already,
 * but a refused request may carry no host at all.
 *
 * Belongs here: formatting the line.  Pure; the caller writes it. */
#ifndef CORDON_BRIDGE_NETLOG_H
#define CORDON_BRIDGE_NETLOG_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

struct netlog_entry {
	struct timespec start;   /* CLOCK_REALTIME when accepted */
	uint16_t client_port;
	const char *protocol;    /* "http-connect", "http", "socks5", "unknown" */
	const char *host;        /* may be NULL: never parsed */
	uint16_t port;
	const char *address;     /* may be NULL: never resolved */
	const char *decision;    /* "allow", "deny", "error" */
	const char *reason;
	const char *upgrade;     /* NULL: not upgraded (no "upgrade" key); else the
				    101's Upgrade value, e.g. "websocket" */
	unsigned long long bytes_up, bytes_down;
	unsigned long long duration_ms;
};

/* Format e as one line ending in '\n' into out; returns its length, or 0 if
 * cap was too small (the line is then dropped, never truncated). */
size_t netlog_format(const struct netlog_entry *e, char *out, size_t cap);

#endif
