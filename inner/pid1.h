/* pid1.h: cordon-inner's life as PID 1 of the sandbox once the command runs.
 *
 * The forwarded signals arrive on a signalfd (they stay blocked, which is also
 * what lets an ancestor namespace's signal reach PID 1 at all: the kernel
 * drops signals with a default disposition sent to a namespace's init).  Each
 * is passed to the command.  Every child is reaped; orphans reparent here.
 * When the command ends, everything left in the namespace is killed and
 * reaped, and the command's status becomes ours: its exit code, or 128+N if
 * it died of signal N (which PID 1 itself could not die of; wstatus.h).  The
 * wait status itself goes to cordon (WIRE_EXITED), which alone can tell an
 * `exit 130` from a death by SIGINT. */
#ifndef CORDON_PID1_H
#define CORDON_PID1_H

#include <signal.h>
#include <sys/types.h>
#include "err.h"
#include "unixsup.h"

/* Make cordon-inner non-dumpable, before the command's process exists:
 * /proc/1/mem, /proc/1/environ, /proc/1/fd and ptrace then need
 * CAP_SYS_PTRACE, which nothing in the sandbox has.  Without it, a command on
 * a host without Landlock could write into PID 1's memory through
 * /proc/1/mem (same user, and the fresh /proc is read-write) and act with
 * PID 1's descriptors and unfiltered syscalls.  0 or -errno with *e. */
int pid1_make_undumpable(struct cordon_err *e) __attribute__((warn_unused_result));

/* Load cordon-inner's own seccomp filter (seccomp_policy_pid1_allowed()):
 * after the command's process is forked, which must not inherit it, and
 * before the command is released.  Sets no_new_privs on PID 1 first (it has
 * no capabilities and never execs again).  0 or -errno with *e. */
int pid1_confine(struct cordon_err *e) __attribute__((warn_unused_result));

/* --pid-inherit: cordon-inner is not PID 1 but a process of the caller's
 * PID namespace.  It becomes a child subreaper (the command's orphans stay
 * its to reap and kill) and enters a Landlock domain that scopes signals
 * (landlock_scope_self), so that its kill(-1) at the end and anything the
 * command sends reach only the sandbox's processes; it refuses without
 * Landlock ABI 6.  Before the command's process is forked.  0 or -errno. */
int pid1_share_host_pidns(struct cordon_err *e) __attribute__((warn_unused_result));

/* The signals cordon forwards and cordon-inner passes on. */
void pid1_forwarded_set(sigset_t *s);

/* The command's terminal (--tty), which cordon-inner holds as the
 * session's leader.  Its stops are reported to cordon (WIRE_STOPPED), and
 * SIGCONT continues its group.  Its foreground follows cordon's job on the
 * caller's terminal (WIRE_FOREGROUND, before the SIGCONT): in the
 * background (bg) it is cordon-inner's own group, so that a read by the
 * command stops it with SIGTTIN (a write, with the terminal's tostop,
 * SIGTTOU), reported like Ctrl-Z: cordon's job stops with it, as the
 * command's would outside (sudo's pty mode does the same); back in the
 * foreground (fg) it is the group that had it. */
struct pid1_term {
	int ctrl;      /* the control socket */
	int fd;        /* the terminal: the first of 0-2 that is one, -1: none */
	pid_t self;    /* cordon-inner's group (it leads the session) */
	pid_t away;    /* the group that had the foreground before bg, 0: none */
	int listen;    /* cordon's records are read (until end of file) */
};

/* Before pid1_confine: the terminal is found with calls the filter refuses. */
void pid1_term_init(struct pid1_term *t, int ctrl);

/* Run the loop for the command `cmd` until the command has ended and every
 * other process of the namespace has been killed and reaped; then 0 with
 * the command's own wait status in *wstatus (SIGKILL when cordon ended the
 * sandbox, WIRE_END_SIGNAL, before it ended on its own).  -1 if waiting
 * failed (said on stderr; everything was killed).  `sfd` is a signalfd for
 * pid1_forwarded_set() plus SIGCHLD and WIRE_END_SIGNAL.  `term`: the
 * command's terminal (see above), NULL when it has none.  `sup`: the
 * Unix socket supervisor, served from the loop (UNIXSUP_INIT when not
 * started). */
int pid1_run(pid_t cmd, int sfd, struct pid1_term *term, struct unixsup *sup,
	     int *wstatus);

#endif
