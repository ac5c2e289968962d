/* bwrap.h: the bwrap child, owned by one struct from its start to its end.
 *
 * cordon starts bwrap early, as `bwrap --args FD ... -- cordon-inner ...`:
 * bwrap loads itself while cordon does the registry's work, then blocks
 * reading its options from the args socket.  Then, in order:
 *   bwrap_open         the channels: args socket, --info-fd pipe,
 *                      --userns-block-fd socket (their bwrap ends go in the
 *                      argv and the keep list, bwrap_fill_opts/bwrap_keep)
 *   bwrap_start        fork + exec with the command part of the argv
 *   bwrap_send_args    the options; from here bwrap may have a child
 *   bwrap_map          read the child's pid from --info-fd, check it is
 *                      bwrap's child, write its user namespace's map
 *   bwrap_release      the byte on --userns-block-fd: it may mount now
 * and, while the sandbox runs, everything cordon does to it (the
 * supervisor, run.c; nothing else signals the sandbox's PID 1):
 *   bwrap_signal       a signal to PID 1, which passes it on to the command
 *   bwrap_end          ask PID 1 to end the sandbox, bwrap_kill after a grace
 *   bwrap_kill         SIGKILL PID 1, and every process of the run's cgroup
 *   bwrap_reap         bwrap has exited: its status, once
 *   bwrap_close        whatever is left: stop bwrap, kill every child it
 *                      has then (the unreleased one gets no parent-death
 *                      signal until just before its exec, so it would wait
 *                      forever or set up a sandbox nobody supervises; its
 *                      pid may not be reported yet), kill bwrap, reap it,
 *                      close the channels.
 * Each step that finds bwrap gone ends it and says so once (bwrap_fail).
 * Sockets rather than pipes for args and release: cordon writes with
 * MSG_NOSIGNAL, so a bwrap that died early is an error, never a SIGPIPE. */
#ifndef CORDON_BWRAP_H
#define CORDON_BWRAP_H

#include <signal.h>
#include <stddef.h>
#include <sys/resource.h>
#include <sys/types.h>
#include "err.h"
#include "plan/bwrap_argv.h"

struct bwrap {
	pid_t pid;            /* bwrap, > 0 from bwrap_start until reaped */
	pid_t child;          /* bwrap's child, the sandbox's PID 1 (host pid), once known */
	int args_sent;        /* bwrap has its options: it may have a child */
	int args[2];          /* --args: [0] bwrap reads, [1] cordon writes */
	int info[2];          /* --info-fd: [1] bwrap writes JSON, [0] cordon reads */
	int block[2];         /* --userns-block-fd: [0] bwrap reads, [1] cordon writes */
	int cgroup_kill;      /* the run's cgroup.kill, borrowed (bwrap_kill_cgroup), -1: none */
	int children;         /* /proc/PID/task/PID/children of bwrap, opened at its start:
			       * ending it must not need a descriptor (EMFILE) */
	long long end_by;     /* bwrap_end's grace ends (ms, CLOCK_MONOTONIC), 0: not asked */
	int shared_pidns;     /* the sandbox shares the caller's PID namespace (bwrap_share_pidns) */
	int released;         /* bwrap_release sent the byte: it may mount, and the command run */
	dev_t userns_dev;     /* the sandbox's user namespace (bwrap_map), with shared_pidns */
	ino_t userns_ino;     /* 0: unknown */
};

#define BWRAP_INIT { 0, 0, 0, { -1, -1 }, { -1, -1 }, { -1, -1 }, -1, -1, 0, 0, 0, 0, 0 }

int bwrap_open(struct bwrap *b, struct cordon_err *e) __attribute__((warn_unused_result));

/* bwrap's ends of the channels, in its options and its keep list. */
void bwrap_fill_opts(const struct bwrap *b, struct bwrap_opts *o);
size_t bwrap_keep(const struct bwrap *b, int keep[3]);

struct bwrap_start {
	int exec_fd;                  /* O_PATH descriptor of the bwrap binary */
	const struct bwrap_opts *opts;
	char *const *envp;
	const int *keep;              /* what else bwrap inherits (bwrap_keep's included) */
	size_t nkeep;
	const sigset_t *mask;         /* the mask bwrap starts with */
	const int *stdio;             /* NULL, or bwrap's 0-2 (launch/child.h) */
};

int bwrap_start(struct bwrap *b, const struct bwrap_start *s, struct cordon_err *e)
	__attribute__((warn_unused_result));

/* opts[1..n): the options bwrap reads from --args (argv[0] is its name). */
int bwrap_send_args(struct bwrap *b, char *const *argv, size_t n, struct cordon_err *e)
	__attribute__((warn_unused_result));

