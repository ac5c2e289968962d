/* supervisor.h: starting bwrap and watching it until the sandbox is gone.
 *
 * cordon blocks the signals it forwards (SIGHUP SIGINT SIGQUIT SIGTERM
 * SIGUSR1 SIGUSR2 SIGWINCH) and SIGCHLD, and reads them from a signalfd.
 * bwrap forwards no signal itself, so cordon sends each one straight to the
 * sandbox's PID 1 (cordon-inner, whose host pid bwrap reports on --info-fd),
 * which passes it on to the command.  A SIGTERM that has not ended the
 * sandbox within a second is followed by SIGKILL of PID 1, which takes the
 * whole PID namespace with it. */
#ifndef CORDON_SUPERVISOR_H
#define CORDON_SUPERVISOR_H

#include <stddef.h>
#include <sys/resource.h>
#include <sys/types.h>
#include "err.h"

struct spawn_spec {
	int bwrap_fd;             /* O_PATH descriptor of the bwrap binary */
	char *const *argv;
	char *const *envp;
	const int *keep;          /* descriptors bwrap inherits (besides 0-2) */
	size_t nkeep;
};

struct run_outcome {
	int wstatus;              /* bwrap's wait status */
	int started;              /* cordon-inner reported the command exec'd */
	int have_error;           /* cordon-inner sent an error record */
	struct cordon_err inner_err;
	int timed_out;
	int killed_by;            /* SIGTERM if cordon was asked to end the run, else 0 */
	int escalated;            /* cordon had to SIGKILL the sandbox after that */
	int reaped;               /* bwrap was waited for (wstatus is valid) */
	struct rusage rusage;     /* bwrap's, with everything it waited for: the
				   * sandbox's whole process tree (once reaped) */
};

/* Block the forwarded signals (call before anything forks). */
int supervisor_block_signals(struct cordon_err *e) __attribute__((warn_unused_result));

/* fork + exec bwrap.  Returns its pid or -errno. */
pid_t supervisor_spawn(const struct spawn_spec *s, struct cordon_err *e)
	__attribute__((warn_unused_result));

/* Watch bwrap (pid) and the control socket until bwrap has exited; forward
 * signals to the sandbox's PID 1 (sandbox, bwrap's child, > 0); enforce the
 * timeout (seconds, 0: none).  out is filled, also on error. */
/* on_exited (may be NULL) is called once when cordon-inner reports that the
 * command and every process it left have ended, before bwrap has exited. */
struct supervisor_hooks {
	void (*on_exited)(void *ctx);
	void *ctx;
};

int supervisor_wait(pid_t bwrap, pid_t sandbox, int ctrl, unsigned timeout,
		    const struct supervisor_hooks *hooks, struct run_outcome *out,
		    struct cordon_err *e) __attribute__((warn_unused_result));

/* Pure: the exit status cordon should end with, and whether a message is due. */
int supervisor_exit_code(const struct run_outcome *o);

#endif
