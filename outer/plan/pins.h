/* pins.h: keep the directories above a read-only path inside a writable root
 * in place.  A read-only bind deeper than a root's top level (a .git file's
 * git directory, core.hooksPath, a --read-only path) protects what lies at
 * that path when the run starts, not the path: the command could rename an
 * ancestor (the mount goes with it), recreate the path and plant a hook that
 * git runs on the host.  Each directory strictly between the root and the
 * path becomes a pin, a writable bind of itself onto itself: a mount point
 * cannot be renamed or removed (EBUSY).  A writable root nested in another
 * is such a path too: a mount point itself, but a rename of a directory
 * above it inside the outer root moves it (and the protected names bound in
 * it) away, and its path becomes an unwatched directory of the outer root. */
#ifndef CORDON_PINS_H
#define CORDON_PINS_H

#include "err.h"
#include "plan/resolve.h"

/* Append to r->carves a pin for every directory strictly between the
 * deepest writable root that holds path (with full_write and none: "/"; the
 * caller passes 0 where "/" is not the host's, under the private /tmp) and
 * path itself, opened one
 * component at a time from the root's descriptor without following links
 * (cordon-inner checks each pin's (dev, ino) at its path).  Skipped: writable
 * roots (mount points already), paths already carved, and paths under a
 * read-only carve-out or a protected path (read-only: nothing there can be
 * renamed, and a pin would make it writable).  0, or -errno with *e filled. */
int pins_add_above(struct resolved *r, const char *path, int full_write, struct cordon_err *e)
	__attribute__((warn_unused_result));

#endif
