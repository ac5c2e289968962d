/* gitstate.h: --git commit, the state files a later host git turns into a
 * command (plan/gitdir.h, role GITDIR_STATE): rebase-merge/git-rebase-todo
 * and sequencer/todo (`exec` lines run on `git rebase --continue` or
 * `git cherry-pick --continue`), rebase-merge/strategy and sequencer/opts
 * (a strategy that is not built in runs `git-merge-NAME`).
 *
 * Git needs them writable during the run.  gitstate_start notes what each
 * one is before the command starts; once the sandbox is gone,
 * gitstate_settle looks again, and one that the run created or changed
 * and that would run a command (or that is now a symbolic link, or whose
 * directory is) is moved aside like a protected name that appeared
 * (hostpaths/protect_quarantine.h), never deleted.  One the user left there before
 * the run is theirs and stays.
 *
 * The same end looks at each root's index: a host `git status` runs git
 * inside every populated submodule entry (gitlink), with that repository's
 * config, so a PATH/.git of a gitlink that the run made or changed is moved
 * aside. */
#ifndef CORDON_GITSTATE_H
#define CORDON_GITSTATE_H

#include <stddef.h>
#include <sys/stat.h>
#include "err.h"
#include "hostpaths/protect.h"

struct gitstate_file {
	int gitfd;                  /* the git dir, O_PATH, owned */
	char *path;                 /* gitdir/rule path, owned */
	const char *rel;            /* the rule's path, relative to gitfd */
	int opts;                   /* the strategy lies in a config file (sequencer/opts) */
	int todo;                   /* a todo list */
	int existed, dir_existed;
	struct stat before, dir_before;
};

/* Git writes its config through CONFIG.lock beside it: one appearing in a
 * git dir is git trying to change a read-only part, said once at the end
 * (the command only sees git's own EBUSY).  An inotify watch per git dir,
 * read only at the end: nothing of it is in the supervisor's loop. */
struct gitstate_dir {
	int wd;
	char *path;                 /* the git dir, owned */
};

/* A submodule entry (gitlink) of a root's index, and what its checkout's
 * .git was before the run: a host `git status` runs git in each populated
 * one, so a .git the run created or changed there (and a gitlink the run
 * staged for a repository it made) is moved aside at the end. */
struct gitstate_link {
	char *path;                 /* relative to the root, owned */
	int existed;
	struct stat before;
};

struct gitstate_repo {
	int gitfd;                  /* the root's .git, O_PATH, owned */
	int rootfd;                 /* the root (its ..), O_PATH, owned */
	char *root;                 /* owned */
	struct gitstate_link *links;
	size_t nlinks;
};

struct gitstate {
	struct gitstate_file *v;
	size_t n;
	int ifd;                    /* inotify, -1: none */
	int no_hint;                /* no inotify to be had: no "git tried to write" line */
	struct gitstate_dir *dirs;
	size_t ndirs;
	struct gitstate_repo *repos;
	size_t nrepos;
};

#define GITSTATE_INIT { NULL, 0, -1, 0, NULL, 0, NULL, 0 }

/* What was moved aside, for the report (run.c). */
typedef void gitstate_found_fn(void *ctx, const char *path, const char *moved, const char *why);

/* Note every state file of every git dir protect split, and watch each
 * git dir for its config's lock file.  0 or -errno. */
int gitstate_start(struct gitstate *g, const struct protect_run *p, struct cordon_err *e)
	__attribute__((warn_unused_result));

/* The sandbox is gone: say which read-only configuration git tried to
 * write (one line each), move aside what the run wrote that would run a
 * command, say so on stderr, and pass each to found.  The number moved. */
size_t gitstate_settle(struct gitstate *g, gitstate_found_fn *found, void *ctx);

void gitstate_free(struct gitstate *g);

#endif
