/* explain_print.h: what `cordon explain` prints, in this order: the path
 * rules as a table (path, access, why), the network, the environment
 * changes, the run's limits, the seccomp rules, and last the bwrap argv (one
 * argument per line, so scripts can replay it from its header to the end).
 * With --json, the same as one JSON object (schema in README.md). */
#ifndef CORDON_EXPLAIN_PRINT_H
#define CORDON_EXPLAIN_PRINT_H

#include <stdio.h>
#include "argv.h"
#include "config.h"
#include "err.h"
#include "json_out.h"
#include "plan/limits.h"
#include "plan/procmode.h"
#include "plan/protect_decide.h"
#include "plan/resolve.h"

/* The environment part: the command's environment as a run builds it,
 * against the caller's.  command NULL: only the flags' and the policy
 * file's changes (and TMPDIR) are known. */
struct explain_env {
	char *const *caller;         /* cordon's own environment */
	const struct argv *command;  /* what the command gets, or NULL */
};

/* r and d: the resolved paths and protect's decision (a row per protected
 * name); cache_dir: the --cache private directory a run binds (NULL or "":
 * none), a row of its own; lim: how a run would enforce its limits. */
int explain_print(FILE *out, const struct config *c, const struct resolved *r,
		  const struct protect_decision *d, const char *cache_dir,
		  const struct explain_env *env, const struct limits_plan *lim,
		  const struct procmode_facts *pm, const struct argv *bwrap, struct cordon_err *e)
	__attribute__((warn_unused_result));

/* "pid_namespace": the mode a run gets and why (plan/procmode.h), a member
 * of the object open in j: shared with --report. */
void explain_pid_ns_json(struct json_out *j, const struct procmode_facts *pm);

/* "limits": each limit's value and how it is enforced (plan/limits.h), a
 * member of the object open in j: shared with --report. */
void explain_limits_json(struct json_out *j, const struct limits_plan *lim);

/* The policy parts (file, paths, network, env, run) as members of the
 * object open in j: shared with --report. */
int explain_policy_json(struct json_out *j, const struct config *c, const struct resolved *r,
			const struct protect_decision *d, const char *cache_dir,
			const struct explain_env *env, struct cordon_err *e)
	__attribute__((warn_unused_result));

#endif
