/* sandbox_limits.h: carrying out a limits plan (plan/limits.h) on the
 * sandbox's first process, after its user namespace exists and before
 * cordon-inner gets its checks (it forks the command only after them), so
 * every process of the sandbox inherits them or is counted.
 * A limit is never raised above the caller's own hard limit: the lower one
 * applies. */
#ifndef CORDON_SANDBOX_LIMITS_H
#define CORDON_SANDBOX_LIMITS_H

#include <sys/types.h>
#include "err.h"
#include "plan/limits.h"

/* Apply p to sandbox (bwrap's child, the PID 1 to be).  For
 * LIMITS_PIDS_PIDNS this forks a helper that enters the sandbox's PID
 * namespace, whose child writes that namespace's pid_max.  Any failure is an
 * error: the caller kills bwrap unreleased; except the inotify and fanotify
 * shares where /proc/sys is read-only, which are skipped (not
 * p->watches_shared) or, found read-only only now, recorded in
 * p->watches_err (EROFS) for the caller to tell. */
int sandbox_limits_apply(pid_t sandbox, struct limits_plan *p, struct cordon_err *e)
	__attribute__((warn_unused_result));

#endif
