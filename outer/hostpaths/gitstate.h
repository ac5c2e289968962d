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
 * (hostpaths/quarantine.h), never deleted.  One the user left there before
 * the run is theirs and stays. */
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

struct gitstate {
	struct gitstate_file *v;
	size_t n;
};

/* What was moved aside, for the report (run.c). */
typedef void gitstate_found_fn(void *ctx, const char *path, const char *moved, const char *why);

/* Note every state file of every git dir protect split.  0 or -errno. */
int gitstate_start(struct gitstate *g, const struct protect_run *p, struct cordon_err *e)
	__attribute__((warn_unused_result));

/* The sandbox is gone: move aside what the run wrote that would run a
 * command, say so on stderr, and pass each to found.  The number moved. */
size_t gitstate_settle(struct gitstate *g, const char *tag, gitstate_found_fn *found, void *ctx);

void gitstate_free(struct gitstate *g);

#endif
