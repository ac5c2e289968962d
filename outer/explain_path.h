/* explain_path.h: `cordon explain --path P...`: the verdict on each path
 * (plan/pathquery.h) for a run with the given options, as text or, with
 * --json, one object {"paths": [...]}.  Opens nothing; looks each path up
 * (lstat) for its kind. */
#ifndef CORDON_EXPLAIN_PATH_H
#define CORDON_EXPLAIN_PATH_H

#include <stdio.h>
#include "config.h"
#include "err.h"
#include "plan/mount_plan.h"
#include "plan/protect_decide.h"
#include "plan/resolve.h"

int explain_paths(FILE *out, const struct config *c, const struct resolved *r,
		  const struct protect_decision *d, const struct mount_plan *plan,
		  struct cordon_err *e) __attribute__((warn_unused_result));

#endif
