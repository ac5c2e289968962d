/* protect.h: making protected names that are missing from a writable root
 * uncreatable, and keeping the registry that makes that safe out of reach.
 *
 * For each protected name missing directly inside a writable root (and for
 * each protected object the registry sweep has just removed as a dead run's
 * leftover), cordon creates an empty directory there itself, 0755, after
 * recording its intent in the registry, captures its (dev, ino), opens it
 * O_PATH, and the mount plan binds it read-only
 * over itself, and a read-only mount point cannot be replaced, removed,
 * renamed or written into from inside the sandbox.  If another live run
 * materialized the same path already, the run records a reference to it and
 * binds it the same way; the last run out removes it.  Paths other live runs
 * materialized elsewhere beneath this run's writable roots are bound
 * read-only too (and referenced), so this run's command cannot remove
 * another sandbox's mount point from under it.  The registry directory
 * itself becomes a read-only carve-out wherever a writable root reaches it.
 *
 * Gather, decide, apply: protect_gather (before bwrap is forked: lstat and
 * open each name, so bwrap inherits the descriptors of the existing ones),
 * protect_prepare (under the registry lock: sweep, live runs, then
 * protect_decide, plan/protect_decide.h), the mount plan built from
 * protect_decision(), protect_materialize once bwrap has its arguments (it
 * creates the directories while bwrap creates its namespaces; bwrap mounts
 * nothing until cordon releases it, userns.h), protect_started once bwrap
 * runs, protect_release when the run is over (always called, also on error
 * paths).  cordon explain: protect_gather, then protect_explain. */
#ifndef CORDON_PROTECT_H
#define CORDON_PROTECT_H

#include <sys/types.h>
#include "err.h"
#include "hostpaths/guardian.h"
#include "hostpaths/record.h"
#include "hostpaths/registry.h"
#include "config.h"
#include "plan/protect_decide.h"
#include "plan/resolve.h"

struct gitmode;

struct protect_run {
	struct registry reg;
	struct guardian guard;
	struct record rec;           /* this run's record */
	char name[REC_NAME_MAX];     /* its file name; "" while there is none */
	pid_t bwrap;                 /* bwrap forked before the registry work, or 0 */
	int watch;                   /* --protect-missing watch */
	/* Watching was asked for, but the caller's inotify budget is spent
	 * (protect_watch_reserve): the errno and the sysctl that ran out; every
	 * missing name then gets a placeholder, as in mount mode. */
	int watch_lost;
	const char *watch_lost_limit;
	pid_t sandbox;               /* bwrap, once started */
	/* Facts (protect_gather, protect_prepare); paths owned. */
	struct protect_name *names;  size_t nnames, capnames;
	struct protect_root *roots;  size_t nroots;
	struct protect_live *live;   size_t nlive;
	char **swept;                size_t nswept, capswept;
	struct protect_decision plan;
	/* The objects bound by path (created, adopted, pinned, carved), each
	 * with the descriptor cordon-inner checks the mount against. */
	struct rpath *checks;        size_t nchecks, capchecks;
	/* Directories bound as found, flocked shared (hold_bound in protect.c)
	 * until protect_release. */
	int *held;                   size_t nheld, capheld;
	/* --git commit's facts (hostpaths/gitmode.h), made by protect_gather,
	 * freed by protect_release; NULL without --git commit.  The watched
	 * git entries' dirfd point at its descriptors. */
	struct gitmode *git;
	ino_t sandbox_sock;          /* set by the caller: inode of the socket end bwrap's
					child holds (guardian_start) */
	int left_to_guardian;        /* a release could not be done: the guardian, never
					told "done", does it */
};

#define PROTECT_RUN_INIT { .reg = REGISTRY_INIT, .guard = GUARDIAN_INIT }

/* Before bwrap is forked: lstat each protected name directly inside each
 * writable root (c's defaults and --protect), open the existing ones O_PATH
 * (descriptors bwrap is to inherit: protect_fds), and note read-only roots. */
int protect_gather(const struct resolved *r, const struct config *c, struct protect_run *p,
		   struct cordon_err *e) __attribute__((warn_unused_result));

/* The descriptors protect_gather opened, for bwrap's keep list: calls
 * fn(ctx, fd) for each; 0, or fn's first failure. */
int protect_fds(const struct protect_run *p, int (*fn)(void *ctx, int fd), void *ctx);

