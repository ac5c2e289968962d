/* quarantine.h: moving aside a protected name that appeared during a run
 * (--protect-missing watch, DESIGN.md section 5).
 *
 * The entry is renamed within its own directory to
 * NAME.cordon-quarantine-TAG (TAG names the run; -2, -3 ... are added when
 * that name is taken), never across directories and never over anything:
 * nothing is ever deleted, not even an entry a person on the host created
 * at that moment.  Whatever it is (directory, file, symbolic link), it is
 * moved as it is, without following it. */
#ifndef CORDON_QUARANTINE_H
#define CORDON_QUARANTINE_H

#include <stddef.h>
#include <stdint.h>

/* Rename name in dirfd aside.  moved (len bytes) gets the new name.  0, or
 * -ENOENT when name is gone, or -errno. */
int quarantine_move(int dirfd, const char *name, const char *tag, char *moved, size_t len)
	__attribute__((warn_unused_result));

/* The birth time of name in dirfd (statx; its ctime where the filesystem
 * keeps none), not following a link; flags: 0 or AT_EMPTY_PATH (name "":
 * dirfd itself).  0, or -errno (-ENODATA: neither time is known). */
int quarantine_time(int dirfd, const char *name, int flags, int64_t *sec, uint32_t *nsec);

/* 1 if name in dirfd exists and was born at or after (sec, nsec) (statx
 * birth time; where the filesystem keeps none, its ctime, which a rename
 * into place also sets), 0 if not or if it is not there, -errno. */
int quarantine_born_since(int dirfd, const char *name, int64_t sec, uint32_t nsec);

#endif
