/* env.h: the command's environment.  Pure: from a base environment and the
 * --setenv/--unsetenv/--clear-env operations, in order. */
#ifndef CORDON_ENV_H
#define CORDON_ENV_H

#include "argv.h"
#include "config.h"
#include "err.h"

/* Build the environment into *out (NULL-terminated "K=V" strings).  TMPDIR is
 * set to /tmp unless an operation sets it: the caller's TMPDIR may name a
 * directory the sandbox hides or makes read-only, and mktemp, uv and cmake
 * then fail (srt's users hit exactly that). */
int env_build(char *const *base, const struct config *c, struct argv *out,
	      struct cordon_err *e) __attribute__((warn_unused_result));

#endif
