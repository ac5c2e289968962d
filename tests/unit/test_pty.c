/* test_pty.c: the command's own terminal: none without a terminal; with
 * one (a pty standing in for the user's), the same size, bwrap's stdio on
 * the new slave, the user's terminal raw while relaying and restored at the
 * end, keys and output relayed. */
#include <criterion/criterion.h>

#include <errno.h>
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
	ready(t.in);
	pty_ready(&t, PTY_IN, POLLIN);
	cr_assert_eq(pty_events(&t, PTY_MASTER) & POLLOUT, POLLOUT, "keys wait for the pty");
	pty_ready(&t, PTY_MASTER, POLLOUT);
	read_n(t.slave, buf, 3);
	cr_assert_str_eq(buf, "abc");
	/* Output: the command writes, cordon relays, the user reads. */
	cr_assert_eq(write(t.slave, "xyz", 3), 3);
	ready(t.master);
	pty_ready(&t, PTY_MASTER, POLLIN);
	cr_assert_eq(pty_events(&t, PTY_OUT), POLLOUT, "output waits for the user's terminal");
	pty_ready(&t, PTY_OUT, POLLOUT);
	cr_assert_eq(pty_events(&t, PTY_OUT), 0, "and nothing more once written");
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

/* A pipe holding up to `size` bytes, both ends non-blocking. */
static void pipe_of(int p[2], int size)
{
	cr_assert_eq(pipe2(p, O_NONBLOCK | O_CLOEXEC), 0);
	cr_assert_geq(fcntl(p[1], F_SETPIPE_SZ, size), size);
}

static void pattern(char *buf, size_t n, size_t from)
{
	for (size_t i = 0; i < n; i++)
		buf[i] = (char)((from + i) * 7 % 251);
}

Test(pty_buf, fill_stops_at_its_bound)
{
	static struct pty_buf b;
	static char big[3 * PTY_BUF_SIZE];
	int p[2];
	pipe_of(p, (int)sizeof(big));
	pattern(big, sizeof(big), 0);
	cr_assert_eq(write(p[1], big, sizeof(big)), (ssize_t)sizeof(big));
	while (pty_buf_fill(&b, p[0]) > 0)
		;
	cr_assert_eq(b.len, PTY_BUF_SIZE, "full, and no more than full");
	cr_assert_eq(pty_buf_fill(&b, p[0]), 0, "a full buffer reads nothing");
	int left = 0;
	cr_assert_eq(ioctl(p[0], FIONREAD, &left), 0);
	cr_assert_eq(left, 2 * PTY_BUF_SIZE, "the rest waits in its source (back-pressure, no loss)");
	cr_assert_eq(memcmp(b.data, big, PTY_BUF_SIZE), 0);
	close(p[1]);
	b.off = b.len = 0;
	while (pty_buf_fill(&b, p[0]) > 0)
		b.len = 0;
	cr_assert_eq(pty_buf_fill(&b, p[0]), -1, "control: end of file ends the source");
	close(p[0]);
}

Test(pty_buf, flush_keeps_what_the_destination_does_not_take)
{
	static struct pty_buf b;
	static char in[PTY_BUF_SIZE], out[PTY_BUF_SIZE];
	int p[2];
	pipe_of(p, 4096);
	pattern(in, sizeof(in), 3);
	memcpy(b.data, in, sizeof(in));
	b.len = sizeof(in);
	/* The pipe takes 4 KiB at a time: flush never waits, and what it
	 * did not take comes next time, in order. */
	size_t got = 0;
	for (int rounds = 0; got < sizeof(out); rounds++) {
		cr_assert_lt(rounds, 1000);
		cr_assert_eq(pty_buf_flush(&b, p[1]), 0);
		int queued = 0;
		cr_assert_eq(ioctl(p[0], FIONREAD, &queued), 0);
		cr_assert_eq(b.len + (size_t)queued + got, sizeof(in), "nothing lost, nothing doubled");
		ssize_t n = read(p[0], out + got, sizeof(out) - got);
		cr_assert_gt(n, 0);
		got += (size_t)n;
	}
	cr_assert_eq(b.len, 0);
	cr_assert_eq(memcmp(in, out, sizeof(in)), 0, "every byte, in order");
	close(p[0]);
	signal(SIGPIPE, SIG_IGN);
	b.len = 10;
	cr_assert_eq(pty_buf_flush(&b, p[1]), -1, "a destination gone for good: EPIPE");
	cr_assert_eq(b.len, 0, "and its bytes are dropped");
	close(p[1]);
}

