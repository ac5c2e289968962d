/* shared_counts.h: the per-user kernel counts a sandbox shares with its
 * caller.  Pending signals, POSIX message queue bytes and locked memory are
 * counted per user in every user namespace up to the caller's own, and a
 * new user namespace may use what its creator's limit was then: a command
 * that took them all (sigqueue until EAGAIN) left none to the caller's other
 * processes while it ran.  bwrap, which creates the sandbox's user
 * namespace, starts with half of each of the caller's limits, so the sandbox
 * as a whole gets half and the caller keeps the rest (inotify's counts are
 * set in the namespace itself: launch/sandbox_limits.c). */
#ifndef CORDON_SHARED_COUNTS_H
#define CORDON_SHARED_COUNTS_H

#include <stddef.h>
#include <sys/resource.h>

#define SHARED_COUNTS_N 3

/* RLIMIT_SIGPENDING, RLIMIT_MSGQUEUE, RLIMIT_MEMLOCK. */
extern const int shared_counts_resources[SHARED_COUNTS_N];

/* The sandbox's share of own: half of the soft limit, soft and hard alike
 * (the sandbox cannot raise it back); unlimited stays unlimited (nothing of
 * the caller's can run out).  Pure. */
struct rlimit shared_counts_half(struct rlimit own);

#endif
