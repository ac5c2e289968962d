/* test_pty.c: the command's own terminal: none without a terminal; with
 * one (a pty standing in for the user's), the same size, bwrap's stdio on
 * the new slave, the user's terminal raw while relaying and restored at the
 * end, keys and output relayed. */
#include <criterion/criterion.h>

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
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

	/* Keys: the user types, cordon relays, the command reads. */
	cr_assert_eq(write(user, "abc", 3), 3);
	usleep(20000);
	cr_assert_eq(pty_input(&t), 0);
	char buf[16] = { 0 };
	struct termios raw;
	tcgetattr(t.slave, &raw);
	cfmakeraw(&raw);
	tcsetattr(t.slave, TCSANOW, &raw);
	usleep(20000);
	cr_assert_eq(read(t.slave, buf, sizeof(buf)), 3);
	cr_assert_str_eq(buf, "abc");
	/* Output: the command writes, cordon relays, the user reads. */
	cr_assert_eq(write(t.slave, "xyz", 3), 3);
	usleep(20000);
	cr_assert_eq(pty_output(&t), 0);
	memset(buf, 0, sizeof(buf));
	usleep(20000);
	cr_assert_eq(read(user, buf, sizeof(buf)), 3);
	cr_assert_str_eq(buf, "xyz");

	/* Resize: the user's new size reaches the command's terminal. */
	ws = (struct winsize){ .ws_row = 40, .ws_col = 120 };
	cr_assert_eq(ioctl(0, TIOCSWINSZ, &ws), 0);
	pty_resize(&t);
	cr_assert_eq(ioctl(t.slave, TIOCGWINSZ, &ws), 0);
	cr_assert(ws.ws_row == 40 && ws.ws_col == 120);

	/* What the command wrote last is not lost at the end. */
	cr_assert_eq(write(t.slave, "end", 3), 3);
	usleep(20000);
	pty_close(&t);
	cr_assert_eq(t.master, -1);
	cr_assert_eq(tcgetattr(0, &tio), 0);
	cr_assert(tio.c_lflag & ICANON, "the user's terminal mode is restored");
	memset(buf, 0, sizeof(buf));
	cr_assert_eq(read(user, buf, sizeof(buf)), 3);
	cr_assert_str_eq(buf, "end");
}
