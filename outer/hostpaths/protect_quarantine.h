/* protect_quarantine.h: moving aside a protected name that appeared during a run
 * (--protect-missing watch, DESIGN.md section 5).
 *
 * The entry is renamed within its own directory to
 * NAME.cordon-quarantine-RANDOM, RANDOM 16 hex digits from getrandom(2),
 * never across directories and never over anything: nothing is ever
 * deleted, not even an entry a person on the host created at that moment.
 * The name must be one the command cannot predict: with a name derived
 * from the run (cordon's pid, which the command can learn or guess), it
 * made every candidate in advance and the move failed, leaving the
 * protected name in place.  A name that is taken gets another random one,
 * without a fixed bound.  Where NAME.cordon-quarantine-RANDOM cannot be
 * made (longer than NAME_MAX for a long --protect name, or no room in the
 * directory for a longer entry: ENOSPC, EDQUOT), the shorter
 * .cordon-quarantine-RANDOM is used.  Whatever it is (directory, file,
 * symbolic link), it is moved as it is, without following it.
 *
 * Nothing the command controls may refuse the move.  It runs as the caller,
 * so it may chmod (or setfacl u::) any directory of its writable roots that
 * the caller owns and keep the caller out of it: a directory of the caller's
 * whose owner lacks write or search permission gets both back for the time
 * of the look and the move, then its mode as it was (cordon is the caller;
 * a directory that is not the caller's the command cannot chmod either).
 * Its callers move only once no process of the sandbox runs (or again
 * then), so nothing takes the permission away meanwhile.  Where the move
 * still fails (a full directory on a full filesystem: ENOSPC even for the
 * short name; an entry of another user's in a sticky directory), the last
 * resort is protect_quarantine_disarm: the entry, left under its name, is
 * made mode 000, so that host tools running as the caller cannot read it;
 * never deleted, never emptied. */
#ifndef CORDON_PROTECT_QUARANTINE_H
#define CORDON_PROTECT_QUARANTINE_H

#include <stddef.h>
#include <limits.h>
#include <stdint.h>
#include <sys/types.h>

/* Rename name in dirfd (any descriptor of the directory, O_PATH too) aside.
 * moved (len bytes, NAME_MAX + 1 is enough) gets the new name.  0, or
 * -ENOENT when name is gone, or -errno (the directory refuses renames:
 * EROFS, EPERM, ENOSPC, EACCES where it is not the caller's, ...). */
int protect_quarantine_move(int dirfd, const char *name, char *moved, size_t len)
	__attribute__((warn_unused_result));

/* The same, always to the shorter .cordon-quarantine-RANDOM: in a git dir,
 * where git takes every name under refs/ for a ref (a FIFO renamed to
 * refs/heads/x.cordon-quarantine-RANDOM would still block git), but skips
 * names that start with a dot. */
int protect_quarantine_hide(int dirfd, const char *name, char *moved, size_t len)
	__attribute__((warn_unused_result));

/* open(path, O_PATH | O_DIRECTORY) for the guardian, which has the path of
 * a watched directory, not its descriptor: where a directory on the way
 * refuses the step (EACCES), the path is walked one directory at a time,
 * never through a link, and one of the caller's that keeps its owner out
 * (the command's chmod of its root above a git dir) is opened up for the
 * step, its mode put back.  A descriptor, or -errno. */
int protect_quarantine_open_dir(const char *path);

/* The last resort for an entry that could not be moved aside: name in dirfd,
 * not followed, made mode 000 if it is the caller's and no symbolic link
 * (a link has no mode; chmod through it would reach what it names).  0, or
 * -errno (-EPERM: a link, or not the caller's). */
int protect_quarantine_disarm(int dirfd, const char *name);

/* An entry to leave where it is: the one found at the name at the start
 * (another user's link), by (dev, ino). */
struct protect_quarantine_keep {
	dev_t dev;
	ino_t ino;
};

/* What protect_quarantine_take found and did. */
struct protect_quarantine_took {
	char moved[NAME_MAX + 1]; /* the new name, when err is 0 */
	mode_t mode;              /* the entry's type and mode; 0: it could not be looked at */
	int err;                  /* 0: moved aside; else -errno of the look or the move */
	int disarmed;             /* not moved, and made mode 000 (last resort) */
};

/* Look at name in dirfd and, if an entry other than keep (may be NULL) is
 * there, move it aside; with last (no later chance: the run's end, the
 * guardian), one that cannot be moved is disarmed.  1 when an entry was
 * there (*t says what became of it; an entry that cannot even be looked at
 * counts as there), 0 when none was. */
int protect_quarantine_take(int dirfd, const char *name, const struct protect_quarantine_keep *keep,
			    int last, struct protect_quarantine_took *t)
	__attribute__((warn_unused_result));

/* The birth time of name in dirfd (statx; its ctime where the filesystem
 * keeps none), not following a link; flags: 0 or AT_EMPTY_PATH (name "":
 * dirfd itself).  0, or -errno (-ENODATA: neither time is known). */
int protect_quarantine_time(int dirfd, const char *name, int flags, int64_t *sec, uint32_t *nsec);

#endif
