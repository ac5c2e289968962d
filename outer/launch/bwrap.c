/* bwrap.c: see bwrap.h. */
#include "launch/bwrap.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "argv.h"
#include "launch/child.h"
#include "launch/userns.h"
#include "sys.h"
#include "wire.h"

static const char not_built[] = "bwrap could not build the sandbox (its message, if any, is "
				"above); run cordon doctor to check this machine";

int bwrap_open(struct bwrap *b, struct cordon_err *e)
{
	if (pipe2(b->info, O_CLOEXEC) < 0 || fcntl(b->info[0], F_SETFL, O_NONBLOCK) < 0 ||
	    socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, b->args) < 0 ||
	    socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, b->block) < 0)
		return err_sys(e, errno, "cannot create the sockets cordon talks to bwrap over "
			       "(too many open files? check ulimit -n)");
	return 0;
}

void bwrap_fill_opts(const struct bwrap *b, struct bwrap_opts *o)
{
	o->info_fd = b->info[1];
	o->userns_block_fd = b->block[0];
}

size_t bwrap_keep(const struct bwrap *b, int keep[3])
{
	keep[0] = b->info[1];
	keep[1] = b->args[0];
	keep[2] = b->block[0];
	return 3;
}

static int end_bwrap(struct bwrap *b);

/* The list of bwrap's children, held from its start: a start that fails for
 * want of descriptors (EMFILE) must still find bwrap's blocked child to kill
 * it (kill_listed_children), or it waits for its release for ever.  A
 * kernel without the file (CONFIG_PROC_CHILDREN off) is left as before: -1. */
static int hold_children(struct bwrap *b, struct cordon_err *e)
{
	char path[64];
	(void)snprintf(path, sizeof(path), "/proc/%d/task/%d/children", (int)b->pid, (int)b->pid);
	b->children = open(path, O_RDONLY | O_CLOEXEC);
	if (b->children >= 0 || errno == ENOENT)
		return 0;
	int err = errno;
	(void)end_bwrap(b); /* it has no options yet: no child */
	return err_sys(e, err, "cannot open %s to keep track of bwrap (too many open files? "
		       "check ulimit -n)", path);
}

int bwrap_start(struct bwrap *b, const struct bwrap_start *s, struct cordon_err *e)
{
	struct argv argv = { 0 };
	int r = 0;
	r |= argv_push(&argv, "bwrap");
	r |= argv_push(&argv, "--args");
	r |= argv_push_int(&argv, b->args[0]);
	if (r < 0) {
		argv_free(&argv);
		return err_set(e, ENOMEM, "out of memory");
	}
	if ((r = bwrap_argv_command(s->opts, &argv, e)) < 0) {
		argv_free(&argv);
		return r;
	}
	/* bwrap starts with the caller's own limits: the user namespace it
	 * creates takes them as the ceiling of the caller's whole count, so a
	 * smaller one there would be shared by every sandbox of the caller
	 * (launch/sandbox_limits.c gives each sandbox its budget instead). */
	/* bwrap forwards no signal: one meant for the command (an agent stopping
	 * it sends SIGTERM to every process it started) would end bwrap, and
	 * the sandbox with it (--die-with-parent) before the command could
	 * clean up.  Ignored, it reaches the command through cordon, which gets
	 * it too, with --kill-after's grace.  cordon-inner and the command get
	 * the default back (inner/main.c, inner/spawn.c). */
	struct child_spec spec = {
		"bwrap", s->exec_fd, argv.v, s->envp, s->keep, s->nkeep, s->mask, s->stdio,
		NULL, 0, child_end_signals(),
	};
	/* In the caller's PID namespace, what the sandbox's PID 1 leaves when
	 * it dies comes to cordon rather than to the host's init (sweep_orphans). */
	if (b->shared_pidns && prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) < 0) {
		argv_free(&argv);
		return err_sys(e, errno, "--pid-ns inherit: cannot make cordon a child subreaper");
	}
	pid_t pid = child_spawn(&spec, e);
	argv_free(&argv);
	if (pid < 0)
		return (int)pid;
	b->pid = pid;
	/* bwrap's ends: with cordon's copy of the info pipe's write end
	 * closed, bwrap dying reads as end of file. */
	sys_close(&b->args[0]);
	sys_close(&b->block[0]);
	sys_close(&b->info[1]);
	return hold_children(b, e);
}