/* The supervisor's loop, for the relay alone: poll each end for what it
 * waits for, up to `rounds` times or until poll says nothing is ready. */
static void pump(struct pty *t, int rounds, int wait_ms)
{
	for (int r = 0; r < rounds; r++) {
		struct pollfd p[PTY_NENDS];
		for (int i = 0; i < PTY_NENDS; i++) {
			p[i].events = pty_events(t, (enum pty_end)i);
			p[i].fd = p[i].events ? pty_fd(t, (enum pty_end)i) : -1;
		}
		if (poll(p, PTY_NENDS, wait_ms) <= 0)
			return;
		for (int i = 0; i < PTY_NENDS; i++)
			if (p[i].revents)
				pty_ready(t, (enum pty_end)i, p[i].revents);
	}
}

/* A command that never reads while the user pastes far more than the pty
 * holds: the relay never blocks, keeps at most its bound, stops reading
 * keys; a command that reads then gets every byte intact. */
Test(pty_relay, a_command_that_reads_nothing_holds_nothing_up)
{
	int user;
	user_terminal(&user);
	struct pty *t = malloc(sizeof(*t));
	cr_assert_not_null(t);
	*t = (struct pty)PTY_INIT;
	struct cordon_err e = { 0 };
	cr_assert_eq(pty_open(t, &e), 0, "%s", e.msg);
	cr_assert_eq(pty_raw(t, &e), 0, "%s", e.msg);
	struct termios raw;
	cr_assert_eq(tcgetattr(t->slave, &raw), 0);
	cfmakeraw(&raw);
	cr_assert_eq(tcsetattr(t->slave, TCSANOW, &raw), 0);
	cr_assert_eq(fcntl(user, F_SETFL, O_NONBLOCK), 0);

	enum { PASTE = 512 * 1024 };
	static char paste[PASTE], got[PASTE];
	pattern(paste, PASTE, 11);
	size_t sent = 0;
	/* The user pastes what their terminal takes; the relay runs; nobody
	 * reads the command's terminal.  The alarm fails the test if anything
	 * blocks. */
	alarm(20);
	for (int i = 0; i < 200 && sent < PASTE; i++) {
		ssize_t n = write(user, paste + sent, PASTE - sent);
		if (n > 0)
			sent += (size_t)n;
		else if (t->keys.len == PTY_BUF_SIZE)
			break; /* everything between the user and the command is full */
		pump(t, 50, 10);
	}
	cr_assert_eq(t->keys.len, PTY_BUF_SIZE, "the keys' buffer is full and no fuller");
	cr_assert_eq(pty_events(t, PTY_IN), 0, "and the keys are not read");
	cr_assert_eq(pty_events(t, PTY_MASTER), POLLIN | POLLOUT,
		     "while the pty is still read, and written when it has room");

	/* Control: the command reads now, and gets the whole paste. */
	size_t have = 0;
	cr_assert_eq(fcntl(t->slave, F_SETFL, O_NONBLOCK), 0);
	for (int i = 0; i < 100000 && have < PASTE; i++) {
		ssize_t n = read(t->slave, got + have, PASTE - have);
		if (n > 0)
			have += (size_t)n;
		ssize_t m = sent < PASTE ? write(user, paste + sent, PASTE - sent) : 0;
		if (m > 0)
			sent += (size_t)m;
		pump(t, 4, n <= 0 ? 5 : 0);
	}
	alarm(0);
	cr_assert_eq(have, PASTE, "all %d bytes arrived (%zu)", PASTE, have);
	cr_assert_eq(memcmp(paste, got, PASTE), 0, "intact, in order");
	pty_close(t);
	free(t);
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

/* The user's terminal hangs up (its master closed, as a closed window or
 * a dropped ssh connection does): the relay sees it on the keys' end, and
 * pty_hangup hangs the command's terminal up in turn: its reads find end of
 * file, its writes EIO.  Control: before, the command's terminal works. */
Test(pty_relay, a_hangup_goes_on_to_the_command)
{
	int user;
	user_terminal(&user);
	struct pty t = PTY_INIT;
	struct cordon_err e = { 0 };
	cr_assert_eq(pty_open(&t, &e), 0, "%s", e.msg);
	cr_assert_eq(pty_raw(&t, &e), 0, "%s", e.msg);
	int cmd = open(ptsname(t.master), O_RDWR | O_NOCTTY | O_CLOEXEC);
	cr_assert_geq(cmd, 0);
	cr_assert_eq(write(cmd, "x", 1), 1, "control: the command's terminal takes output");
	cr_assert_eq(t.hungup, 0);

	close(user);
	ready(t.in);
	pty_ready(&t, PTY_IN, POLLIN | POLLHUP);
	cr_assert_eq(t.hungup, 1, "end of file on a raw terminal is its hangup");
	pty_hangup(&t);
	cr_assert_eq(t.master, -1);
	char c;
	cr_assert_eq(read(cmd, &c, 1), 0, "the command reads end of file");
	errno = 0;
	cr_assert_eq(write(cmd, "x", 1), -1);
	cr_assert_eq(errno, EIO, "and its writes fail");
	for (int i = 0; i < PTY_NENDS; i++)
		cr_assert_eq(pty_events(&t, (enum pty_end)i), 0, "nothing of the relay is watched");
	pty_hangup(&t); /* again: nothing */
	pty_close(&t);
	close(cmd);
}

/* In a child in an orphaned process group of a session of its own (no
 * shell to continue it): the kernel discards SIGTSTP there, as it would
 * for the command outside, so pty_suspend returns at once; the terminal's
 * mode is the user's meanwhile and pty_resume makes it raw again.  0 if
 * all that holds. */
static int suspend_child(void)
{
	int m = posix_openpt(O_RDWR | O_NOCTTY);
	if (m < 0 || grantpt(m) || unlockpt(m) || setsid() < 0)
		return 10;
	int s = open(ptsname(m), O_RDWR); /* the session's controlling terminal */
	if (s < 0 || dup2(s, 0) < 0 || dup2(s, 1) < 0)
		return 11;
	sigset_t cont;
	sigemptyset(&cont);
	sigaddset(&cont, SIGCONT);
	if (sigprocmask(SIG_BLOCK, &cont, NULL) < 0)
		return 12;
	struct pty t = PTY_INIT;
	struct cordon_err e = { 0 };
	if (pty_open(&t, &e) < 0 || t.master < 0 || pty_raw(&t, &e) < 0)
		return 13;
	struct termios tio;
	pty_suspend(&t, SIGTSTP);
	if (tcgetattr(0, &tio) < 0 || !(tio.c_lflag & ICANON) || t.raw)
		return 14;
	if (pty_resume(&t, &e) < 0 || tcgetattr(0, &tio) < 0 || (tio.c_lflag & ICANON) || !t.raw ||
	    t.away)
		return 15;
	pty_close(&t);
	return 0;
}

Test(pty_suspend, stop_discarded_in_an_orphaned_group)
{
	pid_t c = fork();
	cr_assert_geq(c, 0);
	if (c == 0)
		_exit(suspend_child());
	int st;
	cr_assert_eq(waitpid(c, &st, WUNTRACED), c);
	cr_assert(WIFEXITED(st), "status 0x%x (stopped: the stop was not discarded)", st);
	cr_assert_eq(WEXITSTATUS(st), 0, "step %d failed", WEXITSTATUS(st));
}
