/* outcome.c: see outcome.h. */
#include "outcome.h"

#include <errno.h>
#include <signal.h>

int outcome_command_end(const struct run_outcome *o, struct wstatus_end *end)
{
	if (o->have_cmd_status && wstatus_decode(o->cmd_wstatus, end) == 0)
		return 0;
	if (o->have_cmd_status || !o->reaped)
		return -EINVAL;
	struct wstatus_end pid1;
	if (wstatus_decode(o->wstatus, &pid1) < 0)
		return -EINVAL;
	/* bwrap passes its child's death by signal N on as exit 128+N. */
	if (!pid1.signaled && pid1.code > 128 && pid1.code <= 128 + WSTATUS_SIG_MAX)
		pid1 = (struct wstatus_end){ 1, pid1.code - 128 };
	*end = pid1;
	return 0;
}

/* cordon lost the run (outcome.h): the command may have run, so never 125
 * ("nothing ran"), never 0.  Its own status if it had ended, else that of
 * a command killed (SIGKILL). */
static int lost_exit_code(const struct run_outcome *o)
{
	struct wstatus_end end;
	if (o->have_cmd_status && wstatus_decode(o->cmd_wstatus, &end) == 0) {
		int code = wstatus_exit_code(&end);
		return code ? code : 1;
	}
	return 128 + SIGKILL;
}

int outcome_exit_code(const struct run_outcome *o)
{
	if (o->timed_out)
		return EXIT_TIMEOUT;
	/* As a process past RLIMIT_CPU: SIGXCPU. */
	if (o->cpu_exceeded)
		return 128 + SIGXCPU;
	if (o->cpu_unreadable)
		return EXIT_CORDON_FAILED;
	if (o->lost && !o->have_error)
		return lost_exit_code(o);
	if (o->have_error) {
		/* An error record means the command never ran: only 126/127 may
		 * pass through, anything else (0 included) is a setup failure. */
		int c = o->inner_err.exit_code;
		return (c == EXIT_NOT_EXECUTABLE || c == EXIT_NOT_FOUND) ? c : EXIT_CORDON_FAILED;
	}
	if (o->escalated)
		return 128 + o->killed_by;
	if (!o->started) {
		/* Killed by a forwarded signal before the command started. */
		if (o->killed_by)
			return 128 + o->killed_by;
		return EXIT_CORDON_FAILED;
	}
	struct wstatus_end end;
	if (outcome_command_end(o, &end) < 0)
		return EXIT_CORDON_FAILED;
	return wstatus_exit_code(&end);
}

int outcome_finish(const struct run_outcome *o, const struct config *c, struct cordon_err *e)
{
	if (o->timed_out) {
		struct cordon_err te;
		if (o->timeout_killed)
			(void)err_set(&te, ETIMEDOUT, "%s: timed out after %u s; still running %u s "
				      "after SIGTERM (--kill-after), the sandbox was killed",
				      c->cmd[0], c->timeout, c->kill_after);
		else
			(void)err_set(&te, ETIMEDOUT, "%s: timed out after %u s; it was sent SIGTERM "
				      "and ended (--kill-after %u s would have killed it)",
				      c->cmd[0], c->timeout, c->kill_after);
		err_print(&te);
	} else if (o->cpu_exceeded) {
		struct cordon_err ce;
		(void)err_set(&ce, EDQUOT, "%s: --limit-cpu %u: the sandbox's processes used %u s of "
			      "CPU time together; the sandbox was killed (raise --limit-cpu to give "
			      "it more)", c->cmd[0], c->limit_cpu, c->limit_cpu);
		err_print(&ce);
	} else if (o->cpu_unreadable) {
		return err_set(e, -o->cpu_unreadable, "--limit-cpu: the CPU time of the run's cgroup "
			       "could not be read, so the limit no longer held; the sandbox was "
			       "killed (cordon doctor says where the CPU time is counted; without "
			       "a cgroup, --limit-cpu is per process only)");
	} else if (o->lost) {
		err_print(&o->lost_err);
		if (o->have_error)
			err_print(&o->inner_err);
	} else if (o->have_error) {
		err_print(&o->inner_err);
	} else if (!o->started && !o->killed_by) {
		return err_set(e, EIO, "bwrap could not build the sandbox (its message, if any, is "
			       "above); run cordon doctor to check this machine");
	}
	return outcome_exit_code(o);
}
