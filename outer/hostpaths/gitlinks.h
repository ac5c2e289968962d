/* gitlinks.h: --git commit, the submodule entries (gitlinks, mode 160000)
 * of a repository's index (hostpaths/gitstate.h, step 3): a host `git
 * status` runs git inside each populated one, with that repository's own
 * config.  For gitstate*.c only. */
#ifndef CORDON_HOSTPATHS_GITLINKS_H
#define CORDON_HOSTPATHS_GITLINKS_H

#include <stddef.h>
#include <time.h>
#include "hostpaths/gitstate.h"

/* Before the command starts: the gitlinks of r's index (and its split
 * index's shared parts) and what each PATH/.git is.  An index that cannot
 * be read leaves r->have_links 0: every gitlink then counts as new at the
 * end.  0 or -ENOMEM. */
int gitlinks_note(struct gitstate_repo *r) __attribute__((warn_unused_result));

/* r's gitlinks at the start as a sealed memfd, for the guardian (O_CLOEXEC,
 * the caller's to close), or -errno. */
int gitlinks_memfd(const struct gitstate_repo *r) __attribute__((warn_unused_result));

/* The guardian: r's gitlinks at the start from that memfd (read from its
 * start).  0, or -errno (then every gitlink counts as new). */
int gitlinks_load(struct gitstate_repo *r, int fd) __attribute__((warn_unused_result));

/* The sandbox is gone: move aside each gitlink's PATH/.git the run made,
 * replaced, or whose configuration it changed since `since`; say each on
 * stderr and pass it to found.  The number moved. */
size_t gitlinks_settle(const struct timespec *since, struct gitstate_repo *r,
		       gitstate_found_fn *found, void *ctx);

void gitlinks_free(struct gitstate_repo *r);

#endif
