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
 * a /tmp on tmpfs forgets both together.  Removal of paths is decided by
 * reclaim_decide (pure) and performed here, by rmdir only. */
#ifndef CORDON_REGISTRY_H
#define CORDON_REGISTRY_H

#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>
#include "err.h"
#include "hostpaths/reclaim.h"
#include "hostpaths/record.h"

#define REGISTRY_MAX_DEPTH 128

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
	size_t nlive;
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

/* Start time (field 22 of /proc/PID/stat) of a running process.  0, or
 * -ESRCH when there is no such process or it is a zombie, or -errno when it
 * cannot be read. */
int registry_proc_start(pid_t pid, uint64_t *start) __attribute__((warn_unused_result));

/* Write rec as the record file `name` (locked), atomically by rename. */
int registry_write(struct registry *reg, const char *name, const struct record *rec,
		   struct cordon_err *e) __attribute__((warn_unused_result));

/* Called for each path the sweep looked at: verdict RECLAIM_REMOVE (it was
 * removed) or RECLAIM_KEEP with the reason; never for RECLAIM_DROP. */
typedef void (*registry_report_fn)(void *ctx, const char *path, enum reclaim_verdict v,
				   const char *why);

/* Locked.  Read every record.  Records of live runs stay, and their entries
 * become reg->live.  The record named `released` (NULL: none) is treated as
 * over, as is every record whose run is dead: each of its paths is judged by
 * reclaim_decide and removed (rmdir) when allowed, then the record is deleted
 * (unless another sandbox still binds one of its directories: then it stays,
 * and -EBUSY says so when it is the released one).
 * Stale temporary files of dead runs are deleted.  report may be NULL. */
int registry_sweep(struct registry *reg, const char *released, registry_report_fn report,
		   void *ctx, struct cordon_err *e) __attribute__((warn_unused_result));

/* Locked.  registry_sweep with the record `name` released, where `mine`
 * is that record as its run holds it in memory: it is used instead of the
 * file, which may lag behind it (or be missing) if writing it failed.
 * -EBUSY when another sandbox (of any registry) still binds a directory of
 * it: the record is kept (written from mine) for registry_wait_unbound. */
int registry_release(struct registry *reg, const char *name, const struct record *mine,
		     struct cordon_err *e) __attribute__((warn_unused_result));

/* Not locked.  Block until no other sandbox binds any directory the
 * record `name` created (each holds a shared flock on it while its bwrap
 * runs); then a sweep can remove them.  0 or -errno (no such record). */
int registry_wait_unbound(struct registry *reg, const char *name);

/* cordon reclaim: sweep and print "removed PATH" or "kept PATH: reason" per
 * path to out.  0 or -errno with *e filled. */
int registry_reclaim(FILE *out, struct cordon_err *e) __attribute__((warn_unused_result));

#endif
