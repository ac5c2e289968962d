/* observer.h: outer/observe/, what watches a run.
 *
 * The folder's rule: an observer reads the host and records findings; it
 * moves aside only through hostpaths/ (the quarantine, gitstate), and
 * writes nothing else on the host.  Beside the observers of a run live the
 * host reads they share the rule with (nesting.h: refused when run inside
 * a sandbox; budgets.h: the per-user counts, for explain and doctor).
 *
 * Every observer of a run has the same four entry points, in the table
 * observe_table (observe.c), called in its order:
 *   start     before the command can start (run.c's release window);
 *   event     while the command runs: event_fd is polled by the
 *             supervisor, event is called when it is readable;
 *   settle    once the sandbox is gone, on every path out of a run:
 *             appends to the one list of findings (findings.h) that the
 *             stderr lines, --report and the exit status (status.h) read;
 *   guardian  what the guardian (hostpaths/guardian.h) must redo if cordon
 *             dies: OBSERVE_GUARDIAN(fn), fn handing it what it needs
 *             before the command can run, or OBSERVE_GUARDIAN_NONE("why"),
 *             a non-empty reason checked at compile time.
 * Every member is given (observe.c's entries are checked by
 * scripts/lint-layout.sh and by tests/unit/test_observe.c): an observer
 * cannot be added without saying what the guardian redoes. */
#ifndef CORDON_OBSERVE_OBSERVER_H
#define CORDON_OBSERVE_OBSERVER_H

#include <stddef.h>
#include "config.h"
#include "err.h"
#include "hostpaths/gitstate.h"
#include "hostpaths/protect.h"
#include "launch/bridge.h"
#include "launch/bwrap.h"
#include "observe/findings.h"
#include "observe/gitrefs.h"
#include "observe/netnote.h"
#include "observe/protect_watch.h"
#include "plan/resolve.h"

/* The run as the observers see it, all borrowed. */
struct observe_run {
	const struct config *c;
	const struct resolved *res;
	struct protect_run *prot;
	struct bwrap *bwrap;
	struct bridge_link *bridge;
	int ran;          /* the supervisor saw the run: its outcome is known */
	int look_roots;   /* the roots may have moved: checked at settle
			   * (run.c says when) */
};

/* Each observer's state.  The run owns one; observe_free frees it. */
/* How many observers observe_table holds (checked in observe.c). */
#define OBSERVE_N 5

struct observe {
	struct protect_watch watch;
	struct gitstate gs;
	struct gitrefs refs;
	struct netnote net;
	int stopped;      /* the watch stopped the sandbox for a name */
	struct findings found;
};

#define OBSERVE_INIT { PROTECT_WATCH_INIT, GITSTATE_INIT, GITREFS_INIT, NETNOTE_INIT, 0, \
		       FINDINGS_INIT }

/* What the guardian redoes: redo hands it over (0, or -errno: the run must
 * not start), or none says why nothing is to be redone. */
struct observe_guardian {
	int (*redo)(struct observe *o, const struct observe_run *r, struct cordon_err *e);
	const char *none;
};

#define OBSERVE_GUARDIAN(fn) { .redo = (fn), .none = NULL }
/* A string literal, not empty: anything else does not compile. */
#define OBSERVE_GUARDIAN_NONE(why) \
	{ .redo = NULL, .none = ("" why) + 0 * sizeof(struct { \
		_Static_assert(sizeof("" why) > 1, "say why the guardian redoes nothing"); \
		int unused; }) }

struct observer {
	const char *name;
	int (*start)(struct observe *o, const struct observe_run *r, struct cordon_err *e);
	/* The descriptor to poll while the command runs; -1: none. */
	int (*event_fd)(const struct observe *o);
	/* event_fd is readable: 1 when the observer is done with it (it is
	 * then no longer polled), else 0. */
	int (*event)(struct observe *o, const struct observe_run *r);
	void (*settle)(struct observe *o, const struct observe_run *r);
	struct observe_guardian guardian;
};

extern const struct observer observe_table[];
extern const size_t observe_ntable;

/* Nothing to take before the command starts: for an observer whose facts
 * resolve took already. */
int observe_no_start(struct observe *o, const struct observe_run *r, struct cordon_err *e);

/* No descriptor to poll: for an observer that sees nothing while the
 * command runs (its event is then never called). */
int observe_no_fd(const struct observe *o);
int observe_no_event(struct observe *o, const struct observe_run *r);

/* Each observer's start, in order; the first failure stops (the caller
 * ends the sandbox before the command starts). */
int observe_start(struct observe *o, const struct observe_run *r, struct cordon_err *e)
	__attribute__((warn_unused_result));

/* Each observer's guardian entry, in order, once the guardian watches
 * bwrap and before the command can run.  0, or the first -errno. */
int observe_tell_guardian(struct observe *o, const struct observe_run *r, struct cordon_err *e)
	__attribute__((warn_unused_result));

/* The sandbox is gone (bwrap reaped or killed): each observer's settle, in
 * order, the lines of each said as it settles, but for those held for the
 * status (findings.h). */
void observe_settle(struct observe *o, const struct observe_run *r);

void observe_free(struct observe *o);

#endif
