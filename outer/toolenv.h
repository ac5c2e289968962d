/* toolenv.h: what a run tells the command's tools, beside the flags'
 * environment: where their caches are (--cache private: the workspace's
 * cache directory, which joins the writable roots) and, without a network,
 * not to retry.  The decisions are plan/caches.c's and plan/offline.c's; the
 * directory is made by hostpaths/caches.c. */
#ifndef CORDON_TOOLENV_H
#define CORDON_TOOLENV_H

#include <stddef.h>
#include "argv.h"
#include "config.h"
#include "err.h"
#include "plan/resolve.h"

/* --cache private in a run (not explain, which creates nothing): open the
 * workspace's cache directory (the first writable root, else the working
 * directory, names the workspace) and append it to res->roots; its path into
 * dir ("" when there is none).  After resolve_config: the protected names
 * are looked up in workspaces only.  A directory that cannot be made is a
 * note on stderr and the run goes on without it; one that looks tampered
 * with is a refusal. */
int toolenv_cache_root(const struct config *c, struct resolved *res, char *dir, size_t len,
		       struct cordon_err *e) __attribute__((warn_unused_result));

/* After env_build: the cache variables (dir "" : none) and, with --net
 * none, no retries. */
int toolenv_apply(const struct config *c, const char *dir, struct argv *env,
		  struct cordon_err *e) __attribute__((warn_unused_result));

#endif
