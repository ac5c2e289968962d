/* run.h: one sandboxed run, from a parsed config to the exit status. */
#ifndef CORDON_RUN_H
#define CORDON_RUN_H

#include "config.h"
#include "err.h"

/* Returns the exit status for cordon (>= 0), or -errno with *e filled when the
 * sandbox could not be built (the caller prints *e and exits 125). */
int run_sandbox(const struct config *c, struct cordon_err *e);

#endif
