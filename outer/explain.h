/* explain.h: `cordon explain`, the plan without the run: the same planners
 * as a run (prepare.h), protected names decided without creating anything,
 * then bwrap's argv and the seccomp rules printed. */
#ifndef CORDON_EXPLAIN_H
#define CORDON_EXPLAIN_H

#include "argv.h"
#include "config.h"
#include "err.h"

int explain_run(const struct config *c, struct cordon_err *e) __attribute__((warn_unused_result));

/* -v: bwrap's argv on one line on stderr. */
void explain_verbose(const struct argv *a);

#endif