int bwrap_map(struct bwrap *b, uid_t uid, gid_t gid, struct cordon_err *e)
	__attribute__((warn_unused_result));

int bwrap_release(struct bwrap *b, struct cordon_err *e) __attribute__((warn_unused_result));

/* bwrap failed before it took its arguments or its release, or closed the
 * control socket under cordon: end it, reap it and fill *e once (empty if
 * cordon's child could not exec it and said so).  Returns -EIO. */
int bwrap_fail(struct bwrap *b, struct cordon_err *e);

/* The running sandbox.  Each is a kill() or a write() and nothing else
 * (async-signal-safe), and does nothing before bwrap_map found PID 1 or
 * after bwrap_reap: its pid may then be anyone's. */

/* sig to the sandbox's PID 1 (cordon-inner), which passes it on to the
 * command: a forwarded signal, SIGCONT, the timeout's SIGTERM. */
void bwrap_signal(const struct bwrap *b, int sig);

/* bwrap_kill writes "1" to fd too, the v2 cgroup.kill of the run's cgroup
 * (hostpaths/cgroup.h, which owns and closes it; -1: none): every process of
 * the sandbox dies at once, where PID 1's SIGKILL ends the rest of its PID
 * namespace only once PID 1 itself has run to die, which on a busy machine
 * takes milliseconds while the command runs on.  bwrap is no longer in that
 * cgroup once cgroup_run_enter returned. */
void bwrap_kill_cgroup(struct bwrap *b, int fd);

/* --pid-ns inherit (plan/procmode.h): PID 1's death ends nothing else, so
 * bwrap_kill asks it to kill every process first (below); bwrap_start makes
 * cordon a child subreaper, and once bwrap is reaped (bwrap_reap,
 * bwrap_kill_wait, bwrap_close) every process of the sandbox's user
 * namespace that outlived PID 1 and so became cordon's child is killed and
 * reaped. */
void bwrap_share_pidns(struct bwrap *b);

/* Kill the sandbox now: SIGKILL to PID 1, which takes the whole PID
 * namespace with it, and the run's cgroup.kill.  In the caller's PID
 * namespace (bwrap_share_pidns): WIRE_END_SIGNAL to PID 1, whose scoped
 * kill(-1) ends every process of the sandbox at once, the cgroup.kill,
 * and PID 1's SIGKILL after BWRAP_END_GRACE_MS (bwrap_end_due). */
void bwrap_kill(struct bwrap *b);

/* How long PID 1 gets to kill and reap every process before bwrap_kill:
 * killing a tree of thousands takes milliseconds. */
#define BWRAP_END_GRACE_MS 500

/* End the sandbox: PID 1 kills and reaps every process (WIRE_END_SIGNAL,
 * so that their CPU times reach bwrap's rusage), bwrap_kill at once if it
 * cannot be asked.  now: CLOCK_MONOTONIC in ms; the grace runs from the
 * first call. */
void bwrap_end(struct bwrap *b, long long now);

/* Past bwrap_end's grace, with the sandbox still there (bwrap not reaped):
 * bwrap_kill.  Returns when the grace ends (ms), 0 when none is running. */
long long bwrap_end_due(struct bwrap *b, long long now);

/* Reap bwrap if it has exited (never blocks): 1 with its wait status and
 * rusage (bwrap is gone, and the whole sandbox with it), 0 while it runs,
 * or -errno. */
int bwrap_reap(struct bwrap *b, int *wstatus, struct rusage *ru)
	__attribute__((warn_unused_result));

/* Kill the sandbox (bwrap_kill, PID 1's and bwrap's SIGKILL after the grace) and wait
 * until bwrap has exited, for a supervisor that can no longer watch it:
 * as bwrap_reap, never 0. */
int bwrap_kill_wait(struct bwrap *b, int *wstatus, struct rusage *ru)
	__attribute__((warn_unused_result));

/* Ends bwrap if it still runs (see above) and closes every channel. */
void bwrap_close(struct bwrap *b);

/* Pure: "child-pid" from bwrap's --info-fd JSON (NUL-terminated), or 0. */
pid_t bwrap_parse_child_pid(const char *json);

/* Read bwrap's info JSON from info_rd (non-blocking; waits with poll, at
 * most timeout_ms, -1 for no limit) until it names the sandbox's PID 1.  End
 * of file first means bwrap failed. */
int bwrap_read_child(int info_rd, int timeout_ms, pid_t *child, struct cordon_err *e)
	__attribute__((warn_unused_result));

#endif
