/* prefix.h: cordon-prefix and cordon-sh, the agent wrappers (README,
 * "Recipes for agents"), inside cordon itself.  Installed as symbolic links
 * to cordon, they are told apart by the name they are run under (argv[0]'s
 * last component, else the nearest such name along the links from the
 * file executed: a user's ~/bin/agent-sh -> /usr/bin/cordon-sh);
 * `cordon prefix ARGS` and `cordon shell ARGS` are the same from cordon's
 * own name (not `cordon sh`: that runs sh, read-only, as it always has).
 *
 *   cordon-prefix 'SHELL COMMAND'      bash -c 'SHELL COMMAND' in the sandbox
 *                                      (Claude Code's CLAUDE_CODE_SHELL_PREFIX
 *                                      hands the prefix one shell string)
 *   cordon-prefix -- CMD [ARG...]      CMD with its arguments, no shell
 *   cordon-prefix CMD ARG...           the same (two arguments or more)
 *   cordon-sh [BASH ARGS...]           bash BASH ARGS... in the sandbox
 *
 * The policy is the first of
 *   $XDG_CONFIG_HOME/cordon/projects/<escaped D>.json, for D the working
 *       directory, then each directory above it (nearest first)
 *   $XDG_CONFIG_HOME/cordon/policy.json          (with -w <project>)
 *   none: cordon -w <project>                    (refused for / and $HOME)
 * with ~/.config for a missing or relative XDG_CONFIG_HOME, <project> the
 * nearest directory at or above the working directory holding a .git (else
 * the working directory), and the escaped name prefix_escape's.
 *
 * The policy is looked up outside the project on purpose: a file the
 * sandboxed command can write would let one command widen the sandbox of
 * the next.  For the same reason a policy file (or cordon/ or projects/
 * above it) that is a symbolic link, not the caller's, writable by group
 * or others, inside the project, a file with another name (a hard link),
 * or writable inside the sandbox the policy itself makes (decided from
 * the mount plan, run.c) is refused: exit 125, nothing runs.
 *
 * Why C and not a script: a script runs its tools (readlink, sed, stat)
 * through PATH, which an agent points into the project (an activated
 * virtualenv, node_modules/.bin), so one sandboxed command could plant a
 * program the next command's wrapper ran on the host.  Here nothing is
 * run before the sandbox, no shell reads BASH_ENV or ENV or IFS, and the
 * static binary loads nothing (LD_PRELOAD does not reach it): of the
 * caller's environment only XDG_CONFIG_HOME and HOME steer the lookup. */
#ifndef CORDON_PREFIX_H
#define CORDON_PREFIX_H

#include "config.h"
#include "err.h"
#include "plan/prefix_decide.h"

struct prefix_run {
	const char *who;      /* "cordon-prefix" or "cordon-sh" */
	int shell;            /* cordon-sh: bash with every argument */
	int first;            /* argv[first] is the wrapper's first argument */
	int nflags;           /* argv[1..1+nflags): cordon's flags before the
				 subcommand (prefix_wanted) */
	char **argv;          /* the cordon command line it stands for, owned */
	char *policy;         /* the policy file, owned; NULL: none */
	char *project;        /* owned */
	struct prefix_guard guard;
};
#define PREFIX_RUN_INIT { NULL, 0, 0, 0, NULL, NULL, NULL, { NULL, NULL, 0 } }

/* Whether argv asks for a wrapper: run as cordon-prefix or cordon-sh, or
 * `cordon [FLAGS] prefix|shell ARGS`, FLAGS among --verbose (-v),
 * --allow-no-landlock and --require-landlock (the Landlock choice a
 * policy file can also make, for a caller without one).  1 with *pr's
 * who, shell, first and nflags set; 0 for plain cordon. */
int prefix_wanted(int argc, char *const argv[], struct prefix_run *pr);

/* Finds the policy and the project, refuses what prefix_decide.h refuses,
 * and parses the cordon command line they make (cli_parse) into *c, whose
 * strings may point into *pr: free *c before *pr.  c->policy_guard is set
 * when a policy file is used (run.c checks it against the mount plan).
 * 0 or -errno with *e filled. */
int prefix_parse(struct prefix_run *pr, int argc, char *const argv[], struct config *c,
		 struct cordon_err *e) __attribute__((warn_unused_result));

void prefix_free(struct prefix_run *pr);

#endif
