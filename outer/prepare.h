/* prepare.h: what a run and `cordon explain` both work out before anything
 * starts: the resolved paths, the bwrap binary, cordon-inner and the
 * channels to both (their descriptor numbers are in the argv), the
 * environment; then, after the protected names are decided, the mount plan
 * and bwrap's argv.  One struct, one free. */
#ifndef CORDON_PREPARE_H
#define CORDON_PREPARE_H

#include <limits.h>
#include <stddef.h>
#include "argv.h"
#include "config.h"
#include "err.h"
#include "hostpaths/cgroup.h"
#include "hostpaths/protect.h"
#include "launch/bridge.h"
#include "launch/bwrap.h"
#include "launch/bwrap_find.h"
#include "launch/inner_link.h"
#include "plan/bwrap_argv.h"
#include "plan/limits.h"
#include "plan/mount_plan.h"
#include "plan/procmode.h"
#include "plan/resolve.h"

struct prepared {
	struct resolved res;
	struct bwrap_bin bin;
	struct inner_link inner;
	struct bridge_link bridge;  /* --net proxy */
	struct bwrap bwrap;
	struct argv env;
	struct bwrap_opts bo;
	int *keep;                /* what bwrap inherits */
	size_t nkeep, capkeep;
	struct mount_plan plan;
	struct argv argv;         /* bwrap's whole argv */
	size_t nopts;             /* argv.v[0..nopts): the name and the options */
	struct limits_plan limits;/* applied to bwrap's child before its release */
	struct cgroup_run cgroup; /* the run's own, removed by prepare_free */
	char cache_dir[PATH_MAX]; /* --cache private: the workspace's; "" when none */
	struct procmode_facts pm; /* the PID namespace mode (plan/procmode.h) */
};

void prepare_init(struct prepared *p);

/* Planning, shared by a run and explain, creating nothing: how the limits
 * are enforced, the resolved paths (O_PATH descriptors), the protected
 * names' facts (protect_gather into prot). */
int prepare_plan(const struct config *c, struct prepared *p, struct protect_run *prot,
		 struct cordon_err *e) __attribute__((warn_unused_result));

/* The command's environment into p->env: the flags' (env_build), the tools'
 * (toolenv_apply, with the cache directory p->cache_dir) and the proxy's. */
int prepare_env(const struct config *c, struct prepared *p, struct cordon_err *e)
	__attribute__((warn_unused_result));

/* A run: prepare_plan, then everything bwrap must inherit or know when it
 * is started: the workspace's cache directory, the bwrap binary, the
 * channels to cordon-inner, bwrap and the bridge (sockets, memfds), the
 * environment and the list of descriptors bwrap keeps.  t: what the
 * command's process gets (launch/inner_link.h). */
int prepare_open(const struct config *c, const struct inner_term *t, struct prepared *p,
		 struct protect_run *prot, struct cordon_err *e) __attribute__((warn_unused_result));

/* Says once on stderr which protections this machine does not allow the
 * run (the host's PID namespace, the inotify shares, the process count).
 * After prepare_open. */
void prepare_print_lost(const struct prepared *p);

/* `cordon explain`, after prepare_plan: the environment and bwrap's options
 * as a run would have them, with cache_dir (NULL or "": none) as the cache
 * directory, and nothing created: no socket, memfd, cache directory or keep
 * list (the options that name a channel's descriptor are left out). */
int prepare_explain(const struct config *c, const struct inner_term *t, const char *cache_dir,
		    struct prepared *p, struct cordon_err *e) __attribute__((warn_unused_result));

/* The mount plan and the argv, once the protected names are decided (d). */
int prepare_argv(const struct config *c, const struct protect_decision *d, struct prepared *p,
		 struct cordon_err *e) __attribute__((warn_unused_result));

/* Ends bwrap if it still runs (launch/bwrap.h), removes the run's cgroup,
 * closes and frees the rest. */
void prepare_free(struct prepared *p);

#endif
