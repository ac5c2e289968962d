/* detach.h: the processes of cordon's that live apart from it.
 *
 * detach_run: housekeeping that no run waits for (hostpaths/caches.h's
 * prune), done by a process of its own after the command has started, so
 * that it adds nothing to the start-up and outlives cordon if it must.
 * The process is a grandchild of cordon (the child between exits at once
 * and is reaped here), in a session of its own, holding none of cordon's
 * descriptors (0-2 are /dev/null: the sandbox's sockets and the terminal's
 * pty must see their end when cordon's copies close), with the default
 * signal mask and dispositions, at the lowest CPU and I/O priority.
 *
 * detach_child: the guardian (hostpaths/guardian.h), which must outlive
 * cordon too but stays cordon's child until then. */
#ifndef CORDON_DETACH_H
#define CORDON_DETACH_H

#include <stddef.h>
#include <sys/types.h>
#include "err.h"

/* Run fn(ctx) in such a process, which then exits.  fn runs in a copy of
 * cordon: it may call anything (cordon has no threads) but must not return
 * into cordon's own code, which this function ensures.  0, or -errno with
 * *e filled when it could not be started (nothing runs then). */
int detach_run(void (*fn)(void *ctx), void *ctx, struct cordon_err *e)
	__attribute__((warn_unused_result));

/* Fork once and run fn(ctx) in the child, then _exit(0): a child of
 * cordon (so that its pid cannot be reused until cordon reaps it, and its
 * start time read by the caller names it exactly), in a session and
 * process group of its own, holding only keep[0..nkeep) and 0-2 (on
 * /dev/null, the working directory /), with each signal of
 * ignore[0..nignore) ignored (the others as cordon had them) and an empty
 * signal mask.  fn runs in a copy of cordon, as for detach_run.  Returns
 * the child's pid (the caller reaps it), or -errno (nothing started). */
pid_t detach_child(const int *keep, size_t nkeep, const int *ignore, size_t nignore,
		   void (*fn)(void *ctx), void *ctx) __attribute__((warn_unused_result));

#endif
