/* entrypath.h: looking at, and removing, a host path named in a registry
 * record, which is data read back from disk and trusted for nothing.
 *
 * The path is walked from "/" one component at a time with
 * O_PATH|O_NOFOLLOW|O_DIRECTORY: a symbolic link anywhere on the way is
 * reported (never followed), and "." or ".." components make the path
 * unusable.  The last component is judged inside its parent's descriptor,
 * and removal is unlinkat(parent, name, AT_REMOVEDIR) after the (dev, ino)
 * of the name is checked once more against the directory that was looked
 * at: whatever a record says, the most it can make cordon remove is one
 * empty directory with the recorded identity. */
#ifndef CORDON_ENTRYPATH_H
#define CORDON_ENTRYPATH_H

#include <stdint.h>
#include "hostpaths/reclaim.h"

struct entrypath {
	int parent;          /* O_PATH descriptor of the parent; -1: none */
	const char *name;    /* last component, inside the looked-at path */
	uint64_t dev, ino;   /* of the directory looked at (when one was) */
};

#define ENTRYPATH_INIT { -1, NULL, 0, 0 }


/* Fill *f about `path`.  trusted: the entry comes from the run's own memory,
 * not from a file, so any name it created may be removed; otherwise
 * f->name_ok says whether the name is a protected one.  0, or -errno when it
 * cannot be looked at (then nothing may be decided about it).  Release h
 * with entrypath_close. */
int entrypath_look(const char *path, int trusted, struct entrypath *h, struct path_fact *f)
	__attribute__((warn_unused_result));

/* rmdir the directory entrypath_look saw, if it is still the one at that
 * name.  0, -ENOENT when it is gone, -ESTALE when something else took its
 * place, -EBUSY when another sandbox still binds it (it holds a shared
 * flock on it), or -errno (ENOTEMPTY: it is not empty any more). */
int entrypath_remove(const struct entrypath *h) __attribute__((warn_unused_result));

/* Wait until no sandbox holds a shared flock on the directory at path
 * (which must still be (dev, ino), unless both are 0: an intent's), trying
 * at growing intervals up to a second, for at most timeout_ms.  1 once it
 * is free after a wait, 0 if it was free at once, -ETIMEDOUT, or -errno. */
int entrypath_wait_unbound(const char *path, uint64_t dev, uint64_t ino, long timeout_ms);

void entrypath_close(struct entrypath *h);

#endif
