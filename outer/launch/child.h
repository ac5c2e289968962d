/* child.h: start a helper binary cordon opened itself (bwrap now;
 * cordon-bridge next), with exactly the descriptors it must inherit.
 *
 * This folder (launch/) is the only part of cordon that forks: it may
 * include launch/, plan/, procstat.h, config.h and common/ (make lint). */
#ifndef CORDON_CHILD_H
#define CORDON_CHILD_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/types.h>
#include "err.h"

/* A resource limit the child sets on itself before its exec. */
struct child_rlimit {
	int resource;
	struct rlimit lim;
};

struct child_spec {
	const char *name;         /* for the message if the exec fails */
	int exec_fd;              /* O_PATH descriptor of the binary */
	char *const *argv;
	char *const *envp;
	const int *keep;          /* descriptors the child inherits (besides 0-2) */
	size_t nkeep;
	const sigset_t *mask;     /* signal mask the child starts with */
	const int *stdio;         /* NULL, or what goes on 0-2 (-1: cordon's own) */
	const struct child_rlimit *rlimits;  /* set before the exec */
	size_t nrlimits;
	uint64_t ignore;          /* signals set to SIG_IGN before the exec, bit sig-1 */
};

/* The signals that end a process by default and that an agent sends to
 * every process of a command it stops (SIGHUP SIGINT SIGQUIT SIGTERM
 * SIGUSR1 SIGUSR2), as child_spec.ignore: a helper that must not end
 * before the sandbox does (bwrap, the bridge) ignores them, and cordon,
 * which gets them too, gives the command its --kill-after grace. */
uint64_t child_end_signals(void);

/* Start the binary (launch/vclone.h, then execveat) in a process group of
 * its own.  The child closes every descriptor but 0-2 and the keep list, puts stdio in place, makes
 * the keep list inheritable, sets the rlimits, ignores `ignore` (an ignored
 * signal stays ignored across exec), restores the mask and execs.  Returns its pid
 * once it has exec'd, or -errno (the child reaped) if it could not. */
pid_t child_spawn(const struct child_spec *s, struct cordon_err *e)
	__attribute__((warn_unused_result));

#endif
