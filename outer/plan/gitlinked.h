/* gitlinked.h: --git commit for a linked worktree whose git dir lies
 * outside every writable root (`git worktree add` from a main repository
 * elsewhere).  The writable root holds only a `.git` file; git writes the
 * worktree's git dir G (C/worktrees/NAME: index, HEAD, logs) and the common
 * dir C (objects/, refs/, logs/, packed-refs).  If G and C pass
 * gitdir_linked_refusal (plan/gitdir.h), C is kept for protect, which
 * splits it by the same gitdir rule as a .git inside a root (its data
 * writable, its code and configuration read-only or watched); otherwise a
 * note says why it stays read-only, and git fails there with its own
 * error.
 *
 * Only the root's own `.git` is read, once, before the run: a `.git` file
 * deeper in a root (which the command may write) is never looked at. */
#ifndef CORDON_GITLINKED_H
#define CORDON_GITLINKED_H

#include <stddef.h>
#include "err.h"
#include "plan/resolve.h"

/* Look at the .git of writable root number root of r: a linked worktree's
 * whose G and C lie outside every root is appended to r->linked (accepted)
 * or to r->notes (refused).  0 or -errno with *e filled (out of memory). */
int gitlinked_find(struct resolved *r, size_t root, struct cordon_err *e)
	__attribute__((warn_unused_result));

#endif
