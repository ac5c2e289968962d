/* protect.h: making protected names that are missing from a writable root
 * uncreatable, and keeping the registry that makes that safe out of reach.
 *
 * For each protected name missing directly inside a writable root (and for
 * each protected object the registry sweep has just removed as a dead run's
 * leftover), cordon creates an empty directory there itself, 0755, after
 * recording its intent in the registry, captures its (dev, ino), opens it
 * O_PATH and appends it to r->protects: the mount plan binds it read-only
 * over itself, and a read-only mount point cannot be replaced, removed,
 * renamed or written into from inside the sandbox.  If another live run
 * materialized the same path already, the run records a reference to it and
 * binds it the same way; the last run out removes it.  Paths other live runs
 * materialized elsewhere beneath this run's writable roots are bound
 * read-only too (and referenced), so this run's command cannot remove
 * another sandbox's mount point from under it.  The registry directory
 * itself becomes a read-only carve-out wherever a writable root reaches it.
 *
 * Lifecycle: protect_prepare before the mount plan is built;
 * protect_materialize once bwrap has its arguments (it creates the
 * directories while bwrap creates its namespaces; bwrap mounts nothing until
 * cordon releases it, userns.h); protect_started once bwrap runs;
 * protect_release when the run is over (always called, also on error
 * paths). */
#ifndef CORDON_PROTECT_H
#define CORDON_PROTECT_H

#include <sys/types.h>
#include "err.h"
#include "hostpaths/guardian.h"
#include "hostpaths/record.h"
#include "hostpaths/registry.h"
#include "plan/resolve.h"

struct protect_pending;

struct protect_run {
	struct registry reg;
	struct guardian guard;
	struct record rec;           /* this run's record */
	char name[REC_NAME_MAX];     /* its file name; "" while there is none */
	pid_t sandbox;               /* bwrap, once started */
	struct protect_pending *pending; /* from protect_prepare to protect_materialize */
	ino_t sandbox_sock;          /* set by the caller: inode of the socket end bwrap's
					child holds (guardian_start) */
};

#define PROTECT_RUN_INIT { REGISTRY_INIT, GUARDIAN_INIT, { .n = 0 }, "", 0, NULL, 0 }

/* Open, lock and sweep the registry, carve it out of the writable roots,
 * and decide what the plan binds: into r->protects go live runs' paths to
 * share or pin and, for each name to be created, a placeholder bound by path
 * (late).  Then start the guardian (every run has one, forked before bwrap
 * has its arguments, so before bwrap's child exists: guardian.h), naming the
 * run's record first if the run will own or share anything.  The lock stays
 * held.  full_write: "/" counts as a writable root.  bwrap: cordon's child,
 * already forked (its record entry), or 0.  p->sandbox_sock must be set. */
int protect_prepare(struct resolved *r, int full_write, pid_t bwrap, struct protect_run *p,
		    struct cordon_err *e) __attribute__((warn_unused_result));

/* If the run will own or share anything: record the run (intent first,
 * naming cordon, its guardian and bwrap), create the placeholders' directories and fill each
 * placeholder with its (dev, ino) and descriptor.  Then unlock.  On failure
 * the caller must end bwrap before it mounts: a placeholder may not exist. */
int protect_materialize(struct resolved *r, struct protect_run *p, struct cordon_err *e)
	__attribute__((warn_unused_result));

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
 * can reach any more, and removing them on the host does not need it gone. */
void protect_command_gone(struct protect_run *p);

/* For cordon explain: add to r->protects the mounts a run would make for the
 * missing names (by path; nothing is created). */
int protect_explain(struct resolved *r, struct cordon_err *e)
	__attribute__((warn_unused_result));

#endif
