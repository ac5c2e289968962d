/* pty.c: see pty.h. */
#include "launch/pty.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>
#include "sys.h"

/* A non-blocking descriptor on the user's terminal fd, without touching
 * the description cordon shares with its shell (which would then see
 * EAGAIN itself): a new one, opened through /proc.  If the terminal cannot
 * be opened again (its node is not the caller's), the shared one is made
 * non-blocking for the run and its flags saved in *flags for pty_close. */
static int own_nonblocking(int fd, int mode, int *flags)
{
	char path[32];
	(void)snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	int own = open(path, mode | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (own >= 0)
		return own;
	int fl = fcntl(fd, F_GETFL);
	if (fl < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) < 0)
		return -errno;
	*flags = fl;
	return fd;
}

int pty_open(struct pty *p, struct cordon_err *e)
{
	int in_tty = isatty(STDIN_FILENO), out_tty = isatty(STDOUT_FILENO);
	if (!in_tty && !out_tty)
		return 0;
	p->term = in_tty ? STDIN_FILENO : STDOUT_FILENO;
	/* A background job (`cordon ... &` in an interactive shell) may not
	 * change its controlling terminal's mode or read it (SIGTTOU, SIGTTIN
	 * would stop cordon): it runs the command as without a terminal.  A
	 * terminal that is not cordon's controlling one (tcgetpgrp fails) has
	 * no job control to stop it. */
	pid_t fg = tcgetpgrp(p->term);
	if (fg >= 0 && fg != getpgrp()) {
		p->term = -1;
		return 0;
	}
	int out = out_tty ? STDOUT_FILENO : isatty(STDERR_FILENO) ? STDERR_FILENO : -1;
	int r = in_tty ? own_nonblocking(STDIN_FILENO, O_RDONLY, &p->in_flags) : -1;
	if (in_tty && r < 0)
		return err_sys(e, -r, "cannot set up the terminal on standard input");
	p->in = r;
	r = out >= 0 ? own_nonblocking(out, O_WRONLY, &p->out_flags) : -1;
	if (out >= 0 && r < 0)
		return err_sys(e, -r, "cannot set up the terminal on descriptor %d", out);
	p->out = r;
	char name[64];
	p->master = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (p->master < 0 || grantpt(p->master) < 0 || unlockpt(p->master) < 0 ||
	    ptsname_r(p->master, name, sizeof(name)) != 0)
		return err_sys(e, errno, "cannot open a terminal for the command (/dev/ptmx)");
	p->slave = open(name, O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (p->slave < 0)
		return err_sys(e, errno, "cannot open the command's terminal %s", name);
	/* The command's terminal starts as the user's is now: the same
	 * special characters, echo and line editing, and size. */
	struct winsize ws;
	if (tcgetattr(p->term, &p->saved) < 0)
		return err_sys(e, errno, "cannot read the terminal's mode");
	if (tcsetattr(p->slave, TCSANOW, &p->saved) < 0)
		return err_sys(e, errno, "cannot set the command's terminal's mode");
	if (ioctl(p->term, TIOCGWINSZ, &ws) == 0)
		(void)ioctl(p->master, TIOCSWINSZ, &ws);
	if (fcntl(p->master, F_SETFL, O_NONBLOCK) < 0)
		return err_sys(e, errno, "cannot set up the command's terminal");
	return 0;
}

void pty_stdio(const struct pty *p, int stdio[3])
{
	for (int i = 0; i < 3; i++)
		stdio[i] = p->slave >= 0 && isatty(i) ? p->slave : -1;
}

void pty_started(struct pty *p)
{
	sys_close(&p->slave);
}

int pty_raw(struct pty *p, struct cordon_err *e)
{
	if (p->master < 0 || p->in < 0)
		return 0;
	struct termios raw = p->saved;
	cfmakeraw(&raw);
	if (tcsetattr(p->term, TCSANOW, &raw) < 0)
		return err_sys(e, errno, "cannot set the terminal's mode");
	p->raw = 1;
	/* What the kernel made of it (it may drop flags the line does not
	 * have): the guardian compares the terminal's mode with this. */
	if (tcgetattr(p->term, &p->rawmode) < 0)
		p->rawmode = raw;
	return 0;
}

int pty_buf_fill(struct pty_buf *b, int fd)
{
	if (b->off > 0) {
		memmove(b->data, b->data + b->off, b->len);
		b->off = 0;
	}
	if (b->len == sizeof(b->data))
		return 0;
	ssize_t n = read(fd, b->data + b->len, sizeof(b->data) - b->len);
	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return 0;
	if (n <= 0)
		return -1;
	b->len += (size_t)n;
	return (int)n;
}

int pty_buf_flush(struct pty_buf *b, int fd)
{
	while (b->len > 0) {
		ssize_t n = write(fd, b->data + b->off, b->len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			return 0;
		if (n <= 0) {
			b->off = b->len = 0;
			return -1;
		}
		b->off += (size_t)n;
		b->len -= (size_t)n;
	}
	b->off = 0;
	return 0;
}

static int has_room(const struct pty_buf *b)
{
	return b->len < sizeof(b->data);
}

static int ended(const struct pty *p, enum pty_end end)
{
	return p->ended >> end & 1;
}

int pty_fd(const struct pty *p, enum pty_end end)
{
	return end == PTY_IN ? p->in : end == PTY_MASTER ? p->master : p->out;
}

short pty_events(const struct pty *p, enum pty_end end)
{
	if (p->master < 0 || pty_fd(p, end) < 0 || ended(p, end))
		return 0;
	if (end == PTY_IN)
		return has_room(&p->keys) && !p->away ? POLLIN : 0;
	if (end == PTY_OUT)
		return p->shown.len > 0 ? POLLOUT : 0;
	return (short)((has_room(&p->shown) ? POLLIN : 0) | (p->keys.len > 0 ? POLLOUT : 0));
}

/* The command's output, with nobody (left) to show it to, is read and
 * dropped: a command writing to its terminal is not held up by that. */
static void drop_unshown(struct pty *p)
{
	if (p->out < 0 || ended(p, PTY_OUT))
		p->shown.off = p->shown.len = 0;
}

void pty_ready(struct pty *p, enum pty_end end, short revents)
{
	/* A raw terminal read never ends (Ctrl-D is a byte like any other),
	 * and cordon writes only in the foreground or with tostop off: end of
	 * file, EIO or a hangup on the user's terminal is the terminal gone. */
	if (end == PTY_IN) {
		if (pty_buf_fill(&p->keys, p->in) < 0) {
			p->ended |= 1 << PTY_IN;
			p->hungup = 1;
		}
	} else if (end == PTY_OUT) {
		if (!(revents & POLLOUT) || pty_buf_flush(&p->shown, p->out) < 0) {
			p->ended |= 1 << PTY_OUT;
			p->hungup = 1;
		}
	} else {
		/* Keys the pty no longer takes have nowhere to go: stop
		 * reading them. */
		if ((revents & POLLOUT) && pty_buf_flush(&p->keys, p->master) < 0)
			p->ended |= 1 << PTY_IN;
		/* EIO: no slave is open any more, the command is gone. */
		if ((revents & (POLLIN | POLLHUP | POLLERR)) && has_room(&p->shown) &&
		    pty_buf_fill(&p->shown, p->master) < 0) {
			p->ended |= 1 << PTY_MASTER | 1 << PTY_IN;
			p->keys.off = p->keys.len = 0;
		}
	}
	if (revents & POLLNVAL)
		p->ended |= 1 << end;
	drop_unshown(p);
}

void pty_resize(struct pty *p)
{
	struct winsize ws;
	if (p->master >= 0 && ioctl(p->term, TIOCGWINSZ, &ws) == 0)
		(void)ioctl(p->master, TIOCSWINSZ, &ws);
}

static long ms_left(const struct timespec *until)
{
	struct timespec now;
	(void)clock_gettime(CLOCK_MONOTONIC, &now);
	return (until->tv_sec - now.tv_sec) * 1000 + (until->tv_nsec - now.tv_nsec) / 1000000;
}

/* What the command (or bwrap, failing) wrote and nobody relayed yet: the
 * master is non-blocking, so this ends at EAGAIN, or EIO once no slave is
 * open, or after PTY_DRAIN_MS if the user's terminal takes nothing. */
static void drain(struct pty *p)
{
	struct timespec until;
	(void)clock_gettime(CLOCK_MONOTONIC, &until);
	until.tv_sec += PTY_DRAIN_MS / 1000;
	until.tv_nsec += (PTY_DRAIN_MS % 1000) * 1000000L;
	drop_unshown(p);
	for (;;) {
		long left = ms_left(&until);
		if (left <= 0)
			return;
		if (p->shown.len > 0) {
			struct pollfd w = { p->out, POLLOUT, 0 };
			if (poll(&w, 1, (int)left) <= 0 || !(w.revents & POLLOUT) ||
			    pty_buf_flush(&p->shown, p->out) < 0)
				return;
		} else if (pty_buf_fill(&p->shown, p->master) <= 0) {
			return;
		}
		drop_unshown(p);
	}
}

/* The user's descriptor back as cordon found it. */
static void release_user_fd(int *fd, int *flags)
{
	if (*fd >= 0 && *flags >= 0)
		(void)fcntl(*fd, F_SETFL, *flags);
	else
		sys_close(fd);
	*fd = -1;
	*flags = -1;
}

void pty_hangup(struct pty *p)
{
	if (p->master < 0)
		return;
	sys_close(&p->slave);
	sys_close(&p->master);
	p->ended = 1 << PTY_IN | 1 << PTY_MASTER | 1 << PTY_OUT;
	p->keys.off = p->keys.len = 0;
	p->shown.off = p->shown.len = 0;
	if (p->raw && tcsetattr(p->term, TCSANOW, &p->saved) == 0)
		p->raw = 0;
}

static int in_foreground(const struct pty *p)
{
	pid_t fg = tcgetpgrp(p->term);
	return fg < 0 || fg == getpgrp();
}

/* Stop cordon's job with sig, whatever the caller made of the signal, and
 * return once continued.  Its SIGCONT, blocked for the supervisor's
 * signalfd, is taken here: the caller resumes the relay itself. */
static void stop_job(int sig)
{
	struct sigaction dfl, old;
	memset(&dfl, 0, sizeof(dfl));
	dfl.sa_handler = SIG_DFL;
	if (sig != SIGSTOP && sigaction(sig, &dfl, &old) < 0)
		return;
	sigset_t one, mask, cont;
	sigemptyset(&one);
	sigaddset(&one, sig);
	if (sigprocmask(SIG_UNBLOCK, &one, &mask) == 0) {
		/* The whole job, as the terminal would have stopped it: a
		 * pipeline cordon is part of stops with it. */
		(void)killpg(getpgrp(), sig);
		(void)sigprocmask(SIG_SETMASK, &mask, NULL);
	}
	if (sig != SIGSTOP)
		(void)sigaction(sig, &old, NULL);
	sigemptyset(&cont);
	sigaddset(&cont, SIGCONT);
	struct timespec now = { 0, 0 };
	(void)sigtimedwait(&cont, NULL, &now);
}

void pty_suspend(struct pty *p, int sig)
{
	if (sig != SIGTSTP && sig != SIGSTOP && sig != SIGTTIN && sig != SIGTTOU)
		sig = SIGTSTP;
	if (p->master >= 0 && p->out >= 0 && !ended(p, PTY_OUT))
		drain(p);
	if (p->raw && in_foreground(p) && tcsetattr(p->term, TCSADRAIN, &p->saved) == 0)
		p->raw = 0;
	/* A terminal that is not cordon's controlling one (a caller that
	 * started it in a session of its own) has no shell to continue a
	 * stopped cordon: the command goes on at once (pty_resume). */
	if (tcgetpgrp(p->term) >= 0)
		stop_job(sig);
}

int pty_resume(struct pty *p, struct cordon_err *e)
{
	if (p->master < 0 || p->term < 0)
		return 0;
	p->away = !in_foreground(p);
	pty_resize(p);
	return p->away || p->raw ? 0 : pty_raw(p, e);
}

void pty_init(struct pty *p)
{
	p->master = p->slave = p->in = p->out = p->term = -1;
	p->raw = 0;
	memset(&p->saved, 0, sizeof(p->saved));
	p->in_flags = p->out_flags = -1;
	p->ended = 0;
	p->keys.off = p->keys.len = 0;
	p->shown.off = p->shown.len = 0;
	p->hungup = p->away = 0;
	memset(&p->rawmode, 0, sizeof(p->rawmode));
}

void pty_close(struct pty *p)
{
	sys_close(&p->slave);
	if (p->master >= 0)
		drain(p);
	if (p->raw && tcsetattr(p->term, TCSANOW, &p->saved) == 0)
		p->raw = 0;
	sys_close(&p->master);
	release_user_fd(&p->in, &p->in_flags);
	release_user_fd(&p->out, &p->out_flags);
}
