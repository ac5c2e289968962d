/* test_supervise.c: which signals cordon leaves alone (the ones its caller
 * ignored), and the loop against stand-ins for bwrap and the sandbox: the
 * control records, an extra watched descriptor, a forwarded SIGTERM and the
 * SIGKILL --kill-after seconds later. */
#include <criterion/criterion.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "supervise.h"
#include "wire.h"

static void restore(const struct supervise_signals *s)
{
	sigprocmask(SIG_SETMASK, &s->old_mask, NULL);
}

Test(supervise_block_signals, an_ignored_signal_is_neither_blocked_nor_forwarded)
{
	struct supervise_signals s;
	struct cordon_err e = { 0 };
	signal(SIGHUP, SIG_IGN);
	cr_assert_eq(supervise_block_signals(&s, &e), 0, "%s", e.msg);
	cr_assert(s.ignored & (1u << (SIGHUP - 1)));
	cr_assert_not(sigismember(&s.watched, SIGHUP), "nohup: SIGHUP stays ignored");
	cr_assert(sigismember(&s.watched, SIGTERM), "control: SIGTERM is watched");
	cr_assert(sigismember(&s.watched, SIGCHLD));
	cr_assert_not(s.ignored & (1u << (SIGTERM - 1)));
	restore(&s);
	signal(SIGHUP, SIG_DFL);
	cr_assert_not(supervise_ignored() & (1u << (SIGHUP - 1)));
}

/* A stand-in for the sandbox's PID 1 that waits forever: it dies of
 * WIRE_END_SIGNAL (its default action) as the real one ends the sandbox on
 * it, unless ignore_end makes it a PID 1 that does not respond. */
static pid_t forever_ignoring(int ignore_term, int ignore_end)
{
	pid_t p = fork();
	cr_assert_geq(p, 0);
	if (p == 0) {
		sigset_t none;
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		if (ignore_term)
			signal(SIGTERM, SIG_IGN);
		if (ignore_end)
			signal(WIRE_END_SIGNAL, SIG_IGN);
		for (;;)
			pause();
	}
	return p;
}

static pid_t forever(int ignore_term)
{
	return forever_ignoring(ignore_term, 0);
}

/* PID 1 was asked to end the sandbox (and did). */
static int ended(int wstatus)
{
	return WIFSIGNALED(wstatus) && WTERMSIG(wstatus) == WIRE_END_SIGNAL;
}

/* The bwrap handle for a stand-in that is bwrap and the sandbox's PID 1
 * at once. */
static struct bwrap *standin(struct bwrap *b, pid_t p)
{
	*b = (struct bwrap)BWRAP_INIT;
	b->pid = p;
	b->child = p;
	return b;
}

static int watched_calls;
static void on_ready(struct supervise_watch *w, short revents)
{
	char b;
	(void)revents;
	watched_calls++;
	if (read(w->fd, &b, 1) <= 0)
		w->fd = -1;
}

Test(supervise_run, records_status_and_watched_descriptors)
{
	struct supervise_signals sig;
	struct cordon_err e = { 0 };
	cr_assert_eq(supervise_block_signals(&sig, &e), 0);
	int ctrl[2], extra[2];
	cr_assert_eq(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC | SOCK_NONBLOCK, 0, ctrl), 0);
	cr_assert_eq(pipe2(extra, O_CLOEXEC), 0);
	int32_t pid = 2;
	cr_assert_eq(wire_send(ctrl[1], WIRE_STARTED, &pid, sizeof(pid), -1), 0);
	cr_assert_eq(write(extra[1], "x", 1), 1);
	close(extra[1]);
	pid_t bw = fork();
	cr_assert_geq(bw, 0);
	if (bw == 0) {
		usleep(100000);
		_exit(3);
	}
	struct supervise_watch w = { extra[0], POLLIN, on_ready, NULL };
	struct bwrap b;
	struct supervise_spec s = { .bwrap = standin(&b, bw), .ctrl = ctrl[0], .kill_after = 10,
				    .sig = &sig, .watch = &w, .nwatch = 1 };
	struct run_outcome out;
	cr_assert_eq(supervise_run(&s, &out, &e), 0, "%s", e.msg);
	cr_assert(out.reaped && out.started);
	cr_assert(WIFEXITED(out.wstatus) && WEXITSTATUS(out.wstatus) == 3);
	cr_assert_geq(watched_calls, 1, "the extra descriptor was served");
	cr_assert_eq(w.fd, -1, "and dropped at its end of file");
	restore(&sig);
}

