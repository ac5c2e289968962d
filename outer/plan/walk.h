/* walk.h: opening a path the caller named, following only symbolic links
 * owned by root (and for a root caller's writable roots, only the system's
 * own).
 *
 * A link owned by anyone else may have been planted by an earlier sandboxed
 * run (`build -> $HOME` in a workspace); following it would let that run
 * choose the next run's writable roots.  A root-owned link (`/home ->
 * /mnt/home`, `/var/run -> /run`) is the machine's own layout and is
 * followed.  The walk opens each component O_PATH|O_NOFOLLOW and inspects the
 * opened object, so a link swapped in between a check and an open is seen. */
#ifndef CORDON_WALK_H
#define CORDON_WALK_H

#include <sys/types.h>

/* Whose links a walk follows.  WALK_SYSTEM_LINKS is for a root caller's
 * writable roots: every link a root caller's sandbox can create is owned by
 * root, so ownership says nothing there, and only the machine's layout is
 * followed: links directly in /, /usr or /var (/bin -> usr/bin, /var/run ->
 * /run, /home -> /mnt/home), where a sandbox writes only if it was given
 * the whole system. */
enum walk_trust { WALK_ROOT_LINKS, WALK_SYSTEM_LINKS };

/* The link that stopped a walk: its path as walked (for the message), its
 * owner, and whether it was refused for where it lies (WALK_SYSTEM_LINKS). */
struct walk_link {
	char path[4096];
	uid_t owner;
	int not_system;
};

/* Open path (absolute, or relative to the current directory) O_PATH|O_CLOEXEC.
 * Returns the descriptor; -EPERM with *bad filled when a link owned by
 * anyone but root (or, with WALK_SYSTEM_LINKS, outside the system's layout)
 * lies on the way; -ELOOP past 40 links; another -errno when
 * a component cannot be opened. */
int walk_open(const char *path, enum walk_trust trust, struct walk_link *bad)
	__attribute__((warn_unused_result));

/* Whether a link in the directory dir (as walked, "" for /) is part of the
 * machine's layout for WALK_SYSTEM_LINKS.  Pure. */
int walk_system_link_dir(const char *dir);

#endif
