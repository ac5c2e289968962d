/* gitstate.h: --git commit, the end of the run for each split git dir:
 * what the command left there that a later host git would run, follow or
 * block on.  Three looks, in this order, once the sandbox is gone:
 *
 * 1. The kind of every entry the run made or changed (hostpaths/gitaudit.h):
 *    a symbolic link, FIFO, socket, device, hard-linked file or entry of
 *    another owner is moved aside.  First, so that nothing of cordon's
 *    (the reads below, gitrefs, the git that counts commits) opens a path
 *    the command chose as a link or a FIFO.
 * 2. The state files a later host git turns into a command (plan/gitdir.h,
 *    role GITDIR_STATE): rebase-merge/git-rebase-todo and sequencer/todo
 *    (`exec` lines run on `git rebase --continue` or `git cherry-pick
 *    --continue`), rebase-merge/strategy and sequencer/opts (a strategy
 *    that is not built in runs `git-merge-NAME`).  One that the run made or
 *    changed and that would run a command (or that is not a regular file,
 *    or whose directory is not a directory) is moved aside.
 * 3. The index of each repository with a checkout (its shared part too,
 *    sharedindex.*, for a split index): a host `git status` runs git inside
 *    every populated submodule entry (gitlink), with that repository's
 *    config, so a PATH/.git that the run made or changed, or whose
 *    configuration, hooks or info the run made or changed, is moved aside.
 *    An entry whose name git would not write ("", ".", "..", ".git", "/..")
 *    is never turned into a path.
 *
 * What "made or changed during the run" means: an inode's ctime at or
 * after `since`, taken before the command could start (plan/gitaudit.h).
 * Nothing else is noted before the run, so the same end can be redone from
 * the git dirs' descriptors and `since` alone: cordon sends both to its
 * guardian (gitstate_tell), which redoes this end if cordon is killed
 * (hostpaths/guardian.c).  Nothing is ever deleted: a move is a rename
 * within the directory (hostpaths/protect_quarantine.h). */
#ifndef CORDON_GITSTATE_H
#define CORDON_GITSTATE_H

#include <stddef.h>
#include <stdio.h>
#include <sys/stat.h>
#include <time.h>
#include "err.h"
#include "hostpaths/guardian.h"
#include "plan/gitend.h"

/* --git commit's facts (hostpaths/gitmode.h), borrowed at the start. */
struct gitmode;

/* One git dir as cordon hands it over (to gitstate_add). */
struct gitstate_spec {
	int fd;                     /* the git dir, O_PATH, borrowed */
	const char *path;           /* its path, for messages */
	const char *checkout;       /* a linked worktree's checkout root, or NULL */
	unsigned flags;             /* GITSTATE_* */
	dev_t root_dev;             /* checkout: the root's identity, checked when it */
	ino_t root_ino;             /* is opened by path (in the guardian) */
};

#define GITSTATE_TOP 1u    /* not inside another git dir of the run: walked (1.) */
#define GITSTATE_REPO 2u   /* its index read for gitlinks (3.): a root's .git, or
			    * a linked worktree's git dir (then checkout is set) */

struct gitstate_file {
	int gitfd;                  /* the git dir, O_PATH, owned */
	char *path;                 /* gitdir/rule path, owned */
	const char *rel;            /* the rule's path, relative to gitfd */
	enum gitend_file kind;      /* a todo list, a strategy, rr-cache (plan/gitend.h) */
};

/* Git writes its config through CONFIG.lock beside it: one appearing in a
 * git dir is git trying to change a read-only part, said once at the end
 * (the command only sees git's own EBUSY).  An inotify watch per git dir,
 * read only at the end: nothing of it is in the supervisor's loop. */
struct gitstate_dir {
	int wd;
	char *path;                 /* the git dir, owned */
};

/* A submodule entry (gitlink) of a repository's index when the run
 * started, and what its checkout's .git was then: a .git that is another
 * one at the end (made, or renamed into place with its directory) has a
 * configuration the run chose, whatever its timestamps say. */
struct gitstate_link {
	char *path;                 /* relative to the root, owned */
	int existed;
	dev_t dev;
	ino_t ino;
	mode_t mode;
};

struct gitstate_repo {
	int gitfd;                  /* O_PATH, owned */
	int rootfd;                 /* the checkout root, O_PATH, owned; -1: none */
	char *root;                 /* owned */
	struct gitstate_link *links; /* the gitlinks at the start */
	size_t nlinks;
	int have_links;             /* 0: not known (every gitlink counts as new) */
};

struct gitstate_top {
	int fd;                     /* O_PATH, owned */
	char *path;                 /* owned */
};

struct gitstate {
	struct timespec since;
	struct gitstate_file *v;
	size_t n, cap;
	int ifd;                    /* inotify, -1: none */
	int no_hint;                /* no inotify to be had: no "git tried to write" line */
	struct gitstate_dir *dirs;
	size_t ndirs, capdirs;
	struct gitstate_repo *repos;
	size_t nrepos, caprepos;
	struct gitstate_top *tops;
	size_t ntops, captops;
	struct gitstate_spec *specs; /* what gitstate_tell sends: borrowed fds, owned copies */
	size_t nspecs, capspecs;
};

#define GITSTATE_INIT { .ifd = -1 }

/* What was moved aside, for the report (run.c). */
typedef void gitstate_found_fn(void *ctx, const char *path, const char *moved, const char *why);

/* Note `since` (now), take every git dir of gm (NULL: none, no --git
 * commit), and watch each for its config's lock file.  Called before the
 * command can start.  0 or -errno. */
int gitstate_start(struct gitstate *g, const struct gitmode *gm, struct cordon_err *e)
	__attribute__((warn_unused_result));

/* One git dir (its fd duplicated), without a watch: for the guardian,
 * which sets g->since itself.  0 or -errno. */
int gitstate_add(struct gitstate *g, const struct gitstate_spec *s, struct cordon_err *e)
	__attribute__((warn_unused_result));

/* Send every git dir, its gitlinks at the start (a memfd) and `since` to
 * the guardian, so that it redoes the end if cordon is killed.  0, or
 * -errno: the run must not start then. */
int gitstate_tell(const struct gitstate *g, struct guardian *gd, struct cordon_err *e)
	__attribute__((warn_unused_result));

/* The sandbox is gone: move aside what the run left that a host git
 * would run, follow or block on, say so on stderr, and pass each to found.
 * The number moved. */
size_t gitstate_settle(struct gitstate *g, gitstate_found_fn *found, void *ctx);

/* Say on out which read-only configuration git tried to write during the
 * run (one line each): last, the line a user reads after git's own error. */
void gitstate_say_config(struct gitstate *g, FILE *out);

/* The guardian: the gitlinks at the start of the last repository added
 * (g->repos[g->nrepos - 1]), from the memfd gitstate_tell sent (fd, read
 * from its start).  0, or -errno (then every gitlink counts as new). */
int gitstate_load_links(struct gitstate *g, int fd);

void gitstate_free(struct gitstate *g);

#endif
