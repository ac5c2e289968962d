/* resolve.h: turning the paths of a config into opened, canonical objects.
 *
 * Every path is resolved exactly once: opened O_PATH, its canonical name read
 * back from the descriptor, its (dev, ino) taken with fstat on that same
 * descriptor.  Everything after (mount plan, bwrap, cordon-inner's check)
 * works from these descriptors, so a path swapped after this point cannot
 * redirect a mount. */
#ifndef CORDON_RESOLVE_H
#define CORDON_RESOLVE_H

#include "config.h"
#include "err.h"
#include "mount_plan.h"

/* A protected name missing directly inside a writable root. */
struct missing_name {
	size_t root;         /* index into roots */
	const char *name;
	char *path;          /* root/name, owned */
};

struct resolved {
	struct rpath *roots;    size_t nroots;
	struct rpath *carves;   size_t ncarves;
	struct rpath *protects; size_t nprotects;
	struct rpath *masks;    size_t nmasks;
	struct missing_name *missing; size_t nmissing;
	struct rpath cwd;
};

int resolve_config(const struct config *c, struct resolved *r, struct cordon_err *e)
	__attribute__((warn_unused_result));
void resolved_free(struct resolved *r);

/* Open path O_PATH and fill *out (canonical path, dev, ino, is_dir).
 * `flag` names the option for the message. */
int resolve_path(const char *flag, const char *path, struct rpath *out, struct cordon_err *e)
	__attribute__((warn_unused_result));

#endif
