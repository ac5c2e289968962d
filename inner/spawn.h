/* spawn.h: starting the command from cordon-inner.
 *
 * Everything that can fail slowly or allocate (the Landlock ruleset, the
 * seccomp program) is prepared before fork; the child then performs only
 * async-signal-safe system calls, in this order: restore the signal mask and
 * dispositions, close every descriptor but 0-2 and the status pipe, set
 * no_new_privs, enter the Landlock domain, load seccomp last (so the filter
 * need not allow what the setup itself uses), exec.  If any step fails, the
 * child writes {stage, errno} to the O_CLOEXEC status pipe; a clean exec
 * closes that pipe, which is how the parent learns the command started. */
#ifndef CORDON_SPAWN_H
#define CORDON_SPAWN_H

#include <linux/filter.h>
#include <signal.h>
#include <sys/types.h>
#include "err.h"

enum spawn_stage { SPAWN_SETUP = 1, SPAWN_NNP, SPAWN_LANDLOCK, SPAWN_SECCOMP, SPAWN_EXEC };

struct spawn_plan {
	char *const *argv;           /* argv[0] is looked up in PATH */
	const sigset_t *mask;        /* signal mask the command starts with */
	int landlock_fd;             /* ruleset, -1 for none */
	const struct sock_fprog *seccomp; /* NULL for none (tests only) */
};

/* Fork and exec.  Returns the child's pid, or -errno with *e filled when the
 * command did not start; then e->exit_code is 127 (not found), 126 (not
 * executable) or 125 (sandbox setup failed in the child). */
pid_t spawn_command(const struct spawn_plan *p, struct cordon_err *e)
	__attribute__((warn_unused_result));

/* Pure: the exit status and message for a failure report from the child. */
int spawn_failure(const char *cmd, int stage, int err, struct cordon_err *e);

#endif
