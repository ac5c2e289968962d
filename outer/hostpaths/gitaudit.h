/* gitaudit.h: --git commit, the end of the run's look at the kind of every
 * entry of a writable git dir that the command made or changed
 * (plan/gitaudit.h says which kinds git writes and why the others are
 * traps).  Each other one is moved aside (hostpaths/protect_quarantine.h,
 * the dotted name git skips), said on stderr and passed to found.  It runs
 * before anything of cordon's reads the git dir again (gitstate's state
 * files and index, gitrefs and the git that counts commits), in cordon at
 * the end of the run and in the guardian after a kill of cordon.
 *
 * Cost: nothing before the run (no snapshot: the kernel's ctime says what
 * changed since `since`), and at the end one getdents pass over each
 * directory plus one lstat per entry of a directory whose own ctime is
 * since then.  An entry can be added, removed or renamed in a directory
 * only by changing that directory, so every new symbolic link, FIFO,
 * socket or device, and every new name of a hard link, lies in a
 * directory that changed.  What a directory that did not change can hide
 * is an old entry changed in place: its content (the state files and the
 * index, which gitstate reads by their ctime, O_NOFOLLOW), its mode, or a
 * second name made for it outside the git dir (a worktree file the
 * command could write anyway).  A loose object directory with thousands
 * of objects costs one getdents pass, not thousands of lstat calls. */
#ifndef CORDON_HOSTPATHS_GITAUDIT_H
#define CORDON_HOSTPATHS_GITAUDIT_H

#include <stddef.h>
#include <sys/types.h>
#include <time.h>
#include "plan/gitaudit.h"

typedef void gitaudit_found_fn(void *ctx, const char *path, const char *moved, const char *why);

/* Walk the git dir gitfd (named path, for messages), never following a
 * symbolic link and never leaving its filesystem, and move aside each
 * entry changed at or after since whose kind git does not write.  The
 * number moved (or left in place because it could not be moved). */
size_t gitaudit_walk(int gitfd, const char *path, const struct timespec *since, uid_t caller,
		     gitaudit_found_fn *found, void *ctx);

#endif
