/* policy_view.h: every path rule of a run as rows of (path, access, why),
 * from the config and the resolved facts; explain prints them as a table or
 * JSON, --report embeds them.  Pure: reads its inputs, allocates the rows.
 *
 * A new kind of rule is one policy_view_add call where its facts are known
 * (watched names, caches, bound git directories, ...). */
#ifndef CORDON_POLICY_VIEW_H
#define CORDON_POLICY_VIEW_H

#include <stddef.h>
#include "config.h"
#include "err.h"
#include "plan/protect_decide.h"
#include "plan/resolve.h"

enum view_access { VIEW_RW, VIEW_RO, VIEW_DENIED, VIEW_PROTECTED, VIEW_WATCHED, VIEW_CACHE };

#define VIEW_WHY_MAX 160

struct view_row {
	char *path;                /* owned */
	enum view_access access;
	char why[VIEW_WHY_MAX];    /* the flag, policy key or default behind it */
};

struct policy_view {
	struct view_row *rows;
	size_t n, cap;
};

/* "rw", "ro", "denied", "protected", "watched", "cache". */
const char *policy_view_access(enum view_access a);

/* The rows for c, r and d (protect's decision, NULL if none yet). */
int policy_view_build(const struct config *c, const struct resolved *r,
		      const struct protect_decision *d, struct policy_view *v,
		      struct cordon_err *e) __attribute__((warn_unused_result));

/* One more row; why is a printf format.  0 or -ENOMEM. */
int policy_view_add(struct policy_view *v, const char *path, enum view_access a,
		    const char *why, ...) __attribute__((format(printf, 4, 5), warn_unused_result));

/* A protected name's row: one that exists (bound read-only), one that is
 * missing (an empty read-only mount point, --protect-missing mount), one
 * that is missing and watched (--protect-missing watch, and a missing
 * protected dotfile in either mode), another live run's mount point kept
 * in place, or another user's link left as it is and watched. */
enum view_protect {
	VIEW_PROTECT_EXISTS, VIEW_PROTECT_MISSING, VIEW_PROTECT_WATCHED, VIEW_PROTECT_OTHER_RUN,
	VIEW_PROTECT_FOREIGN_LINK
};
int policy_view_protected(struct policy_view *v, const struct config *c, const char *path,
			  enum view_protect kind) __attribute__((warn_unused_result));

/* Where the setting of flag NAME (long name, no dashes) came from: "--NAME",
 * "policy KEY" or "default". */
void policy_view_origin(const struct config *c, const char *name, char *buf, size_t size);

/* The same for entry i of the list that flag NAME fills (l). */
void policy_view_list_origin(const struct config *c, const struct strlist *l, size_t i,
			     const char *name, char *buf, size_t size);

/* The row for PATH gets access A and WHY instead (a writable root that is
 * in fact the workspace's cache directory).  0, or -ENOENT without one. */
int policy_view_retag(struct policy_view *v, const char *path, enum view_access a, const char *why);

void policy_view_free(struct policy_view *v);

#endif
