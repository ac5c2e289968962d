/* binds.h: checking that each writable root mounted by bwrap is the object
 * cordon resolved.  cordon sends, for each root, its path and its O_PATH
 * descriptor; here the path as mounted is stat'ed and compared with the
 * descriptor.  A mismatch means the path was swapped between cordon's
 * resolution and bwrap's mount, and the command would write somewhere the
 * agent never named. */
#ifndef CORDON_BINDS_H
#define CORDON_BINDS_H

#include <stddef.h>
#include <sys/stat.h>
#include "err.h"

#define BINDS_MAX 4096

struct binds {
	char *paths[BINDS_MAX];   /* owned; the roots, for Landlock */
	size_t n;
	size_t checked;           /* records checked, writable and read-only */
};

/* Pure: 0 if the two stats name the same object, else -EXDEV naming path. */
int binds_compare(const char *path, const struct stat *mounted, const struct stat *sent,
		  struct cordon_err *e) __attribute__((warn_unused_result));

/* Receive BIND_CHECK (writable roots, kept in b for Landlock) and RO_CHECK
 * records (read-only mounts bound by path, see mount_plan.h) until
 * BINDS_END, checking each; the count in BINDS_END must equal the records
 * received. */
int binds_receive_and_check(int ctrl, struct binds *b, struct cordon_err *e)
	__attribute__((warn_unused_result));

void binds_free(struct binds *b);

#endif
