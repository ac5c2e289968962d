/* shared_counts.h: the per-user kernel counts a sandbox shares with its
 * caller, and the budget each sandbox gets of them.  Pure.
 *
 * Pending signals, POSIX message-queue bytes and locked memory (rlimits),
 * inotify instances and watches, fanotify groups and marks (the user
 * namespace's own sysctls in /proc/sys/user) are counted per user in every
 * user namespace up to the caller's own: what a sandbox takes, the caller's
 * other processes and its other sandboxes lose.  A share of the caller's
 * limit (half, as before) bounds one sandbox, not several: two took all.  So
 * each sandbox gets a small fixed budget, an eighth of the caller's limit
 * and never more than a cap sized for what builds and dev servers use (one
 * inotify instance per watcher, libuv's and Go's alike; a few thousand
 * watches per repository; a handful of queued signals): with the defaults,
 * four sandboxes that take everything they may leave the caller half of each
 * count, and sixteen at their caps still leave fs.inotify's instances to
 * cordon's own watches (one per run, outside the sandbox). */
#ifndef CORDON_SHARED_COUNTS_H
#define CORDON_SHARED_COUNTS_H

#include <stddef.h>
#include <sys/resource.h>

#define SHARED_COUNTS_N 3
#define SHARED_COUNTS_DIVISOR 8

/* RLIMIT_SIGPENDING, RLIMIT_MSGQUEUE, RLIMIT_MEMLOCK, and the cap of each. */
extern const int shared_counts_resources[SHARED_COUNTS_N];
extern const rlim_t shared_counts_caps[SHARED_COUNTS_N];

/* The /proc/sys/user files set in the sandbox's user namespace, the caps,
 * and how many of them must exist (the fanotify ones are younger than
 * Linux 5.13, and without them there is no unprivileged fanotify). */
#define SHARED_UCOUNTS_N 4
#define SHARED_UCOUNTS_REQUIRED 2
extern const char *const shared_ucount_files[SHARED_UCOUNTS_N];
extern const unsigned long shared_ucount_caps[SHARED_UCOUNTS_N];

/* A sandbox's budget of a count whose caller's limit is limit: limit / 8,
 * at most cap; an unlimited caller (RLIM_INFINITY) keeps its own, since
 * nothing of the caller's can run out. */
unsigned long long shared_counts_budget(unsigned long long limit, unsigned long long cap);

/* The rlimit bwrap starts with for resources[i] (soft and hard alike: the
 * sandbox cannot raise it back). */
struct rlimit shared_counts_rlimit(size_t i, struct rlimit own);

#endif
