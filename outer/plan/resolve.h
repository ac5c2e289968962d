/* resolve.h: turning the paths of a config into opened, canonical objects.
 *
 * Every path is resolved exactly once: opened O_PATH, its canonical name read
 * back from the descriptor, its (dev, ino) taken with fstat on that same
 * descriptor.  Everything after (mount plan, bwrap, cordon-inner's check)
 * works from these descriptors, so a path swapped after this point cannot
 * redirect a mount. */
#ifndef CORDON_RESOLVE_H
#define CORDON_RESOLVE_H

#include <sys/stat.h>
#include "config.h"
#include "err.h"
#include "plan/mount_plan.h"

/* A protected name missing directly inside a writable root. */
struct missing_name {
	size_t root;         /* index into roots */
	const char *name;
	char *path;          /* root/name, owned */
};

struct resolved {
	struct rpath *roots;    size_t nroots;
	struct rpath *carves;   size_t ncarves;
	struct rpath *protects; size_t nprotects;
	struct rpath *masks;    size_t nmasks;
	struct missing_name *missing; size_t nmissing;
	struct rpath cwd;
	unsigned char proc[MOUNT_PLAN_NPROC]; /* enum proc_kind of each /proc rule */
	unsigned long long tmpfs_size;        /* bytes of each tmpfs the command can fill */
	char **kernel_ro; size_t nkernel_ro;  /* --full-write: pseudo filesystems kept read-only */
	/* Warnings for the user, one line each without the "cordon: " prefix:
	 * --deny-read paths missing inside a writable root. */
	char **notes; size_t nnotes;
};

/* The size of the private /tmp and /dev/shm without --tmp-size: 1 GiB, at
 * most a quarter of the memory (ram: bytes; 0: unknown). */
unsigned long long resolve_tmpfs_default(unsigned long long ram);

int resolve_config(const struct config *c, struct resolved *r, struct cordon_err *e)
	__attribute__((warn_unused_result));
void resolved_free(struct resolved *r);

/* Close every descriptor of r, keeping the paths and (dev, ino).  Once bwrap
 * holds its copies and cordon-inner has the ones it checks, cordon's would
 * only make it the last holder of the directories it removes at the end,
 * and so the one that pays for freeing their inodes on its way out. */
void resolved_close(struct resolved *r);

/* Open path O_PATH and fill *out (canonical path, dev, ino, is_dir).
 * `flag` names the option for the message. */
int resolve_path(const char *flag, const char *path, struct rpath *out, struct cordon_err *e)
	__attribute__((warn_unused_result));

/* Open name in dirfd O_PATH without following it and check it is the object
 * (dev, ino); into *out, path copied.  0, -EAGAIN on a mismatch, or -errno. */
int resolve_open_at(int dirfd, const char *name, const char *path, dev_t dev, ino_t ino,
		    struct rpath *out) __attribute__((warn_unused_result));

/* Open name in dirfd O_PATH without following it, whatever it is: for the
 * directory cordon has just created, whose (dev, ino) it records from *out
 * (the caller checks out->is_dir).  0 or -errno. */
int resolve_open_created(int dirfd, const char *name, const char *path, struct rpath *out)
	__attribute__((warn_unused_result));

/* Protect the existing name in rootfd (path is root/name) read-only: append it
 * to r->protects.  A symbolic link is refused.  seen: its lstat, if the
 * caller has one (NULL: taken here). */
int resolve_protect_existing(struct resolved *r, int rootfd, const char *name,
			     const char *path, const struct stat *seen, struct cordon_err *e)
	__attribute__((warn_unused_result));

/* Append *p to the list (taking its path and descriptor; *p is reset). */
int rpath_push(struct rpath **v, size_t *n, struct rpath *p) __attribute__((warn_unused_result));
void rpath_free(struct rpath *p);

#endif
