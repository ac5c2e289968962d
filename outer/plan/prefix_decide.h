/* prefix_decide.h: the decisions of cordon-prefix and cordon-sh (prefix.h),
 * pure: facts in, verdict out, every branch unit-tested.  prefix.c gathers
 * the facts (getcwd, lstat, realpath) and carries out the verdict.
 *
 * Every refusal fills *e with a message that starts with `who` (the
 * wrapper's name, "cordon-prefix" or "cordon-sh") and returns -errno;
 * main() prints it and exits 125, nothing runs. */
#ifndef CORDON_PREFIX_DECIDE_H
#define CORDON_PREFIX_DECIDE_H

#include <stddef.h>
#include <sys/stat.h>
#include <sys/types.h>
#include "err.h"
#include "plan/mount_plan.h"

/* The name of dir's policy under projects/, without ".json": dir without
 * its leading /, each % written %25, each - written %2D, each / written -
 * (/home/me/my-app -> home-me-my%2Dapp); / itself is "-", a name no other
 * directory has (a directory named "-" is "%2D").  -ENAMETOOLONG when it
 * does not fit in out, -EINVAL for a path that is not absolute. */
int prefix_escape(const char *dir, char *out, size_t outlen) __attribute__((warn_unused_result));

/* One directory from the working directory up to /, nearest first. */
struct prefix_level {
	const char *dir;   /* canonical, absolute */
	const char *file;  /* CONFIG/cordon/projects/<escaped dir>.json */
	int policy;        /* an entry of any type is at file (lstat): 1; none
			      (ENOENT, ENOTDIR, ENAMETOOLONG): 0; else -errno */
	int git;           /* dir/.git exists, following a link: 1, else 0 */
};

enum prefix_source {
	PREFIX_PROJECT_FILE, /* the nearest level's projects/ file */
	PREFIX_GLOBAL_FILE,  /* CONFIG/cordon/policy.json, with -w project */
	PREFIX_NO_FILE,      /* cordon -w project */
};

struct prefix_choice {
	enum prefix_source source;
	size_t level;    /* PREFIX_PROJECT_FILE: the level whose file it is */
	size_t project;  /* the project's level: the policy's own, else the
			    nearest holding .git, else 0 (the working directory) */
};

/* The policy and the project for levels v[0..n) (v[0] the working
 * directory, v[n-1] /), global: whether policy.json exists (1, 0 or
 * -errno, as prefix_level.policy).  The nearest projects/ file wins, so a
 * .git the command plants in a subdirectory cannot step out from under
 * the policy of the directory above; the project is found without git
 * (whose configuration the command may have written) and a planted .git
 * can only move it down, to a narrower root.  A file that cannot be
 * looked at, nearer than any that exists, is refused: it may be the one
 * that applies.  global_file names policy.json for that message. */
int prefix_choose(const struct prefix_level *v, size_t n, int global, const char *global_file,
		  const char *who, struct prefix_choice *out, struct cordon_err *e)
	__attribute__((warn_unused_result));

/* What prefix_judge_private is given about one policy file or one
 * directory above it. */
struct prefix_entry {
	const char *what;  /* "policy" or "the policy directory" */
	const char *path;  /* as looked up */
	const char *real;  /* canonical (realpath) */
	struct stat st;    /* lstat of path */
	int want_dir;      /* a directory is expected, else a regular file */
};

/* Refuses, in this order: a symbolic link (it can be pointed anywhere the
 * command writes), the wrong type, an owner other than me, write access
 * for group or others, a file with more than one name (a hard link the
 * command writes through), and an entry inside the project (the command's
 * writable root).  0 when none applies. */
int prefix_judge_private(const struct prefix_entry *f, uid_t me, const char *project,
			 const char *who, struct cordon_err *e) __attribute__((warn_unused_result));

/* Without a policy file the project becomes writable as a whole: refused
 * when it is / or the home directory (home_real, canonical; "/" when HOME
 * cannot be resolved), or when it holds the configuration directory
 * (config_real, canonical with missing parts kept), where a command could
 * plant a policy for the next one.  config and cwd are named in the
 * message, with the file to write instead. */
int prefix_check_project(const char *project, const char *cwd, const char *home_real,
			 const char *config, const char *config_real, const char *who,
			 struct cordon_err *e) __attribute__((warn_unused_result));

/* The policy file and every directory on its canonical path, up to /, with
 * their identities (lstat). */
struct prefix_guard_dir {
	char *path;
	dev_t dev;
	ino_t ino;
};
struct prefix_guard {
	const char *who;
	struct prefix_guard_dir *v; /* v[0] the file, v[n-1] "/" */
	size_t n;
};

/* Whether the sandbox a policy makes can change that policy for the next
 * command: refused when the file or a directory on its path is writable
 * in the mount plan (see prefix_decide.c), or is, under another name, a
 * writable root (roots: the resolved writable roots with their (dev, ino)).
 * 0 when neither. */
int prefix_check_not_writable_inside(const struct prefix_guard *g, const struct mount_plan *plan,
				     const struct rpath *roots, size_t nroots,
				     struct cordon_err *e) __attribute__((warn_unused_result));

#endif
