/* resolve.h: name resolution off the event loop.  A few threads call
 * getaddrinfo (musl's resolver in the static build: /etc/hosts, then the
 * nameservers of /etc/resolv.conf); each answer goes back to the loop
 * through a queue and an eventfd, so a slow DNS server stalls no other
 * connection.
 *
 * A fixed map (struct resolve_map) answers first when given: the test
 * override (intake.h says who may set it).  A name it holds never reaches
 * getaddrinfo.
 *
 * Belongs here: the threads, the queues, the map lookup. */
#ifndef CORDON_BRIDGE_RESOLVE_H
#define CORDON_BRIDGE_RESOLVE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "err.h"

#define RESOLVE_MAX_ADDRS 8

struct resolve_map_entry {
	char name[254];           /* canonical (host.h) */
	int family;
	unsigned char addr[16];
};

struct resolve_map {
	struct resolve_map_entry *v;
	size_t n, cap;
};

struct resolve_result {
	uint64_t token;
	int err;                  /* 0, or a positive errno-like code (ENOENT: no such name) */
	size_t n;
	int family[RESOLVE_MAX_ADDRS];
	unsigned char addr[RESOLVE_MAX_ADDRS][16];
};

struct resolver;

/* Start nthreads threads.  map may be NULL; it must outlive the resolver. */
int resolve_start(struct resolver **out, unsigned nthreads, const struct resolve_map *map,
		  struct cordon_err *e) __attribute__((warn_unused_result));

/* The eventfd that becomes readable when results are waiting. */
int resolve_fd(const struct resolver *r);

/* Queue name (canonical, NUL-terminated) with a caller token; -ENOMEM. */
int resolve_submit(struct resolver *r, uint64_t token, const char *name)
	__attribute__((warn_unused_result));

/* Move up to max finished results into out; returns how many. */
size_t resolve_collect(struct resolver *r, struct resolve_result *out, size_t max);

/* Pure: look name up in map; fills res (n may be 0: not in the map).
 * Returns 1 when the map holds the name. */
int resolve_map_lookup(const struct resolve_map *map, const char *name, struct resolve_result *res);

#endif
