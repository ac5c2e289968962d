/* rootcheck.h: at the end of a run, each writable root's path must still
 * lead to the directory the run started with (DESIGN.md section 5).
 *
 * cordon watched, bound and pinned the roots as objects: the inotify watch
 * is on the root's inode, the binds came from its descriptor.  A root whose
 * path was moved (a directory above it renamed by a host process during the
 * run, or by the command were a pin of plan/pins.h missing) leaves its path
 * naming another directory, one nobody watched, where a planted .git waits
 * for the user's next git command.  The pins stop the command; this check
 * is the backstop, and a mismatch is a violation.
 *
 * Reading only (no host writes): an observer (observe/observer.h). */
#ifndef CORDON_ROOTCHECK_H
#define CORDON_ROOTCHECK_H

#include <stddef.h>
#include "err.h"
#include "plan/resolve.h"

/* One root whose path no longer leads to it, for whoever records
 * violations (run.c hands them to --report). */
struct rootcheck_moved {
	const char *path;     /* the root's path, as resolved at the start */
	const char *now;      /* what the path leads to now: "another directory",
			       * "nothing", "a symbolic link on the way", ... */
	const char *say;      /* what the user is to be told, whole lines; NULL: it
			       * was said on stderr already */
};

typedef void rootcheck_fn(void *ctx, const struct rootcheck_moved *m);

/* Walk each root's path from "/" one component at a time without following
 * a link (the path was canonical at the start: a link on it now is a swap)
 * and compare the (dev, ino) reached with the root's.  For each mismatch,
 * pass it to moved with ctx, with what happened and what the user should
 * do (moved NULL: that is said on stderr here).  r's descriptors may be closed already
 * (resolved_close keeps paths and identities).  The number of mismatches,
 * or, when any root could not be checked (out of descriptors, memory, a
 * component cordon may not search), -errno with *e filled: an internal
 * error that fails the run, never reported as a moved root.  The roots it
 * could check are reported either way. */
int rootcheck_settle(const struct resolved *r, rootcheck_fn *moved, void *ctx,
		     struct cordon_err *e) __attribute__((warn_unused_result));

#endif
