/* protect_apply.h: for protect*.c only.  Deciding on the gathered names
 * (plan/protect_decide.h) and applying the decision to the run: the live
 * runs' paths opened, the directories bound as found held (flock), the
 * record entries, the registry's carve-outs, the bind checks. */
#ifndef CORDON_PROTECT_APPLY_H
#define CORDON_PROTECT_APPLY_H

#include "err.h"
#include "hostpaths/protect.h"
#include "plan/resolve.h"

/* Decide and apply.  with_registry: the registry is open and locked, so
 * the live runs, the record entries and the carve-outs are part of it;
 * without (no registry exists), only the decision, the held directories
 * and the git pins. */
int protect_apply(const struct resolved *r, int full_write, int with_registry,
		  struct protect_run *p, struct cordon_err *e) __attribute__((warn_unused_result));

/* Let go of the directories protect_apply held. */
void protect_apply_drop_held(struct protect_run *p);

#endif
