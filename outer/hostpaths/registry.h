/* registry.h: where cordon writes down, before creating them, the host paths
 * a run materializes, so that they never outlive the run (DESIGN.md sec. 5).
 *
 * The registry is the directory $XDG_STATE_HOME/cordon/registry (default
 * ~/.local/state/cordon/registry), mode 0700, owned by the user.  It is
 * reached from / one component at a time with O_NOFOLLOW: a symbolic link
 * anywhere on the way, a component owned by someone other than the user (or
 * root, above the registry), or a parent writable by everyone without the
 * sticky bit is refused.  It holds one record file per run (record.h), the
 * temporary files records are written through, and "lock", which every
 * reader and writer holds with flock(LOCK_EX) while it looks.
 *
 * Records are written to "tmp.NAME" and renamed over "NAME", never fsync'd:
 * every run pays for the registry, and two fsyncs per write cost more than
 * the rest of cordon's start together.  What a crash of the machine must not
 * lose is the order "record, then directory", and the journal keeps it on
 * the filesystems a home directory lives on (ext4 data=ordered, xfs, btrfs
 * commit metadata in order, and a renamed file's data before the rename);
 * a /tmp on tmpfs forgets both together.
 *
 * This module finds, checks, opens and locks the registry.  Record files:
 * registry_io.h; the sweep of dead runs' records: registry_sweep.h (removal
 * is decided by reclaim_decide, pure, and carried out by entrypath.h). */
#ifndef CORDON_REGISTRY_H
#define CORDON_REGISTRY_H

#include <dirent.h>
#include <limits.h>
#include <stdint.h>
#include <sys/types.h>
#include "err.h"
#include "hostpaths/record.h"

#define REGISTRY_MAX_DEPTH 128
#define REGISTRY_RECORD_PREFIX "run-"
#define REGISTRY_TMP_PREFIX "tmp."

struct registry {
	int dirfd;                  /* O_RDONLY|O_DIRECTORY; -1 when not open */
	int lockfd;                 /* the lock file; -1 when not open */
	int locked;
	int absent;                 /* registry_open failed because it does not exist */
	char path[PATH_MAX];        /* absolute, free of symbolic links */
	dev_t dev;
	ino_t ino;
	struct registry_anc {       /* "/" and each directory down to the registry */
		dev_t dev;
		ino_t ino;
		size_t off;         /* its path is path[0..off) ("/": 0) */
	} anc[REGISTRY_MAX_DEPTH + 1];
	size_t nanc;
	char boot[REC_BOOT_LEN + 1];/* this boot's id, "" until registry_facts */
	uint64_t pidns;
	struct rec_entry *live;     /* after registry_sweep: the other live runs' entries, owned */
	size_t nlive, caplive;
};

#define REGISTRY_INIT { .dirfd = -1, .lockfd = -1 }

/* Locate, create where missing, check and open the registry and its lock
 * file (not locked).  On failure *e says what is wrong and what to do, and
 * reg->absent tells a registry that does not exist (and cannot be created)
 * from one that exists but cannot be used. */
int registry_open(struct registry *reg, struct cordon_err *e) __attribute__((warn_unused_result));

/* Unlock, close, free.  Safe on a registry that never opened. */
void registry_close(struct registry *reg);

int registry_lock(struct registry *reg, struct cordon_err *e) __attribute__((warn_unused_result));
void registry_unlock(struct registry *reg);

/* Replace reg->lockfd by a descriptor of its own: a process that inherited
 * the lock file through fork shares the parent's flock otherwise. */
int registry_reopen_lock(struct registry *reg, struct cordon_err *e)
	__attribute__((warn_unused_result));

/* Read this boot's id and PID namespace into reg (once). */
int registry_facts(struct registry *reg, struct cordon_err *e) __attribute__((warn_unused_result));

/* A handle of its own on the registry `from` is open on (its descriptors
 * are not shared: a fresh directory description and a lock file of its
 * own), with its facts; for a process forked from the holder of `from`,
 * such as the guardian.  0 or -errno with *e filled. */
int registry_dup(const struct registry *from, struct registry *to, struct cordon_err *e)
	__attribute__((warn_unused_result));

/* The registry directory into *out, for readdir, on a descriptor of its own
 * (closedir closes it).  0, or -errno with *e filled (*out NULL). */
int registry_opendir(const struct registry *reg, DIR **out, struct cordon_err *e)
	__attribute__((warn_unused_result));

/* The number of run records in the registry (cordon doctor). */
int registry_count(const struct registry *reg, size_t *n, struct cordon_err *e)
	__attribute__((warn_unused_result));

/* Free reg->live. */
void registry_live_free(struct registry *reg);

#endif
