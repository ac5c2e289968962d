/* caches.h: --cache private on the host: the one place that creates, sizes
 * and removes cordon's cache directories (plan/caches.h says which).
 *
 * The base $XDG_CACHE_HOME/cordon (default ~/.cache/cordon) is reached from /
 * one component at a time with O_NOFOLLOW, as the registry is: a symbolic
 * link anywhere on the way is refused (a run with -w ~ could have planted
 * one, to have a later run bind some other directory writable), so is a
 * component owned by someone other than the user or root, or writable by
 * others without the sticky bit.  The base and each workspace directory are
 * created 0700 and must be the user's and writable by nobody else.  The
 * workspace directory is bound from the descriptor opened here, and
 * cordon-inner checks its (dev, ino) like any writable root's, so a swap
 * after the check binds nothing else.  Nothing outside cordon names these
 * directories (the command learns them from variables set for it alone), so
 * no host tool runs what a command left there; the host's own caches are
 * never bound writable.  Sizing and removal walk by descriptor, never follow
 * a symbolic link and never leave the base's filesystem. */
#ifndef CORDON_HOSTPATHS_CACHES_H
#define CORDON_HOSTPATHS_CACHES_H

#include <stdio.h>
#include "err.h"
#include "plan/mount_plan.h"

/* Create (where missing), check and open the cache directory of the
 * workspace at canonical path ws; *out gets its path, O_PATH descriptor and
 * (dev, ino), ready to be bound as a writable root. */
int caches_open(const char *ws, struct rpath *out, struct cordon_err *e)
	__attribute__((warn_unused_result));

/* The path caches_open would open for ws, into out; nothing is created or
 * opened (explain).  0 or -errno. */
int caches_path(const char *ws, char *out, size_t len, struct cordon_err *e)
	__attribute__((warn_unused_result));

/* 1 if caches_open's error -err means the directory cannot be made here (no
 * home, a missing parent, no permission, a read-only or full filesystem),
 * rather than that what is there must not be used (a link, someone else's
 * or a directory others can write): the run may go on without it. */
int caches_unavailable(int err);

/* The text of Go's env file (plan/caches.h says where) into buf, NUL
 * terminated; 0, or -errno when there is none to read (then buf is ""). */
int caches_read_goenv(char *buf, size_t len);

/* cordon doctor: into msg, the base directory, its size and how many
 * workspaces have a cache there; 1 if it is usable (or not made yet), 0 if
 * runs would refuse it (msg says why). */
int caches_describe(char *msg, size_t len);

/* 1 if a prune is due (the base's .pruned stamp is a day old or missing;
 * plan/caches.h): one lstat, for the run to decide whether to start one. */
int caches_prune_due(void);

/* Remove, in the base, each cache directory of cordon's whose workspace is
 * gone or that was unused for CACHES_UNUSED_S, with its record, and each
 * record without a directory: once a day, one prune at a time (the stamp is
 * locked and set first).  Nothing but cordon's own directories (by name,
 * the user's, never through a link) is removed; the walk stays on the
 * base's filesystem.  Silent (it runs detached, launch/detach.h); returns
 * how many directories went. */
size_t caches_prune(void);

/* cordon reclaim --caches: remove every workspace's cache directory, and
 * say how much was freed on out.  0 or -errno with *e filled. */
int caches_reclaim(FILE *out, struct cordon_err *e) __attribute__((warn_unused_result));

#endif