/* Open, lock and sweep the registry, gather the live runs' paths, and
 * decide (protect_decision).  Then start the guardian (every run has one,
 * forked before bwrap has its arguments, so before bwrap's child exists:
 * guardian.h), naming the run's record first if the run will own or share
 * anything.  The lock stays held until protect_materialize.  full_write:
 * "/" counts as a writable root.  bwrap: cordon's child, already forked (its
 * record entry), or 0.  p->sandbox_sock must be set. */
int protect_prepare(const struct resolved *r, int full_write, pid_t bwrap, struct protect_run *p,
		    struct cordon_err *e) __attribute__((warn_unused_result));

/* cordon explain: decide without a registry (nothing is opened or created). */
int protect_explain(struct protect_run *p, int full_write, struct cordon_err *e)
	__attribute__((warn_unused_result));

/* What to bind: the mount plan's input (plan/mount_plan.h). */
const struct protect_decision *protect_decision(const struct protect_run *p);

/* After protect_gather: may writable root number `root` have a name to
 * watch (watch mode, or the protected dotfiles in mount mode)?  Whether
 * each is missing is known only after protect_prepare's sweep, so this looks
 * at the names alone.  The cache directory, a root without protected names,
 * gets no watch. */
int protect_root_may_watch(const struct protect_run *p, size_t root);

/* Before protect_prepare: inotify is not to be had (err, the limit named by
 * limit ran out), so no missing name is left to a watch: each gets an empty
 * read-only placeholder through the registry, as --protect-missing mount
 * does, and the run says so once on stderr and in its report.  Never less
 * protection: a placeholder holds the name for the whole run. */
void protect_watch_lost(struct protect_run *p, int err, const char *limit);

/* If the run will own or share anything: start the guardian, record the
 * run (intent first), create the directories and open what is bound by
 * path (protect_checks).  Then unlock.  On failure the caller must end bwrap
 * before it mounts: a directory the plan binds may not exist. */
int protect_materialize(const struct resolved *r, struct protect_run *p, struct cordon_err *e)
	__attribute__((warn_unused_result));

/* After protect_materialize: the objects bound by path, for cordon-inner's
 * (dev, ino) check of each. */
const struct rpath *protect_checks(const struct protect_run *p, size_t *n);

/* Close every descriptor protect holds (paths and facts stay): once bwrap
 * and cordon-inner have theirs (resolved_close says why). */
void protect_close_fds(struct protect_run *p);

/* bwrap (pid) runs: confirm the guardian started and hand it bwrap (both
 * are in the record already).  Call it before cordon-inner may start the command
 * (before the bind checks are sent), so that the guardian knows what to wait
 * for by the time the command runs.  -ECHILD with *e filled when the
 * guardian did not start: the caller must end the sandbox unrun. */
int protect_started(struct protect_run *p, pid_t bwrap, struct cordon_err *e)
	__attribute__((warn_unused_result));

/* The run is over: remove what it materialized (unless live runs still use
 * it), delete its record, dismiss the guardian.  If bwrap may still be
 * running, leave all of that to the guardian instead.  Frees p. */
void protect_release(struct protect_run *p);

/* cordon-inner reported that every process of the sandbox but itself is
 * dead: release now, while bwrap is still exiting.  The mount points are in
 * use only in the sandbox's own mount namespace, which no untrusted process
 * can reach any more, and removing them on the host does not need it gone.
 * The guardian is not dismissed: it redoes the run's end (the observers',
 * observe/observer.h) if cordon dies before protect_release. */
void protect_command_gone(struct protect_run *p);

/* For protect*.c only: --git commit, after the names are gathered: split
 * each protected .git directory by the rule of plan/gitdir.h into pinned,
 * read-only and watched names.  -EPERM with *e filled when an entry the
 * rule pins or keeps read-only is a symbolic link. */
int protect_git_gather(struct protect_run *p, struct cordon_err *e)
	__attribute__((warn_unused_result));

/* For protect*.c only: --git commit, each linked worktree's common dir
 * that resolve kept (plan/gitlinked.h): pinned writable onto itself (and a
 * writable root for Landlock), split by the same rule as a .git. */
int protect_git_linked(const struct resolved *r, struct protect_run *p, struct cordon_err *e)
	__attribute__((warn_unused_result));

/* For protect*.c only: o becomes one of the run's checks (cordon-inner's
 * bind checks); freed on failure.  0 or -ENOMEM. */
int protect_push_check(struct protect_run *p, struct rpath *o) __attribute__((warn_unused_result));

#endif
