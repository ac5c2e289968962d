/* gitrefs.h: --git commit, what the run committed.  Before the command
 * starts, the refs of every repository git dir protect split (loose refs
 * under refs/, packed-refs, a detached HEAD) are read; after it, again; each
 * ref whose value changed goes to --report (git_refs) and to one line on
 * stderr, so that a harness shows what was committed as it showed an
 * uncommitted diff.  Reads only (no host writes): an observer
 * (observe/observer.h).
 *
 * What is read lies in a writable root, and the command chose it: nothing
 * it can do there may hide a ref that moved (issue 30, item 8).  Loose refs
 * are read at any depth git reads them (up to GITREFS_DEPTH directories),
 * a loose ref that is a symbolic link is read as git reads it (a link to
 * "refs/..." is a symbolic ref, any other is followed to a regular file,
 * opened by descriptor after it was checked to be one: never a device or a
 * FIFO), and a value that is not an object id (a symbolic ref) is skipped.
 * Whatever cannot be read as git would (past GITREFS_MAX refs or
 * GITREFS_DEPTH, a link to a directory, a name too long, a directory that
 * cannot be opened) makes the snapshot incomplete, and the run says so on
 * stderr and in --report (git_refs_incomplete): a repository is never left
 * out in silence.  Names reach stderr escaped (common/termsafe.h).  Lists
 * are sorted once and compared by a merge: linear in the number of refs.
 *
 * Each ref that moved is also given the number of commits it gained (those
 * reachable from its new value and from no ref's value before the run), as
 * git counts them (launch/gitcount.h): at most GITREFS_COUNT_MAX refs, all
 * within GITREFS_COUNT_MS; past either, the count is unknown. */
#ifndef CORDON_GITREFS_H
#define CORDON_GITREFS_H

#include <stddef.h>
#include "launch/gitcount.h"
#include "observe/findings.h"
#include "plan/resolve.h"

/* --git commit's facts (hostpaths/gitmode.h), borrowed at the start. */
struct gitmode;

#define GITREFS_MAX 500000
#define GITREFS_DEPTH 256
#define GITREFS_PACKED_MAX (256u << 20)
#define GITREFS_COUNT_MAX 16
#define GITREFS_COUNT_MS 3000

struct gitrefs_ref {
	char *name;        /* "refs/heads/main", "HEAD"; owned */
	char id[72];       /* hex object id */
	int loose;         /* read from a loose file: wins over packed-refs */
};

struct gitrefs_repo {
	char *path;        /* the git dir, owned */
	int fd;            /* O_PATH, owned */
	struct gitrefs_ref *before; size_t nbefore; /* sorted by name */
	char gap[200];     /* why the refs before the run are not all known, "" */
};

struct gitrefs {
	struct gitrefs_repo *v;
	size_t n, cap;
	struct gitcount count;  /* opened with the first repository */
};

#define GITREFS_INIT { .count = { { -1, "", { 0 } } } }

/* Read the refs of each git dir of gm (NULL: none; not a linked
 * worktree's: its refs are the common dir's), and open the git that will count (roots: the
 * run's writable roots, where no trusted git may lie).  A repository whose
 * refs cannot all be read is kept, with the reason, for gitrefs_settle to
 * say.  0 or -ENOMEM. */
int gitrefs_start(struct gitrefs *g, const struct gitmode *gm, const struct rpath *roots,
		  size_t nroots);

/* The sandbox is gone: read again, add each change (FINDING_GIT_REF) and
 * each repository not read whole (FINDING_GIT_REFS_GAP) to found, then
 * what the user is to be told of them (one line for the refs, one per
 * gap) as a FINDING_NOTE.  The number of refs that changed. */
size_t gitrefs_settle(struct gitrefs *g, struct findings *found);

void gitrefs_free(struct gitrefs *g);

#endif
