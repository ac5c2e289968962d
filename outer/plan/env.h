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

/* The value of key in a (built by env_build), NULL if absent. */
const char *env_get(const struct argv *a, const char *key);

/* 1 if key is set in a: exactly, or in any case for npm_config_* and
 * pnpm_config_* (npm and pnpm read NPM_CONFIG_CACHE as npm_config_cache).
 * A variable cordon would add for a tool is left alone when the caller set
 * it. */
int env_has(const struct argv *a, const char *key);

/* Set key=value in a, replacing any earlier value.  0 or -ENOMEM. */
int env_set(struct argv *a, const char *key, const char *value) __attribute__((warn_unused_result));

#endif
