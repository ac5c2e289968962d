/* detach.h: housekeeping that no run waits for (hostpaths/caches.h's
 * prune), done by a process of its own after the command has started, so
 * that it adds nothing to the start-up and outlives cordon if it must.
 *
 * The process is a grandchild of cordon (the child between exits at once
 * and is reaped here), in a session of its own, holding none of cordon's
 * descriptors (0-2 are /dev/null: the sandbox's sockets and the terminal's
 * pty must see their end when cordon's copies close), with the default
 * signal mask and dispositions, at the lowest CPU and I/O priority. */
#ifndef CORDON_DETACH_H
#define CORDON_DETACH_H

#include "err.h"

/* Run fn(ctx) in such a process, which then exits.  fn runs in a copy of
 * cordon: it may call anything (cordon has no threads) but must not return
 * into cordon's own code, which this function ensures.  0, or -errno with
 * *e filled when it could not be started (nothing runs then). */
int detach_run(void (*fn)(void *ctx), void *ctx, struct cordon_err *e)
	__attribute__((warn_unused_result));

#endif
