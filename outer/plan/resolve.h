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

/* A linked worktree's common dir outside every root (plan/gitlinked.h). */
struct resolved_linked {
	struct rpath common;    /* C, O_PATH */
	size_t root;            /* the root whose .git file names it */
	char *gitdir;           /* G = C/worktrees/NAME, owned */
};

/* Written only by resolve_config (and closed or freed by the functions
 * below); everything else reads it.  Protected names are protect.c's: they
 * are looked at once, by its gatherer. */
struct resolved {
	struct rpath *roots;    size_t nroots, caproots;
	struct rpath *carves;   size_t ncarves, capcarves;
	/* The real git directory of a .git file and core.hooksPath, when they
	 * lie inside a writable root (gitmeta.h): protect binds them read-only
	 * with the protected names. */
	struct rpath *gitdirs;  size_t ngitdirs, capgitdirs;
	struct rpath *masks;    size_t nmasks, capmasks;
	/* --allow-unix-socket: host sockets bound read-only at their own
	 * path, the only ones outside the sandbox its command may connect to
	 * (cordon-inner's supervisor, by device and inode) */
	struct rpath *sockets;  size_t nsockets, capsockets;
	/* --git commit: the common dirs of linked worktrees whose git dirs lie
	 * outside every root (plan/gitlinked.h): protect splits each by the
	 * gitdir rule, its data writable. */
	struct resolved_linked *linked; size_t nlinked, caplinked;
	struct rpath cwd;
	unsigned char proc[MOUNT_PLAN_NPROC]; /* enum proc_kind of each /proc rule */
	unsigned long long tmpfs_size;        /* bytes of each tmpfs the command can fill */
	char **kernel_ro; size_t nkernel_ro, capkernel_ro; /* --full-write: pseudo filesystems
							       * kept read-only */
	/* Warnings for the user, one line each without the "cordon: " prefix:
	 * --deny-read paths missing inside a writable root. */
	char **notes; size_t nnotes, capnotes;
};

/* The size of the private /tmp and /dev/shm without --tmp-size: 1 GiB, at
 * most a quarter of the memory (ram: bytes; 0: unknown). */
unsigned long long resolve_tmpfs_default(unsigned long long ram);

int resolve_config(const struct config *c, struct resolved *r, struct cordon_err *e)
	__attribute__((warn_unused_result));
void resolved_free(struct resolved *r);

/* Append a note for the user (one line, without "cordon: "). */
int resolve_note(struct resolved *r, struct cordon_err *e, const char *fmt, ...)
	__attribute__((format(printf, 3, 4), warn_unused_result));

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

/* Append *p to the list *v of *n, room for *cap (common/grow.h), taking its
 * path and descriptor; *p is reset.  0, or -ENOMEM with the list unchanged. */
int rpath_push(struct rpath **v, size_t *n, size_t *cap, struct rpath *p)
	__attribute__((warn_unused_result));
void rpath_free(struct rpath *p);

#endif
