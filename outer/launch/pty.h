/* pty.h: the command's own terminal, relayed by cordon.
 *
 * With a terminal on stdin or stdout, the command does not get the user's
 * terminal: cordon opens a new pty, hands its slave to bwrap as each of 0-2
 * that is a terminal, and cordon-inner makes it the controlling terminal of
 * a new session for the command (--tty).  The terminal's signals (Ctrl-C,
 * Ctrl-Z, Ctrl-\) then reach the command's foreground job and nothing else:
 * neither bwrap, cordon-inner nor cordon, and kill(0, sig) inside reaches no
 * process outside.  While the command runs the user's terminal is raw (its
 * keys go to the pty as typed), the window size follows it (SIGWINCH), and
 * its mode is restored whatever ends the run.  Without a terminal nothing
 * of this happens and bwrap runs the command in a new session of its own. */
#ifndef CORDON_PTY_H
#define CORDON_PTY_H

#include <termios.h>
#include "err.h"

struct pty {
	int master;               /* -1: the command has no terminal */
	int slave;                /* until bwrap has it */
	int in;                   /* the user's keys: 0 if a terminal, else -1 */
	int out;                  /* where the command's terminal output goes, or -1 */
	int term;                 /* the user's terminal (mode, size) */
	int raw;                  /* its mode was changed: restore `saved` */
	struct termios saved;
};

#define PTY_INIT { -1, -1, -1, -1, -1, 0, { 0 } }

/* Open the pty if stdin or stdout is a terminal of which cordon runs in the
 * foreground (else leave master -1), with the user's terminal's modes and
 * window size. */
int pty_open(struct pty *p, struct cordon_err *e) __attribute__((warn_unused_result));

/* What bwrap gets as 0-2: the slave for each that is a terminal, -1 to
 * keep cordon's. */
void pty_stdio(const struct pty *p, int stdio[3]);

/* bwrap has the slave: cordon's copy goes, so that the master reads end of
 * file once the sandbox is gone. */
void pty_started(struct pty *p);

/* The user's terminal raw, for as long as the relay runs. */
int pty_raw(struct pty *p, struct cordon_err *e) __attribute__((warn_unused_result));

/* The relay, called by the supervisor when the descriptor is readable:
 * keys to the pty, the pty's output to the user.  0 while there is more to
 * come, -1 when that side has ended. */
int pty_input(struct pty *p);
int pty_output(struct pty *p);

/* SIGWINCH: the user's window size to the pty (the kernel then signals the
 * command's foreground job). */
void pty_resize(struct pty *p);

/* What the pty still holds to the user, the user's terminal mode back,
 * everything closed.  Safe to call on every path, more than once. */
void pty_close(struct pty *p);

#endif
