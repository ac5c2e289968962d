/* caps.h: cordon-inner refuses to start the command while it holds any
 * capability.  bwrap --cap-drop ALL should have emptied every set; this is the
 * check that it did, on the running kernel, whatever bwrap's version. */
#ifndef CORDON_CAPS_H
#define CORDON_CAPS_H

#include <stdint.h>
#include "err.h"

struct cap_sets {
	uint64_t effective, permitted, inheritable, ambient, bounding;
};

/* Read the calling process's five sets. */
int caps_read(struct cap_sets *s, struct cordon_err *e) __attribute__((warn_unused_result));

/* Pure: 0 if all five are empty, else -EPERM naming the first non-empty set. */
int caps_check_empty(const struct cap_sets *s, struct cordon_err *e)
	__attribute__((warn_unused_result));

#endif
