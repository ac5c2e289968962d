/* gitrefs.h: --git commit, what the run committed.  Before the command
 * starts, the refs of every repository git dir protect split (loose refs
 * under refs/, packed-refs, a detached HEAD) are read; after it, again; each
 * ref whose value changed goes to --report (git_refs) and to one line on
 * stderr, so that a harness shows what was committed as it showed an
 * uncommitted diff.  Reads only (no host writes): it lives beside run.c.
 *
 * What is read lies in a writable root: bounded (GITREFS_MAX refs, names
 * of git's own length), never followed through a symbolic link, and a
 * value that is not an object id (a symbolic ref) is skipped.
 *
 * Each ref that moved is also given the number of commits it gained (those
 * reachable from its new value and from no ref's value before the run), as
 * git counts them (launch/gitcount.h): at most GITREFS_COUNT_MAX refs, all
 * within GITREFS_COUNT_MS; past either, the count is unknown. */
#ifndef CORDON_GITREFS_H
#define CORDON_GITREFS_H

#include <stddef.h>
#include "hostpaths/protect.h"
#include "launch/gitcount.h"
#include "report.h"

#define GITREFS_MAX 20000
#define GITREFS_COUNT_MAX 16
#define GITREFS_COUNT_MS 3000

struct gitrefs_ref {
	char *name;        /* "refs/heads/main", "HEAD"; owned */
	char id[72];       /* hex object id */
};

struct gitrefs_repo {
	char *path;        /* the git dir, owned */
	int fd;            /* O_PATH, owned */
	struct gitrefs_ref *before; size_t nbefore;
};

struct gitrefs {
	struct gitrefs_repo *v;
	size_t n;
	struct gitcount count;  /* opened with the first repository */
};

#define GITREFS_INIT { NULL, 0, { { -1, "", { 0 } } } }

/* Read the refs of each git dir of p (not a linked worktree's: its refs
 * are the common dir's), and open the git that will count (roots: the
 * run's writable roots, where no trusted git may lie).  Best effort: a
 * repository whose refs cannot be read is left out.  0 or -ENOMEM. */
int gitrefs_start(struct gitrefs *g, const struct protect_run *p, const struct rpath *roots,
		  size_t nroots);

/* The sandbox is gone: read again, add each change to rep (may be NULL),
 * and say them in one line on stderr.  The number of refs that changed. */
size_t gitrefs_settle(struct gitrefs *g, struct report *rep);

void gitrefs_free(struct gitrefs *g);

#endif
