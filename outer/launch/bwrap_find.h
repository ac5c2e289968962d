/* bwrap_find.h: choosing the bwrap binary cordon trusts.
 *
 * bwrap builds the whole sandbox, so a binary the sandboxed command (or any
 * other user) could replace would be a way to run the next command without
 * confinement.  Candidates: $CORDON_BWRAP alone if set; otherwise a fixed
 * list of system locations, then each PATH entry.  A candidate is refused if
 * it is not a regular executable file, is setuid root (cordon needs the
 * unprivileged user-namespace path; setuid bwrap refuses options and is a
 * larger attack surface), lies inside a writable root of this run, or if it or
 * any directory above it is not owned by root or is writable by group or
 * others.  The chosen binary is kept open and exec'd through its descriptor,
 * so the file that was checked is the file that runs. */
#ifndef CORDON_BWRAP_FIND_H
#define CORDON_BWRAP_FIND_H

#include <limits.h>
#include <stddef.h>
#include <sys/stat.h>
#include "err.h"
#include "plan/mount_plan.h"

struct bwrap_bin {
	int fd;                /* O_PATH, O_CLOEXEC */
	char path[PATH_MAX];   /* canonical */
	struct stat st;
};

/* What bwrap_judge needs to know about one candidate. */
struct bwrap_facts {
	const char *path;             /* canonical */
	struct stat file;
	const struct stat *dirs;      /* every ancestor directory, "/" included */
	size_t ndirs;
	const struct rpath *roots;    /* writable roots of this run */
	size_t nroots;
};

/* Pure: 0 if acceptable, else -EPERM with why[] saying the reason. */
int bwrap_judge(const struct bwrap_facts *f, char *why, size_t whylen);

/* Find and open the bwrap to use.  On failure *e lists every candidate
 * looked at and why each was refused. */
int bwrap_find(const struct rpath *roots, size_t nroots, struct bwrap_bin *out,
	       struct cordon_err *e) __attribute__((warn_unused_result));

/* Another system tool cordon itself runs on the host (git, for the count
 * of new commits in --git commit's report), judged as bwrap is; from the
 * fixed system locations only, never PATH: a PATH directory inside a
 * writable root would let the command choose what cordon runs. */
int bwrap_find_tool(const char *name, const struct rpath *roots, size_t nroots,
		    struct bwrap_bin *out, struct cordon_err *e) __attribute__((warn_unused_result));

#endif
