/* pty.c: see pty.h. */
#include "launch/pty.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include "sys.h"

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
	p->in = in_tty ? STDIN_FILENO : -1;
	p->out = out_tty ? STDOUT_FILENO : isatty(STDERR_FILENO) ? STDERR_FILENO : -1;
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
	return 0;
}

/* All of buf, waiting for room: the master is non-blocking, and so may
 * the user's terminal be (a program that shared it set O_NONBLOCK).  A
 * command that reads no input holds the relay up here, as a terminal would
 * hold up whoever types into it. */
static int write_wait(int fd, const char *buf, size_t len)
{
	while (len > 0) {
		ssize_t n = write(fd, buf, len);
		if (n < 0 && errno == EAGAIN) {
			struct pollfd p = { fd, POLLOUT, 0 };
			if (poll(&p, 1, -1) < 0 && errno != EINTR)
				return -1;
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

/* Copy what one read gives from `from` to `to` (or drop it if to < 0). */
static int copy(int from, int to)
{
	char buf[4096];
	ssize_t n = read(from, buf, sizeof(buf));
	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return 0;
	if (n <= 0)
		return -1; /* EIO on the master: no slave left open */
	if (to >= 0 && write_wait(to, buf, (size_t)n) < 0)
		return -1;
	return 0;
}

int pty_input(struct pty *p)
{
	return copy(p->in, p->master);
}

int pty_output(struct pty *p)
{
	return copy(p->master, p->out);
}

void pty_resize(struct pty *p)
{
	struct winsize ws;
	if (p->master >= 0 && ioctl(p->term, TIOCGWINSZ, &ws) == 0)
		(void)ioctl(p->master, TIOCSWINSZ, &ws);
}

void pty_close(struct pty *p)
{
	sys_close(&p->slave);
	/* Output the command (or bwrap, failing) wrote and nobody relayed
	 * yet: the master is non-blocking, so this ends at EAGAIN, or EIO once
	 * no slave is open. */
	char buf[4096];
	ssize_t n;
	while (p->master >= 0 && (n = read(p->master, buf, sizeof(buf))) > 0)
		if (p->out >= 0 && write_wait(p->out, buf, (size_t)n) < 0)
			break;
	if (p->raw && tcsetattr(p->term, TCSANOW, &p->saved) == 0)
		p->raw = 0;
	sys_close(&p->master);
}
