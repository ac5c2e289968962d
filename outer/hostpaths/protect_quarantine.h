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
 * symbolic link), it is moved as it is, without following it. */
#ifndef CORDON_PROTECT_QUARANTINE_H
#define CORDON_PROTECT_QUARANTINE_H

#include <stddef.h>
#include <stdint.h>

/* Rename name in dirfd aside.  moved (len bytes, NAME_MAX + 1 is enough)
 * gets the new name.  0, or -ENOENT when name is gone, or -errno (the
 * directory refuses renames: EROFS, EPERM, EACCES, ...). */
int protect_quarantine_move(int dirfd, const char *name, char *moved, size_t len)
	__attribute__((warn_unused_result));

/* The same, always to the shorter .cordon-quarantine-RANDOM: in a git dir,
 * where git takes every name under refs/ for a ref (a FIFO renamed to
 * refs/heads/x.cordon-quarantine-RANDOM would still block git), but skips
 * names that start with a dot. */
int protect_quarantine_hide(int dirfd, const char *name, char *moved, size_t len)
	__attribute__((warn_unused_result));

/* The birth time of name in dirfd (statx; its ctime where the filesystem
 * keeps none), not following a link; flags: 0 or AT_EMPTY_PATH (name "":
 * dirfd itself).  0, or -errno (-ENODATA: neither time is known). */
int protect_quarantine_time(int dirfd, const char *name, int flags, int64_t *sec, uint32_t *nsec);

#endif
