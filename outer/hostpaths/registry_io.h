/* registry_io.h: one run's record file in the registry: written whole
 * through "tmp.NAME" and renamed over "NAME" (under the lock), and read back
 * as untrusted data (record_parse, plus the checks on the file itself). */
#ifndef CORDON_REGISTRY_IO_H
#define CORDON_REGISTRY_IO_H

#include <stddef.h>
#include "err.h"
#include "hostpaths/reclaim.h"
#include "hostpaths/record.h"
#include "hostpaths/registry.h"

/* Write rec as the record file `name` (locked), atomically by rename. */
int registry_write(struct registry *reg, const char *name, const struct record *rec,
		   struct cordon_err *e) __attribute__((warn_unused_result));

/* registry_write for a record read back (its mtime `written`) and
 * rewritten with fewer entries: the file keeps that mtime, which is what
 * its remaining intents are judged by.  A failure leaves the file as it
 * was. */
int registry_rewrite(struct registry *reg, const char *name, const struct record *rec,
		     const struct rec_time *written, struct cordon_err *e)
	__attribute__((warn_unused_result));

/* Read and parse the record file `name`: a regular file of ours, no larger
 * than REC_MAX_BYTES, whose contents name the run its name names.  *written
 * gets its mtime (when its last version was written).  0, -ENOMEM, or
 * -EBADMSG with why[] filled. */
int registry_read(const struct registry *reg, const char *name, struct record *rec,
		  struct rec_time *written, char *why, size_t whylen)
	__attribute__((warn_unused_result));

#endif
