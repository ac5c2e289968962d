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

/* With --net proxy, point the command's clients at the proxy, as DESIGN
 * section 8 lists (NETWORK-CLIENTS.md says which client reads which):
 * http_proxy, https_proxy, HTTP_PROXY, HTTPS_PROXY, all_proxy, ALL_PROXY =
 * http://127.0.0.1:3128 (the literal address: Go may resolve localhost to
 * ::1; an HTTP, not SOCKS, ALL_PROXY: httpx and requests break on SOCKS);
 * no_proxy, NO_PROXY = localhost,127.0.0.1,::1; NODE_USE_ENV_PROXY=1;
 * JAVA_TOOL_OPTIONS extended with -Dhttp(s).proxyHost/Port; YARN_HTTP_PROXY,
 * YARN_HTTPS_PROXY (and YARN_NO_PROXY removed: Yarn refuses it);
 * GIT_SSH_COMMAND through connect_path (cordon-connect; not set when NULL
 * or when the path holds a character a shell would read), appended to the
 * caller's own GIT_SSH_COMMAND (or GIT_SSH, quoted) when there is one.  A variable an
 * operation of c (--setenv, --unsetenv) names is left as that operation
 * made it.  Any other mode: nothing changes. */
int env_add_proxy(const struct config *c, const char *connect_path, struct argv *env,
		  struct cordon_err *e) __attribute__((warn_unused_result));

/* Nonzero when entry ("K=V") is one of the variables env_add_proxy sets. */
int env_is_proxy_key(const char *entry);

/* One difference between the caller's environment and the command's. */
enum env_change_op {
	ENV_CHANGE_SAME,     /* in both, the same value */
	ENV_CHANGE_SET,      /* only in the command's */
	ENV_CHANGE_REPLACE,  /* in both, another value in the command's */
	ENV_CHANGE_UNSET,    /* only in the caller's */
};

struct env_change {
	enum env_change_op op;
	const char *entry;   /* "K=V": the command's; the caller's for UNSET */
};

/* Pure: each variable of env (the command's) compared with base (the
 * caller's; NULL: none), in env's order, then each of base's that env has
 * not.  *out is malloc'd (NULL when both are empty).  0 or -ENOMEM. */
int env_diff(char *const *base, const struct argv *env, struct env_change **out, size_t *n)
	__attribute__((warn_unused_result));

/* Why cordon itself sets or removes key (TMPDIR and PWD here; the proxy's variables
 * with --net proxy): NULL when it does not.  plan/caches.h and
 * plan/offline.h answer for theirs. */
const char *env_why(const struct config *c, const char *key);

#endif
