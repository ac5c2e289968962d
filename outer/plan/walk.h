/* walk.h: opening a path the caller named, following only symbolic links
 * owned by root.
 *
 * A link owned by anyone else may have been planted by an earlier sandboxed
 * run (`build -> $HOME` in a workspace); following it would let that run
 * choose the next run's writable roots.  A root-owned link (`/home ->
 * /mnt/home`, `/var/run -> /run`) is the machine's own layout and is
 * followed.  The walk opens each component O_PATH|O_NOFOLLOW and inspects the
 * opened object, so a link swapped in between a check and an open is seen. */
#ifndef CORDON_WALK_H
#define CORDON_WALK_H

#include <sys/types.h>

/* The link that stopped a walk: its path as walked (for the message) and its
 * owner. */
struct walk_link {
	char path[4096];
	uid_t owner;
};

/* Open path (absolute, or relative to the current directory) O_PATH|O_CLOEXEC.
 * Returns the descriptor; -EPERM with *bad filled when a link owned by
 * anyone but root lies on the way; -ELOOP past 40 links; another -errno when
 * a component cannot be opened. */
int walk_open(const char *path, struct walk_link *bad) __attribute__((warn_unused_result));

#endif
