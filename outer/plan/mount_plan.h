/* mount_plan.h: the ordered list of mounts that builds the sandbox's view of
 * the filesystem.  mount_plan_build is pure: it reads only its input (paths
 * already resolved and opened by resolve.c) and allocates the plan.  Later
 * mounts win, so the order is the policy:
 *   / read-only (or writable with --full-write); /dev; /proc; /tmp;
 *   writable roots and read-only carve-outs (and pins: writable binds of a
 *   path onto itself), shallower first (a root nested in a carve-out is
 *   mounted after it and stays writable, and the reverse);
 *   protected names (after every root, so nothing re-exposes them);
 *   deny-read masks; then the working directory. */
#ifndef CORDON_MOUNT_PLAN_H
#define CORDON_MOUNT_PLAN_H

#include <stddef.h>
#include <sys/types.h>
#include "err.h"

/* One resolved path.  fd is an O_PATH descriptor of the object (for masks of
 * files: a descriptor of empty data for bwrap to copy), -1 where none. */
struct rpath {
	char *path;   /* canonical absolute path, owned */
	int fd;
	dev_t dev;
	ino_t ino;
	int is_dir;
	int late;     /* opened after bwrap was started: bound by path, and
			 cordon-inner checks (dev, ino) at that path instead */
	int inherited;/* fd was in bwrap's descriptor table when it was forked */
	int pin;      /* carves only: not read-only but a writable bind of the
			 path onto itself, bound by path: a mount point cannot
			 be renamed or removed (EBUSY), so the sandbox cannot
			 move it, and what lies below it, out of the way */
};

struct plan_input {
	const struct rpath *roots;     size_t nroots;     /* writable */
	const struct rpath *carves;    size_t ncarves;    /* --read-only */
	const struct rpath *protects;  size_t nprotects;  /* protected names, read-only */
	const struct rpath *masks;     size_t nmasks;     /* --deny-read */
	int tmp_private;
	int full_write;
	const char *cwd;
};

enum mount_kind {
	MOUNT_RO_BIND,     /* src dest */
	MOUNT_BIND,        /* src dest */
	MOUNT_DEV,         /* dest */
	MOUNT_PROC,        /* dest */
	MOUNT_TMPFS,       /* dest, perms */
	MOUNT_BIND_FD,     /* fd dest: writable root */
	MOUNT_RO_BIND_FD,  /* fd dest: carve-out or protected name */
	MOUNT_RO_BIND_PATH,/* dest dest: the same, opened too late for bwrap to inherit */
	MOUNT_MASK_FILE,   /* fd dest: empty read-only file from fd's data */
	MOUNT_MASK_DIR,    /* dest: empty read-only tmpfs */
	MOUNT_CHDIR,       /* dest */
};

struct mount_op {
	enum mount_kind kind;
	const char *src;   /* borrowed from the input */
	const char *dest;  /* borrowed from the input */
	int fd;
	unsigned perms;
};

struct mount_plan {
	struct mount_op *ops;
	size_t n;
};

int mount_plan_build(const struct plan_input *in, struct mount_plan *out,
		     struct cordon_err *e) __attribute__((warn_unused_result));
void mount_plan_free(struct mount_plan *p);

#endif
