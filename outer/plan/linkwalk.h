/* linkwalk.h: following another user's symbolic link at a protected name by
 * hand (issue 19, item 8), to find what of its way the command could
 * change.  Pure: the filesystem comes through callbacks (hostpaths/
 * protect_gather.c gives lstat, readlink and faccessat; the unit tests a
 * table).
 *
 * The link is another user's (the sticky /tmp with --tmp host), so it is
 * never touched and never refused for itself; what must not happen is that
 * the command makes it lead to content of its own.  The link is followed
 * one component at a time, every directory a name is looked up in known by
 * its canonical path.  Each lookup in a directory inside the writable space
 * (the writable roots; with --full-write everything but /dev, /proc, /sys)
 * yields at most one step:
 * - LINKWALK_MISSING: the name is missing and the command could create it
 *   (the directory is writable by the caller): watched like a missing
 *   protected name, in that directory.  The walk ends there (nothing lies
 *   beyond a missing name);
 * - LINKWALK_ON_THE_WAY: the name exists, is not the end, and the command
 *   could rename, remove or replace it (the directory is writable, and not
 *   sticky or the entry or directory is the caller's, or the caller is
 *   root): watched as found, so that any new entry under the name stops
 *   the run;
 * - LINKWALK_TARGET: what the link leads to in the end, a directory or a
 *   regular file inside the writable space: bound read-only (a mount there
 *   also keeps it from being renamed or removed).  Also when the end is a
 *   writable root itself.  Another type at the end (a device, a FIFO, a
 *   socket) is watched as found where the command could replace it.
 * Lookups where the command can change nothing (outside the writable space,
 * or in a directory of another user's it cannot write) yield no step.  The
 * end above a writable root (`/`, `..` of a root) and inside none yields
 * none either: what the command can write there lies only under the root's
 * own path (the README's Limits say so).  A writable root that is the end,
 * or lies beneath it, is read-only for the run with it.
 *
 * Like the kernel, at most LINKWALK_HOPS links are followed: past them the
 * kernel gives ELOOP too, and every link on the way the command could swap
 * is watched, so the walk ends there without a step. */
#ifndef CORDON_LINKWALK_H
#define CORDON_LINKWALK_H

#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>

#define LINKWALK_HOPS 40       /* the kernel's MAXSYMLINKS */
#define LINKWALK_STEPS_MAX 256 /* past this the walk fails: -E2BIG */

enum linkwalk_kind { LINKWALK_MISSING, LINKWALK_ON_THE_WAY, LINKWALK_TARGET };

struct linkwalk_step {
	enum linkwalk_kind kind;
	char *path;                /* dir/name, canonical; owned */
	uint64_t dev, ino;         /* the entry (ON_THE_WAY, TARGET) */
	int is_dir;
	uint64_t dir_dev, dir_ino; /* the directory it is looked up in */
};

struct linkwalk_fs {
	void *ctx;
	/* 0, or -errno */
	int (*lstat)(void *ctx, const char *path, struct stat *st);
	/* the length written (no NUL added), or -errno */
	ssize_t (*readlink)(void *ctx, const char *path, char *buf, size_t len);
	/* 1 if the caller may create names in the directory path (write and
	 * search permission, not a read-only mount), else 0 */
	int (*writable)(void *ctx, const char *path);
};

struct linkwalk_in {
	const char *link;          /* root/name: the link, canonical directory */
	const char *const *roots;  size_t nroots;  /* the writable roots */
	int full_write;            /* everything but outside[] is writable */
	const char *const *outside; size_t noutside; /* with full_write */
	uid_t uid;                 /* the caller's effective uid */
};

struct linkwalk {
	struct linkwalk_step *v;
	size_t n, cap;
};

/* Fill *out (empty on entry; free with linkwalk_free, also on failure).
 * 0, or: -ENAMETOOLONG (a directory's path longer than PATH_MAX), -E2BIG
 * (more than LINKWALK_STEPS_MAX steps), -EAGAIN (the link or a component
 * changed while it was followed), -ENOMEM, or another -errno of lstat or
 * readlink. */
int linkwalk(const struct linkwalk_in *in, const struct linkwalk_fs *fs, struct linkwalk *out)
	__attribute__((warn_unused_result));

void linkwalk_free(struct linkwalk *w);

#endif
