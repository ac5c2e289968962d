/* pathquery.h: `cordon explain --path P`: whether the command of a run with
 * these options may read P, write P (create, change, remove, rename) and,
 * for a socket, connect to it; why; and what would allow a write that is
 * refused (issue "Why it failed": an agent asks before it tries).  Pure: the
 * answer comes from the run's mount plan and protection decision, the
 * same ones the run would use (prepare_argv), and the kind of P as the
 * caller looked it up.  What decides a write inside is the mount plan
 * alone: Landlock's write rules are the same roots and the filter never
 * widens them (plan/prefix_decide.c relies on the same). */
#ifndef CORDON_PATHQUERY_H
#define CORDON_PATHQUERY_H

#include <stddef.h>
#include "plan/mount_plan.h"
#include "plan/protect_decide.h"

struct gitdir_rule;

/* What P is on the host, looked up by the caller (lstat): */
enum pathquery_kind { PATHQUERY_MISSING, PATHQUERY_DIR, PATHQUERY_SOCKET, PATHQUERY_OTHER };

struct pathquery_rules {
	const struct mount_plan *plan;
	const struct protect_decision *prot;
	const struct rpath *roots;  size_t nroots;
	const char *const *read_only; size_t nread_only;   /* --read-only, canonical */
	int git_commit;             /* --git commit */
	int allow_unix_sockets;
	const struct rpath *sockets; size_t nsockets; /* --allow-unix-socket */
	int git_protected;          /* .git is a protected name of the run */
};

struct pathquery_verdict {
	int read_ok, write_ok, connect_ok;  /* connect_ok: -1 when P is no socket */
	char read_why[160], write_why[320], allow[256], connect_why[200];
};

/* The verdict on path (absolute, clean: path_clean) of kind k. */
void pathquery_decide(const struct pathquery_rules *r, const char *path, enum pathquery_kind k,
		      struct pathquery_verdict *v);

/* The git dir rule that covers rel, a path relative to a git dir ("" the
 * dir itself), following modules/NAME/ and worktrees/NAME/ into their own
 * rules; NULL: nothing listed, git's data. */
const struct gitdir_rule *pathquery_git_rule(const char *rel);

#endif