Test(supervise_run, sigterm_is_forwarded_then_sigkill_after_kill_after)
{
	struct supervise_signals sig;
	struct cordon_err e = { 0 };
	cr_assert_eq(supervise_block_signals(&sig, &e), 0);
	int ctrl[2];
	cr_assert_eq(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC | SOCK_NONBLOCK, 0, ctrl), 0);
	pid_t sandbox = forever(1); /* ignores SIGTERM: only SIGKILL ends it */
	cr_assert_eq(kill(getpid(), SIGTERM), 0); /* blocked: read by the loop */
	struct bwrap b;
	struct supervise_spec s = { .bwrap = standin(&b, sandbox), .ctrl = ctrl[0],
				    .kill_after = 0, .sig = &sig };
	struct run_outcome out;
	cr_assert_eq(supervise_run(&s, &out, &e), 0, "%s", e.msg);
	cr_assert_eq(out.killed_by, SIGTERM);
	cr_assert(out.escalated, "the end followed");
	cr_assert(ended(out.wstatus), "PID 1 was told to end the sandbox");
	restore(&sig);
}

Test(supervise_run, sigterm_alone_ends_a_sandbox_that_obeys)
{
	struct supervise_signals sig;
	struct cordon_err e = { 0 };
	cr_assert_eq(supervise_block_signals(&sig, &e), 0);
	int ctrl[2];
	cr_assert_eq(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC | SOCK_NONBLOCK, 0, ctrl), 0);
	pid_t sandbox = forever(0);
	cr_assert_eq(kill(getpid(), SIGTERM), 0);
	struct bwrap b;
	struct supervise_spec s = { .bwrap = standin(&b, sandbox), .ctrl = ctrl[0],
				    .kill_after = 30, .sig = &sig };
	struct run_outcome out;
	cr_assert_eq(supervise_run(&s, &out, &e), 0, "%s", e.msg);
	cr_assert_eq(out.killed_by, SIGTERM);
	cr_assert_not(out.escalated);
	cr_assert(WIFSIGNALED(out.wstatus) && WTERMSIG(out.wstatus) == SIGTERM);
	restore(&sig);
}

/* A stand-in for the run's cgroup counter: each read adds step us. */
struct fake_cpu {
	unsigned long long used, step;
	int reads, fail_at;       /* fail_at: the read that fails, 0: none */
};

static int fake_cpu_usec(void *ctx, unsigned long long *usec)
{
	struct fake_cpu *f = ctx;
	if (++f->reads == f->fail_at)
		return -EIO;
	f->used += f->step;
	*usec = f->used;
	return 0;
}

static void run_with_cpu(struct fake_cpu *f, unsigned limit, struct run_outcome *out)
{
	struct supervise_signals sig;
	struct cordon_err e = { 0 };
	cr_assert_eq(supervise_block_signals(&sig, &e), 0);
	int ctrl[2];
	cr_assert_eq(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC | SOCK_NONBLOCK, 0, ctrl), 0);
	pid_t sandbox = forever(1);
	struct bwrap b;
	struct supervise_spec s = { .bwrap = standin(&b, sandbox), .ctrl = ctrl[0],
				    .kill_after = 10, .sig = &sig, .cpu_limit = limit,
				    .cpu_usec = fake_cpu_usec, .cpu_ctx = f };
	cr_assert_eq(supervise_run(&s, out, &e), 0, "%s", e.msg);
	close(ctrl[0]);
	close(ctrl[1]);
	restore(&sig);
}

Test(supervise_run, the_tree_past_limit_cpu_is_killed)
{
	/* 0.3 s of CPU per read: the limit of 1 s is reached on the 4th. */
	struct fake_cpu f = { 0, 300000, 0, 0 };
	struct run_outcome out;
	run_with_cpu(&f, 1, &out);
	cr_assert(out.cpu_exceeded);
	cr_assert_eq(f.reads, 4, "read until the limit, not after (%d reads)", f.reads);
	cr_assert(ended(out.wstatus));
	cr_assert_eq(out.cpu_unreadable, 0);
}

