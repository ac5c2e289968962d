/* privdir.h: open a directory of cordon's own under the user's home (the
 * registry, the cache directory) one component at a time, never following
 * a link, creating the missing tail 0700.  A link or a directory someone
 * else may change anywhere on the way would let them choose where cordon
 * writes: each component is handed to the caller's check as opened. */
#ifndef CORDON_PRIVDIR_H
#define CORDON_PRIVDIR_H

#include <stddef.h>
#include <sys/stat.h>
#include "err.h"

struct privdir_walk {
	const char *path;        /* absolute and clean */
	size_t must_exist;       /* components 1..must_exist are not created */
	int create;              /* create the missing rest (0700) */
	const char *what;        /* messages start "<what>: " */
	const char *advice;      /* and end with what the user can do */
	const char *link_advice; /* the same, when a component is a link */
	/* Each opened component, "/" first (idx 0; depth = its prefix length
	 * in path): 0 or -errno with *e filled, which ends the walk. */
	int (*check)(void *ctx, const char *shown, const struct stat *st, size_t idx,
		     size_t prefix, struct cordon_err *e);
	void *ctx;
};

/* The O_PATH descriptor of the last component, or -errno with *e filled.
 * *missing (may be NULL) is set when a component did not exist and could
 * not be created (-ENOENT when create is unset or it lies within
 * must_exist; the mkdir's -errno otherwise). */
int privdir_open(const struct privdir_walk *w, int *missing, struct cordon_err *e)
	__attribute__((warn_unused_result));

#endif