/* bwrap --args reads NUL-terminated options until end of file. */
int bwrap_send_args(struct bwrap *b, char *const *argv, size_t n, struct cordon_err *e)
{
	/* One buffer, sent whole: an argument per send woke bwrap, blocked in
	 * its read, once for each of them. */
	size_t total = 0;
	for (size_t i = 1; i < n; i++)
		total += strlen(argv[i]) + 1;
	char *buf = malloc(total ? total : 1);
	if (!buf)
		return err_set(e, ENOMEM, "out of memory");
	size_t off = 0;
	for (size_t i = 1; i < n; i++) {
		size_t len = strlen(argv[i]) + 1;
		memcpy(buf + off, argv[i], len);
		off += len;
	}
	int r = 0;
	for (off = 0; off < total;) {
		ssize_t w = send(b->args[1], buf + off, total - off, MSG_NOSIGNAL);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0) {
			r = -1;
			break;
		}
		off += (size_t)w;
	}
	free(buf);
	if (r < 0)
		return bwrap_fail(b, e);
	sys_close(&b->args[1]);
	b->args_sent = 1;
	return 0;
}

pid_t bwrap_parse_child_pid(const char *json)
{
	const char *k = strstr(json, "\"child-pid\"");
	if (!k)
		return 0;
	k = strchr(k, ':');
	if (!k)
		return 0;
	char *end = NULL;
	long v = strtol(k + 1, &end, 10);
	/* Only a complete number: the JSON may still be arriving. */
	if (end == k + 1 || (*end != ',' && *end != '\n' && *end != ' ' && *end != '}'))
		return 0;
	return v > 1 && v < (1L << 22) ? (pid_t)v : 0;
}

int bwrap_read_child(int info_rd, int timeout_ms, pid_t *child, struct cordon_err *e)
{
	char buf[512];
	size_t len = 0;
	for (;;) {
		struct pollfd p = { info_rd, POLLIN, 0 };
		int n0 = poll(&p, 1, timeout_ms);
		if (n0 < 0) {
			if (errno == EINTR)
				continue;
			return err_sys(e, errno, "waiting for bwrap");
		}
		if (n0 == 0)
			return err_set(e, ETIMEDOUT, "bwrap did not report its sandbox process");
		ssize_t n = read(info_rd, buf + len, sizeof(buf) - 1 - len);
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n <= 0)
			return err_set(e, n == 0 ? EIO : errno, "%s", not_built);
		len += (size_t)n;
		buf[len] = '\0';
		if ((*child = bwrap_parse_child_pid(buf)) > 0)
			return 0;
		if (len >= sizeof(buf) - 1)
			return err_set(e, EPROTO, "bwrap's --info-fd output names no child-pid");
	}
}

int bwrap_map(struct bwrap *b, uid_t uid, gid_t gid, struct cordon_err *e)
{
	if (bwrap_read_child(b->info[0], -1, &b->child, e) < 0)
		return bwrap_fail(b, e);
	int r = userns_map(b->child, b->pid, uid, gid, e);
	/* The sandbox's user namespace, which tells its processes from
	 * cordon's own (sweep_orphans).  Still bwrap's unreaped child: its
	 * pid is not reused meanwhile. */
	char path[48];
	struct stat st;
	(void)snprintf(path, sizeof(path), "/proc/%d/ns/user", (int)b->child);
	if (r == 0 && b->shared_pidns && stat(path, &st) == 0) {
		b->userns_dev = st.st_dev;
		b->userns_ino = st.st_ino;
	}
	return r;
}

/* A process in the sandbox's user namespace (bwrap_map): the command can
 * leave it neither by setns nor by a new user namespace (its filter). */
static int in_sandbox(const struct bwrap *b, pid_t pid)
{
	char path[48];
	struct stat st;
	(void)snprintf(path, sizeof(path), "/proc/%d/ns/user", (int)pid);
	return stat(path, &st) == 0 && st.st_dev == b->userns_dev && st.st_ino == b->userns_ino;
}

#define SWEEP_BATCH 256
#define SWEEP_ROUNDS_MAX 10000

/* In the caller's PID namespace, what outlived the sandbox's PID 1 (killed
 * before its kill(-1) reached them, or dead of anything else) would live on
 * unwatched; cordon, a child subreaper there (bwrap_start), has them as its
 * children now.  Each round kills and reaps those of the sandbox's user
 * namespace among them (not the bridge, nor a detached task of cordon's);
 * what one of them forked meanwhile is the next round's, until none is
 * left. */
