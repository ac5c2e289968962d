/* registry_sweep.h: judging the registry's records and carrying out the
 * verdicts.  A record is data anyone with the user's rights may have
 * written (a sandboxed command with a writable home included), so every
 * path in it is judged by reclaim_decide on facts entrypath.h gathers
 * without following a link, and the most a verdict does is rmdir. */
#ifndef CORDON_REGISTRY_SWEEP_H
#define CORDON_REGISTRY_SWEEP_H

#include <stdio.h>
#include "err.h"
#include "hostpaths/reclaim.h"
#include "hostpaths/record.h"
#include "hostpaths/registry.h"

/* Called for each path the sweep looked at: verdict RECLAIM_REMOVE (it was
 * removed) or RECLAIM_KEEP with the reason; never for RECLAIM_DROP. */
typedef void (*registry_report_fn)(void *ctx, const char *path, enum reclaim_verdict v,
				   const char *why);

/* Locked.  Read every record.  Records of live runs stay, and their entries
 * become reg->live.  The record named `released` (NULL: none) is treated as
 * over, as is every record whose run is dead: each of its paths is judged by
 * reclaim_decide and removed (rmdir) when allowed.  The record is then
 * deleted, or rewritten with the paths that could not be looked at or
 * removed (an error, not a verdict), for the next sweep to try again.
 * Temporary record files are deleted: records are written only under the
 * lock, so one seen by the lock holder is a dead writer's.  report may be
 * NULL. */
int registry_sweep(struct registry *reg, const char *released, registry_report_fn report,
		   void *ctx, struct cordon_err *e) __attribute__((warn_unused_result));

/* Locked.  registry_sweep with the record `name` released, where `mine`
 * is that record as its run holds it in memory: it is used instead of the
 * file, which may lag behind it (or be missing) if writing it failed.
 * Both: -EBUSY when another sandbox (of any registry) still binds a
 * directory of the released record; that entry stays in the record, for
 * registry_wait_unbound and a sweep after it. */
int registry_release(struct registry *reg, const char *name, const struct record *mine,
		     struct cordon_err *e) __attribute__((warn_unused_result));

/* Not locked.  Wait, at most timeout_ms, until no sandbox binds any
 * directory of the record `name` (created, meant to create or shared:
 * whatever a sweep may remove; each sandbox holds a
 * shared flock on it while its bwrap runs).  1 when one was held and is
 * free now, 0 when none was held (what holds the sweep up is not a lock
 * this wait can see: only time may change it), -ETIMEDOUT, or -errno (no
 * such record). */
int registry_wait_unbound(const struct registry *reg, const char *name, long timeout_ms);

/* cordon reclaim: sweep and print "removed PATH" or "kept PATH: reason" per
 * path to out.  0 or -errno with *e filled. */
int registry_reclaim(FILE *out, struct cordon_err *e) __attribute__((warn_unused_result));

#endif