Test(supervise_run, an_unreadable_cpu_counter_ends_the_sandbox)
{
	struct fake_cpu f = { 0, 1000, 0, 2 };
	struct run_outcome out;
	run_with_cpu(&f, 1000, &out);
	cr_assert_not(out.cpu_exceeded);
	cr_assert_eq(out.cpu_unreadable, -EIO, "fail closed: the limit no longer holds");
	cr_assert(ended(out.wstatus));
}

Test(supervise_run, a_pid1_that_does_not_end_the_sandbox_is_killed)
{
	struct supervise_signals sig;
	struct cordon_err e = { 0 };
	cr_assert_eq(supervise_block_signals(&sig, &e), 0);
	int ctrl[2];
	cr_assert_eq(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC | SOCK_NONBLOCK, 0, ctrl), 0);
	pid_t sandbox = forever_ignoring(1, 1);
	struct bwrap b;
	struct supervise_spec s = { .bwrap = standin(&b, sandbox), .ctrl = ctrl[0],
				    .timeout = 1, .kill_after = 0, .sig = &sig };
	struct run_outcome out;
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	cr_assert_eq(supervise_run(&s, &out, &e), 0, "%s", e.msg);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	cr_assert(out.timed_out);
	cr_assert(WIFSIGNALED(out.wstatus) && WTERMSIG(out.wstatus) == SIGKILL,
		  "SIGKILL after the grace");
	double took = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	cr_assert_geq(took, 1.4, "the grace came first (%.2f s)", took);
	close(ctrl[0]);
	close(ctrl[1]);
	restore(&sig);
}

/* --timeout as `timeout -k`: SIGTERM first; the end of the sandbox only
 * for a command still there --kill-after seconds later. */
static void timeout_run(int ignore_term, unsigned kill_after, struct run_outcome *out)
{
	struct supervise_signals sig;
	struct cordon_err e = { 0 };
	cr_assert_eq(supervise_block_signals(&sig, &e), 0);
	int ctrl[2];
	cr_assert_eq(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC | SOCK_NONBLOCK, 0, ctrl), 0);
	pid_t sandbox = forever(ignore_term);
	struct bwrap b;
	struct supervise_spec s = { .bwrap = standin(&b, sandbox), .ctrl = ctrl[0],
				    .timeout = 1, .kill_after = kill_after, .sig = &sig };
	cr_assert_eq(supervise_run(&s, out, &e), 0, "%s", e.msg);
	close(ctrl[0]);
	close(ctrl[1]);
	restore(&sig);
}

Test(supervise_run, the_timeout_sends_sigterm_first)
{
	struct run_outcome out;
	timeout_run(0, 30, &out);
	cr_assert(out.timed_out);
	cr_assert_not(out.timeout_killed);
	cr_assert(WIFSIGNALED(out.wstatus) && WTERMSIG(out.wstatus) == SIGTERM,
		  "the command got SIGTERM, not the end of the sandbox");
}

Test(supervise_run, the_timeout_ends_what_ignores_sigterm_after_kill_after)
{
	struct run_outcome out;
	timeout_run(1, 1, &out);
	cr_assert(out.timed_out);
	cr_assert(out.timeout_killed);
	cr_assert(ended(out.wstatus), "ended by cordon after --kill-after");
}

Test(supervise_run, no_cpu_limit_reads_nothing)
{
	struct supervise_signals sig;
	struct cordon_err e = { 0 };
	cr_assert_eq(supervise_block_signals(&sig, &e), 0);
	int ctrl[2];
	cr_assert_eq(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC | SOCK_NONBLOCK, 0, ctrl), 0);
	pid_t bw = fork();
	cr_assert_geq(bw, 0);
	if (bw == 0) {
		usleep(50000);
		_exit(0);
	}
	struct fake_cpu f = { 0, 1, 0, 1 };
	struct bwrap b;
	struct supervise_spec s = { .bwrap = standin(&b, bw), .ctrl = ctrl[0], .kill_after = 10,
				    .sig = &sig, .cpu_usec = fake_cpu_usec, .cpu_ctx = &f };
	struct run_outcome out;
	cr_assert_eq(supervise_run(&s, &out, &e), 0, "%s", e.msg);
	cr_assert_eq(f.reads, 0);
	cr_assert_not(out.cpu_exceeded);
	cr_assert(WIFEXITED(out.wstatus) && WEXITSTATUS(out.wstatus) == 0);
	restore(&sig);
}
