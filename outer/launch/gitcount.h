/* gitcount.h: --git commit's report, how many commits a changed ref
 * gained: git rev-list --count NEW --not <every ref's value before the
 * run>, run on the host once the sandbox is gone.  Counting needs every
 * object format git has (loose, packed, deltas); git is the reader that
 * has them all, so it is git that counts, not code of cordon's.
 *
 * Running a program of the host on what the command wrote is done with
 * care: the git is chosen as bwrap is (bwrap_find_tool: root-owned,
 * outside every writable root, never from PATH, kept open from before the
 * command started); it gets no system or global configuration, no replace
 * refs, no optional locks, nothing on stdin but the ids; and the
 * repository's configuration, hooks, info/ and alternates are the ones
 * --git commit kept read-only.  rev-list runs no hook, fsmonitor, filter or
 * pager.  Bounded in time: past the deadline git is killed and the count is
 * unknown (-1), never guessed. */
#ifndef CORDON_GITCOUNT_H
#define CORDON_GITCOUNT_H

#include <stddef.h>
#include "launch/bwrap_find.h"

struct gitcount {
	struct bwrap_bin git;   /* fd -1: no git cordon trusts, no counts */
};

/* Find and open git.  Best effort: without one, every count is -1. */
void gitcount_open(struct gitcount *g, const struct rpath *roots, size_t nroots);

/* The commits reachable from new_id and from none of old[] (hex ids) in
 * the git dir gitfd (O_PATH), by deadline_ms (sys_now_ms).  -1: unknown. */
long gitcount_new(const struct gitcount *g, int gitfd, const char *new_id,
		  const char *const *old, size_t nold, long long deadline_ms);

void gitcount_close(struct gitcount *g);

#endif
