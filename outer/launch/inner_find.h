/* inner_find.h: locating cordon-inner next to the running cordon: the same
 * directory in a build tree, ../libexec/cordon/ when installed.  Never PATH:
 * whoever controls PATH would choose PID 1 of the sandbox. */
#ifndef CORDON_INNER_FIND_H
#define CORDON_INNER_FIND_H

#include <limits.h>
#include "err.h"

/* Open the helper binary name (cordon-inner, cordon-bridge) O_PATH|O_CLOEXEC
 * from beside cordon; *fd gets it, path[] its location. */
int helper_find(const char *name, int *fd, char path[PATH_MAX], struct cordon_err *e)
	__attribute__((warn_unused_result));

/* helper_find("cordon-inner", ...). */
int inner_find(int *fd, char path[PATH_MAX], struct cordon_err *e)
	__attribute__((warn_unused_result));

#endif
