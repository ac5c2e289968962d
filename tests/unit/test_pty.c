/* test_pty.c: the command's own terminal: none without a terminal; with
 * one (a pty standing in for the user's), the same size, bwrap's stdio on
 * the new slave, the user's terminal raw while relaying and restored at the
 * end, keys and output relayed. */
#include <criterion/criterion.h>

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include "launch/pty.h"

/* A pty pair standing in for the user's terminal: its slave becomes 0 and
 * 1; *user_master is what the "user" types into and reads from. */
static void user_terminal(int *user_master)
{
	int m = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
	cr_assert_geq(m, 0);
	cr_assert_eq(grantpt(m), 0);
	cr_assert_eq(unlockpt(m), 0);
	int s = open(ptsname(m), O_RDWR | O_NOCTTY);
	cr_assert_geq(s, 0);
	struct winsize ws = { .ws_row = 33, .ws_col = 77 };
	cr_assert_eq(ioctl(s, TIOCSWINSZ, &ws), 0);

	cr_assert_eq(dup2(s, 0), 0);
	cr_assert_eq(dup2(s, 1), 1);
	close(s);
	*user_master = m;
}

/* Wait (at most 5 s) until fd is readable: the machine may be busy. */
static void ready(int fd)
{
	struct pollfd p = { fd, POLLIN, 0 };
	cr_assert_eq(poll(&p, 1, 5000), 1, "descriptor %d never became readable", fd);
}

/* Read exactly n bytes (a pty may hand them over in pieces). */
static void read_n(int fd, char *buf, size_t n)
{
	size_t got = 0;
	while (got < n) {
		ready(fd);
		ssize_t r = read(fd, buf + got, n - got);
		cr_assert_gt(r, 0);
		got += (size_t)r;
	}
	buf[n] = '\0';
}

Test(pty_open, no_terminal_no_pty)
{
	int n = open("/dev/null", O_RDWR);
	int p[2];
	cr_assert_eq(pipe(p), 0);
	dup2(n, 0);
	dup2(p[1], 1);
	struct pty t = PTY_INIT;
	struct cordon_err e = { 0 };
	cr_assert_eq(pty_open(&t, &e), 0, "%s", e.msg);
	cr_assert_eq(t.master, -1);
	int stdio[3];
	pty_stdio(&t, stdio);
	cr_assert(stdio[0] == -1 && stdio[1] == -1 && stdio[2] == -1);
	cr_assert_eq(pty_raw(&t, &e), 0);
	pty_close(&t);
}

Test(pty_open, a_terminal_of_its_own_relayed_and_restored)
{
	int user;
	user_terminal(&user);
	int devnull = open("/dev/null", O_RDWR);
	dup2(devnull, 2); /* not a terminal: stays cordon's */
	struct pty t = PTY_INIT;
	struct cordon_err e = { 0 };
	cr_assert_eq(pty_open(&t, &e), 0, "%s", e.msg);
	cr_assert_geq(t.master, 0);
	int stdio[3];
	pty_stdio(&t, stdio);
	cr_assert(stdio[0] == t.slave && stdio[1] == t.slave && stdio[2] == -1);
	struct winsize ws;
	cr_assert_eq(ioctl(t.slave, TIOCGWINSZ, &ws), 0);
	cr_assert(ws.ws_row == 33 && ws.ws_col == 77, "the user's window size");

	cr_assert_eq(pty_raw(&t, &e), 0, "%s", e.msg);
	struct termios tio;
	cr_assert_eq(tcgetattr(0, &tio), 0);
	cr_assert_not(tio.c_lflag & (ICANON | ISIG | ECHO), "the user's terminal is raw");
	cr_assert_eq(tcgetattr(t.slave, &tio), 0);
	cr_assert(tio.c_lflag & ISIG, "control: the command's terminal still makes signals");

	/* Keys: the user types, cordon relays, the command reads (its
	 * terminal raw here, so that no echo mixes with the output below). */
	char buf[16] = { 0 };
	struct termios raw;
	tcgetattr(t.slave, &raw);
	cfmakeraw(&raw);
	tcsetattr(t.slave, TCSANOW, &raw);
	cr_assert_eq(write(user, "abc", 3), 3);
	ready(0);
	cr_assert_eq(pty_input(&t), 0);
	read_n(t.slave, buf, 3);
	cr_assert_str_eq(buf, "abc");
	/* Output: the command writes, cordon relays, the user reads. */
	cr_assert_eq(write(t.slave, "xyz", 3), 3);
	ready(t.master);
	cr_assert_eq(pty_output(&t), 0);
	read_n(user, buf, 3);
	cr_assert_str_eq(buf, "xyz");

	/* Resize: the user's new size reaches the command's terminal. */
	ws = (struct winsize){ .ws_row = 40, .ws_col = 120 };
	cr_assert_eq(ioctl(0, TIOCSWINSZ, &ws), 0);
	pty_resize(&t);
	cr_assert_eq(ioctl(t.slave, TIOCGWINSZ, &ws), 0);
	cr_assert(ws.ws_row == 40 && ws.ws_col == 120);

	/* What the command wrote last is not lost at the end. */
	cr_assert_eq(write(t.slave, "end", 3), 3);
	ready(t.master);
	pty_close(&t);
	cr_assert_eq(t.master, -1);
	cr_assert_eq(tcgetattr(0, &tio), 0);
	cr_assert(tio.c_lflag & ICANON, "the user's terminal mode is restored");
	read_n(user, buf, 3);
	cr_assert_str_eq(buf, "end");
}

/* In a child: a session whose controlling terminal is a new pty, with
 * another process group in its foreground; 0 if pty_open leaves it alone. */
static int background_child(void)
{
	int m = posix_openpt(O_RDWR | O_NOCTTY);
	if (m < 0 || grantpt(m) || unlockpt(m) || setsid() < 0)
		return 10;
	int s = open(ptsname(m), O_RDWR); /* a session leader's first tty: its controlling one */
	if (s < 0 || dup2(s, 0) < 0 || dup2(s, 1) < 0)
		return 11;
	pid_t other = fork();
	if (other == 0) {
		setpgid(0, 0);
		for (;;)
			pause();
	}
	setpgid(other, other);
	signal(SIGTTOU, SIG_IGN);
	if (tcsetpgrp(0, other) < 0)
		return 12;
	struct pty t = PTY_INIT;
	struct cordon_err e = { 0 };
	int r = pty_open(&t, &e);
	kill(other, SIGKILL);
	if (r < 0)
		return 13;
	if (t.master >= 0)
		return 14;
	/* Control: in the foreground again, it gets one. */
	if (tcsetpgrp(0, getpgrp()) < 0 || pty_open(&t, &e) < 0)
		return 15;
	return t.master >= 0 ? 0 : 16;
}

Test(pty_open, a_background_job_gets_no_pty)
{
	pid_t c = fork();
	cr_assert_geq(c, 0);
	if (c == 0)
		_exit(background_child());
	int st;
	cr_assert_eq(waitpid(c, &st, 0), c);
	cr_assert(WIFEXITED(st), "status 0x%x", st);
	cr_assert_eq(WEXITSTATUS(st), 0, "step %d: 14 means a background cordon took the terminal, "
		     "16 that a foreground one did not", WEXITSTATUS(st));
}
