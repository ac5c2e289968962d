/* spawn.h: starting the command from cordon-inner.
 *
 * Everything that can fail slowly or allocate (the Landlock ruleset, the
 * seccomp program) is prepared before fork; the child then performs only
 * async-signal-safe system calls, in this order: restore the signal
 * dispositions (keeping ignored what the caller ignored), take the terminal
 * (a process group of its own in the session cordon-inner leads, in the
 * terminal's foreground), restore the signal mask, close every descriptor
 * but 0-2 and the status pipe, set no_new_privs, enter the Landlock domain,
 * load seccomp last (so the filter need not allow what the setup itself
 * uses), exec.  If any step fails, the
 * child writes {stage, errno} to the O_CLOEXEC status pipe; a clean exec
 * closes that pipe, which is how the parent learns the command started.
 *
 * Start and release are two steps so that cordon-inner can finish its last
 * checks (the network namespace) while the child sets itself up on the other
 * CPU: the child, confined already, waits for one byte on the "go" pipe
 * before it execs, and dies without exec'ing if that pipe closes empty. */
#ifndef CORDON_SPAWN_H
#define CORDON_SPAWN_H

#include <linux/filter.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include "err.h"

enum spawn_stage { SPAWN_SETUP = 1, SPAWN_NNP, SPAWN_LANDLOCK, SPAWN_SECCOMP, SPAWN_EXEC };

struct spawn_plan {
	char *const *argv;           /* argv[0] is looked up in PATH */
	const sigset_t *mask;        /* signal mask the command starts with */
	int landlock_fd;             /* ruleset, -1 for none */
	const struct sock_fprog *seccomp; /* NULL for none (tests only) */
	int tty;                     /* the command's stdio includes a terminal of its
					own (cordon's pty): cordon-inner leads a new
					session with that terminal as its controlling
					one, and the command runs in the foreground
					group of it, so the terminal's signals reach
					its jobs and nothing else */
	uint64_t keep_ignored;       /* signals the caller of cordon ignored (bit
					sig-1): they stay ignored (nohup) */
	int supervised;              /* the filter has SECCOMP_RET_USER_NOTIF rows:
					the child loads it with a new listener and
					sends that to cordon-inner (spawn_listener) */
	uint64_t nofile;             /* the soft RLIMIT_NOFILE the command starts
					with: its caller's, which cordon raised for
					the descriptors of the setup; 0: inherited */
	pid_t standin;               /* standin.h: make it, after the Landlock domain; the
					capabilities for it are dropped and checked gone
					before the filter.  0: none */
};

struct spawn_handle {
	pid_t pid;
	int status_fd;   /* read end of the status pipe */
	int go_fd;       /* write end of the go pipe */
	int notify_fd;   /* supervised: where the child sends its seccomp listener */
};

/* Fork the child, which sets itself up and waits.  0 or -errno. */
int spawn_start(const struct spawn_plan *p, struct spawn_handle *h, struct cordon_err *e)
	__attribute__((warn_unused_result));

/* Let the child exec and wait until it has.  Returns the child's pid, or
 * -errno with *e filled when the command did not start; then e->exit_code is
 * 127 (not found), 126 (not executable) or 125 (setup failed in the child). */
pid_t spawn_release(struct spawn_handle *h, const char *cmd, struct cordon_err *e)
	__attribute__((warn_unused_result));

/* Supervised: receive the seccomp listener of the child's filter (the child
 * sends it right after loading the filter, before it waits to exec).  Into
 * *listener (O_CLOEXEC), 0 or -errno with *e; the child is then still
 * waiting and spawn_abort() ends it. */
int spawn_listener(struct spawn_handle *h, int *listener, struct cordon_err *e)
	__attribute__((warn_unused_result));

/* Kill the waiting child and reap it: the command never runs. */
void spawn_abort(struct spawn_handle *h);

/* spawn_start then spawn_release. */
pid_t spawn_command(const struct spawn_plan *p, struct cordon_err *e)
	__attribute__((warn_unused_result));

/* Pure: from the text of /proc/self/status, the signals whose disposition
 * is not the default (SigIgn | SigCgt, bit sig-1 for each), which the child
 * resets before exec.  -1 if either line is missing or malformed. */
int spawn_parse_dispositions(const char *status, size_t len, uint64_t *reset);

/* Pure: the exit status and message for a failure report from the child. */
int spawn_failure(const char *cmd, int stage, int err, struct cordon_err *e);

#endif
