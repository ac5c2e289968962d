/* pty.h: the command's own terminal, relayed by cordon.
 *
 * With a terminal on stdin or stdout, the command does not get the user's
 * terminal: cordon opens a new pty, hands its slave to bwrap as each of 0-2
 * that is a terminal, and cordon-inner makes it the controlling terminal of
 * a new session it leads, with the command's process group in the
 * foreground (--tty).  The terminal's signals (Ctrl-C, Ctrl-Z, Ctrl-\)
 * then reach the command's foreground job and nothing else:
 * neither bwrap, cordon-inner nor cordon, and kill(0, sig) inside reaches no
 * process outside.  While the command runs the user's terminal is raw (its
 * keys go to the pty as typed), the window size follows it (SIGWINCH), and
 * its mode is restored whatever ends the run.  Without a terminal nothing
 * of this happens and bwrap runs the command in a new session of its own. */
#ifndef CORDON_PTY_H
#define CORDON_PTY_H

#include <stddef.h>
#include <termios.h>
#include "err.h"

/* One direction of the relay: bytes read from its source and not yet
 * written to its destination.  Bounded, so that a destination that takes
 * nothing (a command that reads no input, a terminal that stopped reading)
 * stops the source being read (back-pressure, as a terminal holds up whoever
 * types into it) and never holds up the supervisor. */
#define PTY_BUF_SIZE 65536

struct pty_buf {
	size_t off, len;          /* the bytes waiting: data[off .. off+len) */
	char data[PTY_BUF_SIZE];
};

/* Read once from fd into the buffer's free room (none: nothing read).
 * The bytes read (> 0), 0 if none now (EAGAIN, EINTR, full), -1 when the
 * source has ended (end of file, EIO on a master with no slave left, or
 * another error). */
int pty_buf_fill(struct pty_buf *b, int fd) __attribute__((warn_unused_result));

/* Write what fd takes now of the buffer's bytes.  0, or -1 when fd cannot
 * take any more ever (the buffer is then emptied: nobody is left to get
 * them). */
int pty_buf_flush(struct pty_buf *b, int fd) __attribute__((warn_unused_result));

/* The relay's descriptors, as the supervisor watches them. */
enum pty_end { PTY_IN, PTY_MASTER, PTY_OUT, PTY_NENDS };

struct pty {
	int master;               /* -1: the command has no terminal */
	int slave;                /* until bwrap has it */
	int in;                   /* the user's keys (non-blocking), or -1 */
	int out;                  /* where the command's output goes (non-blocking), or -1 */
	int term;                 /* the user's terminal (mode, size) */
	int raw;                  /* its mode was changed: restore `saved` */
	struct termios saved;
	int in_flags, out_flags;  /* a shared description's flags to restore, or -1 */
	int ended;                /* bits 1 << PTY_IN, PTY_MASTER, PTY_OUT: that end is done */
	struct pty_buf keys;      /* in -> master */
	struct pty_buf shown;     /* master -> out */
	int hungup;               /* the user's terminal hung up (pty_ready saw it) */
	int away;                 /* cordon is a background job (bg): its keys are not read */
	struct termios rawmode;   /* the raw mode as the kernel holds it (pty_raw) */
};

#define PTY_INIT { -1, -1, -1, -1, -1, 0, { 0 }, -1, -1, 0, { 0, 0, { 0 } }, { 0, 0, { 0 } }, \
		   0, 0, { 0 } }

/* As PTY_INIT, but the buffers' bytes are left untouched: 128 KiB that a
 * run without a terminal never uses and that, zeroed, cost every start
 * thirty-odd page faults. */
void pty_init(struct pty *p);

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

/* The user's terminal hung up (a read on it found end of file or EIO, a
 * write failed, or SIGHUP came): the command's terminal hangs up too, as
 * the kernel would have hung up the user's under the command outside.  The
 * master is closed, so the kernel sends SIGHUP and SIGCONT to the command's
 * session leader and its reads find end of file, its writes EIO; the user's
 * mode is put back if the terminal still takes it.  Safe more than once. */
void pty_hangup(struct pty *p);

/* The command stopped with sig (Ctrl-Z): what it wrote is shown, the
 * user's terminal gets its own mode back, and cordon's job stops with the
 * same signal, so that the user's shell says Stopped and takes the
 * terminal.  Returns once cordon is continued (fg, bg), or at once if the
 * kernel discarded the stop (an orphaned process group, which the command
 * outside would not have stopped in either) or the terminal is not cordon's
 * controlling one (no shell there to continue it).  Then call pty_resume. */
void pty_suspend(struct pty *p, int sig);

/* cordon was continued: in the foreground of the user's terminal the
 * relay takes it raw again and reads its keys; in the background (bg) it
 * leaves the terminal alone and reads nothing (the command's output is
 * still shown, and a terminal with tostop stops cordon for it, as it would
 * have stopped the command outside).  0 or -errno with *e. */
int pty_resume(struct pty *p, struct cordon_err *e) __attribute__((warn_unused_result));

/* The relay, driven by the supervisor's poll: for each end, the
 * descriptor to watch and the events it waits for now (0: do not watch it,
 * not even for a hangup), and what to do when poll reports `revents` on it.
 * Keys are read only while they have room, the pty's output only while it
 * has room, and each destination waits for POLLOUT only while bytes wait
 * for it: nothing here blocks. */
int pty_fd(const struct pty *p, enum pty_end end);
short pty_events(const struct pty *p, enum pty_end end);
void pty_ready(struct pty *p, enum pty_end end, short revents);

/* SIGWINCH: the user's window size to the pty (the kernel then signals the
 * command's foreground job). */
void pty_resize(struct pty *p);

/* What the relay and the pty still hold to the user (for at most
 * PTY_DRAIN_MS: a terminal that stopped reading does not hold cordon's
 * exit up), the user's terminal mode back, everything closed.  Safe to call
 * on every path, more than once. */
#define PTY_DRAIN_MS 1000
void pty_close(struct pty *p);

#endif
