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

/* Tool variables as the tools read them: key[0..klen) names var exactly,
 * or in any case for npm_config_* and pnpm_config_* (npm and pnpm read
 * NPM_CONFIG_CACHE as npm_config_cache). */
int env_key_same(const char *key, size_t klen, const char *var);

/* The value of var in a in that sense (the first found), NULL if absent. */
const char *env_find(const struct argv *a, const char *var);

/* 1 if env_find finds var. */
int env_has(const struct argv *a, const char *var);

/* Remove every entry naming var in that sense. */
void env_remove_all(struct argv *a, const char *var);

/* Set key=value in a, replacing any earlier value.  0 or -ENOMEM. */
int env_set(struct argv *a, const char *key, const char *value) __attribute__((warn_unused_result));

#endif
