/* outcome.h: what a run came to, and the status cordon ends with. */
#ifndef CORDON_OUTCOME_H
#define CORDON_OUTCOME_H

#include <sys/resource.h>
#include "config.h"
#include "err.h"
#include "wstatus.h"

struct run_outcome {
	int wstatus;              /* bwrap's wait status */
	int started;              /* cordon-inner reported the command exec'd */
	int have_cmd_status;      /* cordon-inner sent the command's wait status */
	int cmd_wstatus;          /* that status (WIRE_EXITED) */
	int have_error;           /* cordon-inner sent an error record */
	struct cordon_err inner_err;
	int timed_out;            /* --timeout expired: the command was sent SIGTERM */
	int timeout_killed;       /* ... and was still there --kill-after seconds later:
				     cordon ended the sandbox */
	int cpu_exceeded;         /* the tree reached --limit-cpu: cordon killed it */
	int cpu_unreadable;       /* -errno: its CPU time could not be read, 0 */
	int killed_by;            /* SIGTERM, SIGINT or SIGHUP if cordon was asked to end
				     the run by one, else 0 */
	int escalated;            /* cordon had to SIGKILL the sandbox after that */
	int reaped;               /* bwrap was waited for (wstatus is valid) */
	int lost;                 /* cordon failed while the sandbox ran (lost_err says
				     how): it killed the sandbox and waited for bwrap */
	struct cordon_err lost_err;
	struct rusage rusage;     /* bwrap's, with everything it waited for: the
				   * sandbox's whole process tree (once reaped) */
};

/* Pure: how the command ended, decoded once (wstatus.h): from its own wait
 * status when cordon-inner sent it; else from bwrap's, which then tells how
 * the sandbox's PID 1 ended (bwrap exits 128+N when its child died of
 * signal N: PID 1 was killed, and the command with it).  -EINVAL when
 * neither says (bwrap not reaped). */
int outcome_command_end(const struct run_outcome *o, struct wstatus_end *end);

/* Pure: the exit status cordon should end with. */
int outcome_exit_code(const struct run_outcome *o);

/* The exit status, with what the user must be told said on stderr (the
 * timeout, cordon-inner's error); -EIO with *e filled when the sandbox was
 * never built. */
int outcome_finish(const struct run_outcome *o, const struct config *c, struct cordon_err *e);

#endif