static void sweep_orphans(const struct bwrap *b)
{
	char path[64], buf[4096];
	if (!b->shared_pidns || !b->userns_ino)
		return;
	(void)snprintf(path, sizeof(path), "/proc/%d/task/%d/children", (int)getpid(), (int)getpid());
	for (int round = 0; round < SWEEP_ROUNDS_MAX; round++) {
		AUTO_FD fd = open(path, O_RDONLY | O_CLOEXEC);
		ssize_t n = fd < 0 ? -1 : sys_read_full(fd, buf, sizeof(buf) - 1);
		if (n <= 0)
			return;
		buf[n] = '\0';
		pid_t killed[SWEEP_BATCH];
		size_t nk = 0;
		for (char *p = buf, *end; *p && nk < SWEEP_BATCH; p = end) {
			long c = strtol(p, &end, 10);
			if (end == p)
				break;
			if (c > 1 && in_sandbox(b, (pid_t)c) && kill((pid_t)c, SIGKILL) == 0)
				killed[nk++] = (pid_t)c;
		}
		if (nk == 0)
			return;
		for (size_t i = 0; i < nk; i++) {
			int st;
			(void)sys_waitpid(killed[i], &st);
		}
	}
}

int bwrap_release(struct bwrap *b, struct cordon_err *e)
{
	if (send(b->block[1], "m", 1, MSG_NOSIGNAL) != 1)
		return bwrap_fail(b, e);
	b->released = 1;
	sys_close(&b->block[1]);
	return 0;
}

/* SIGKILL every child bwrap has: the pids listed in its task's children
 * file ("1234 1240 ").  The caller stopped bwrap, so each is still its
 * child (a stopped bwrap reaps nothing: no pid in the list can be reused)
 * and the list is complete (it cannot clone while stopped). */
static void kill_listed_children(const struct bwrap *b)
{
	char buf[512];
	int fd = b->children;
	/* Not held (a kernel without the file, a struct filled by hand):
	 * opened now, as long as a descriptor is left. */
	if (fd < 0) {
		char path[64];
		(void)snprintf(path, sizeof(path), "/proc/%d/task/%d/children", (int)b->pid,
			       (int)b->pid);
		fd = open(path, O_RDONLY | O_CLOEXEC);
	}
	ssize_t n = fd < 0 || lseek(fd, 0, SEEK_SET) < 0 ? -1 : sys_read_full(fd, buf, sizeof(buf) - 1);
	if (fd != b->children)
		sys_close(&fd);
	if (n <= 0)
		return;
	buf[n] = '\0';
	for (char *p = buf, *end; *p; p = end) {
		long c = strtol(p, &end, 10);
		if (end == p)
			break;
		if (c > 1)
			(void)kill((pid_t)c, SIGKILL);
	}
}

/* Kill bwrap's children first (see bwrap.h): bwrap's child waits for its
 * release, and a bwrap killed alone leaves it waiting forever.  bwrap is
 * stopped (it is cordon's child: waitid says when), so that it cannot
 * clone meanwhile, and every child it has then is killed.  This used to
 * read the child's pid from --info-fd, for at most 2 s: a bwrap slower
 * than that to clone (a loaded machine) was killed just after, its child
 * left blocked, and the guardian dismissed. */
static void kill_child(struct bwrap *b)
{
	siginfo_t si;
	if (!b->args_sent)
		return; /* no options, no clone */
	if (kill(b->pid, SIGSTOP) < 0)
		return;
	memset(&si, 0, sizeof(si));
	int r;
	while ((r = waitid(P_PID, (id_t)b->pid, &si, WSTOPPED | WEXITED | WNOWAIT)) < 0 &&
	       errno == EINTR) {
	}
	if (r == 0 && si.si_code == CLD_STOPPED) {
		kill_listed_children(b);
		return;
	}
	/* It exited first: its child, if any, is no longer its own to find
	 * here (the guardian ends whoever holds the sandbox's socket). */
}

static int sandbox_runs(const struct bwrap *b);

/* End bwrap (if it runs) and its child, and reap it; its wait status. */
static int end_bwrap(struct bwrap *b)
{
	int st = 0;
	if (b->pid <= 0)
		return 0;
	/* Released, the command may have run: in the caller's PID namespace only
	 * cordon-inner's kill(-1) ends what it left (bwrap_kill). */
	if (b->shared_pidns && b->released && sandbox_runs(b) && bwrap_kill_wait(b, &st, NULL) == 1)
		return st;
	kill_child(b);
	(void)kill(b->pid, SIGKILL);
	(void)sys_waitpid(b->pid, &st);
	b->pid = 0;
	sweep_orphans(b);
	return st;
}

