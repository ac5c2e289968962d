/* gitmode.h: --git commit, the facts of the run's git commit mode: every
 * directory protect pinned in a split git dir (plan/gitdir.h's rule), each
 * with its descriptor, and for a linked worktree's git dir the root it
 * checks out (plan/gitlinked.h).
 *
 * Lifetime: made when the protected names are gathered (protect_gather,
 * whose walk, protect_git.c, adds each directory as it pins it), owned by
 * the run's protect_run (p->git, NULL without --git commit), its
 * descriptors closed with protect's (protect_close_fds) and freed with
 * the run (protect_release).  Read, borrowed, by the observers that need
 * it before the command starts: gitstate (the end of each git dir) and
 * gitrefs (the refs before the run). */
#ifndef CORDON_HOSTPATHS_GITMODE_H
#define CORDON_HOSTPATHS_GITMODE_H

#include <stddef.h>
#include "err.h"

/* A directory pinned in a split git dir. */
struct gitmode_dir {
	char *path;                  /* owned */
	int fd;                      /* O_PATH, owned */
	int is_gitdir;               /* a git dir (.git, worktrees/X, modules/X), not
					a directory inside one */
	char *checkout;              /* owned, or NULL: a linked worktree's git dir
					outside every root (plan/gitlinked.h), the
					root it checks out (gitstate's gitlinks) */
};

struct gitmode {
	struct gitmode_dir *dirs;
	size_t ndirs, capdirs;
};

/* A new, empty one (free with gitmode_free), or NULL: out of memory. */
struct gitmode *gitmode_new(void);

/* Keep fd (taken, closed on failure too) as the pinned directory at path.
 * 0, or -ENOMEM with *e filled. */
int gitmode_add(struct gitmode *g, const char *path, int fd, int is_gitdir, struct cordon_err *e)
	__attribute__((warn_unused_result));

/* The git dir pinned at gitdir checks out root (a linked worktree).
 * -EAGAIN with *e filled when no git dir was pinned there (it changed
 * while cordon looked at it). */
int gitmode_mark_checkout(struct gitmode *g, const char *gitdir, const char *root,
			  struct cordon_err *e) __attribute__((warn_unused_result));

/* Close every descriptor (paths stay), as protect_close_fds does its own. */
void gitmode_close(struct gitmode *g);

/* Close and free g (NULL: nothing). */
void gitmode_free(struct gitmode *g);

#endif