int bwrap_fail(struct bwrap *b, struct cordon_err *e)
{
	/* It has exited or is exiting (it said why before closing its end);
	 * should it not be, a malformed --info-fd stream, it must not stay
	 * blocked waiting for its release. */
	int st = end_bwrap(b);
	if (WIFEXITED(st) && WEXITSTATUS(st) == EXIT_CORDON_FAILED) {
		e->msg[0] = '\0'; /* cordon's child could not exec it and said so */
		return -EIO;
	}
	return err_set(e, EIO, "%s", not_built);
}

/* PID 1 is known and still there: bwrap is not reaped (it exits only
 * after its child). */
static int sandbox_runs(const struct bwrap *b)
{
	return b->pid > 0 && b->child > 1;
}

void bwrap_signal(const struct bwrap *b, int sig)
{
	if (sandbox_runs(b))
		(void)kill(b->child, sig); /* gone already: bwrap_reap says so next */
}

void bwrap_kill_cgroup(struct bwrap *b, int fd)
{
	b->cgroup_kill = fd;
}

void bwrap_share_pidns(struct bwrap *b)
{
	b->shared_pidns = 1;
}

static long long mono_ms(void)
{
	struct timespec ts;
	(void)clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* SIGKILL to PID 1, and the run's cgroup.kill. */
static void kill_pid1(const struct bwrap *b)
{
	(void)kill(b->child, SIGKILL);
	if (b->cgroup_kill >= 0 && pwrite(b->cgroup_kill, "1", 1, 0) < 0) {
		/* Nothing more to do: PID 1's SIGKILL still ends the rest. */
	}
}

void bwrap_kill(struct bwrap *b)
{
	if (!sandbox_runs(b))
		return;
	/* In the caller's PID namespace PID 1's death takes nothing with it:
	 * its orphans would go on, adopted by the host's (or the container's)
	 * init, unwatched.  Only cordon-inner's kill(-1), scoped by Landlock to
	 * the sandbox's domain, reaches all of them at once, forks racing it
	 * included: asked first, PID 1 killed after the grace. */
	if (b->shared_pidns && kill(b->child, WIRE_END_SIGNAL) == 0) {
		if (b->cgroup_kill >= 0 && pwrite(b->cgroup_kill, "1", 1, 0) < 0) {
			/* PID 1's kill(-1) still ends them. */
		}
		if (!b->end_by)
			b->end_by = mono_ms() + BWRAP_END_GRACE_MS;
		return;
	}
	kill_pid1(b);
}

void bwrap_end(struct bwrap *b, long long now)
{
	if (!sandbox_runs(b))
		return;
	if (kill(b->child, WIRE_END_SIGNAL) < 0)
		kill_pid1(b);
	else if (!b->end_by)
		b->end_by = now + BWRAP_END_GRACE_MS;
}

long long bwrap_end_due(struct bwrap *b, long long now)
{
	if (b->end_by && now >= b->end_by) {
		b->end_by = 0;
		if (sandbox_runs(b))
			kill_pid1(b);
	}
	return b->end_by;
}

int bwrap_kill_wait(struct bwrap *b, int *wstatus, struct rusage *ru)
{
	bwrap_kill(b);
	for (;;) {
		int r = bwrap_reap(b, wstatus, ru);
		if (r != 0)
			return r;
		if (!bwrap_end_due(b, mono_ms())) {
			/* PID 1 was killed; bwrap too, which may be waiting for
			 * anything (a release that will not come). */
			(void)kill(b->pid, SIGKILL);
			pid_t w;
			while ((w = wait4(b->pid, wstatus, 0, ru)) < 0 && errno == EINTR) {
			}
			if (w < 0)
				return -errno;
			b->pid = 0;
			sweep_orphans(b);
			return 1;
		}
		struct timespec ts = { 0, 10 * 1000000L };
		(void)nanosleep(&ts, NULL);
	}
}

int bwrap_reap(struct bwrap *b, int *wstatus, struct rusage *ru)
{
	if (b->pid <= 0)
		return -ECHILD;
	pid_t w = wait4(b->pid, wstatus, WNOHANG, ru);
	if (w == b->pid) {
		b->pid = 0;
		b->end_by = 0;
		sweep_orphans(b);
		return 1;
	}
	if (w < 0 && errno != EINTR)
		return -errno;
	return 0;
}

void bwrap_close(struct bwrap *b)
{
	(void)end_bwrap(b);
	b->cgroup_kill = -1; /* borrowed: its owner closes it */
	int *fds[] = { &b->args[0], &b->args[1], &b->info[0], &b->info[1],
		       &b->block[0], &b->block[1], &b->children };
	for (size_t i = 0; i < sizeof(fds) / sizeof(fds[0]); i++)
		sys_close(fds[i]);
}
