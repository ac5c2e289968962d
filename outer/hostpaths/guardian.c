/* guardian.c: see guardian.h. */
#include "hostpaths/guardian.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <dirent.h>
#include "wire_guardian.h"
#include "procstat.h"
#include "hostpaths/registry_sweep.h"
#include "sys.h"

#define READY_TIMEOUT_MS 5000
#define POLL_FALLBACK_MS 20
#define MAX_CHILDREN 16
#define KILL_PASSES 256
#define KILL_GRACE_MS 500
#define KILL_GRACE_STEP_MS 25

static int pidfd_open_compat(pid_t pid)
{
#ifdef SYS_pidfd_open
	return (int)syscall(SYS_pidfd_open, pid, 0);
#else
	(void)pid;
	errno = ENOSYS;
	return -1;
#endif
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

/* 1 while pid is the process that started at `start`. */
static int same_process(pid_t pid, uint64_t start)
{
	uint64_t now;
	return procstat_start(pid, &now) == 0 && now == start;
}

/* 1 while the process of a pidfd has not exited (so its pid is still its). */
static int alive(int pidfd)
{
	struct pollfd p = { pidfd, POLLIN, 0 };
	int r;
	do
		r = poll(&p, 1, 0);
	while (r < 0 && errno == EINTR);
	return r == 0;
}

/* bwrap's children (the sandbox's PID 1): they get SIGKILL when bwrap dies,
 * but may still be running for a moment after; their mounts live as long as
 * they do.  pidfds of those still children of bwrap, to wait for them. */
static size_t sandbox_children(pid_t bwrap, int *fds, size_t max)
{
	char path[64], buf[512];
	size_t n = 0;
	(void)snprintf(path, sizeof(path), "/proc/%d/task/%d/children", (int)bwrap, (int)bwrap);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	ssize_t len = sys_read_full(fd, buf, sizeof(buf) - 1);
	sys_close(&fd);
	if (len <= 0)
		return 0;
	buf[len] = '\0';
	char *save = NULL;
	for (char *tok = strtok_r(buf, " \n", &save); tok && n < max;
	     tok = strtok_r(NULL, " \n", &save)) {
		long c = strtol(tok, NULL, 10);
		if (c <= 0)
			continue;
		int pfd = pidfd_open_compat((pid_t)c);
		if (pfd < 0)
			continue;
		/* Opened after the listing: make sure it is still bwrap's. */
		char line[512];
		unsigned long long ppid = 0;
		if (procstat_read(-1, (pid_t)c, line, sizeof(line)) > 0 &&
		    procstat_field(line, 4, &ppid) == 0 && ppid == (unsigned long long)bwrap)
			fds[n++] = pfd;
		else
			sys_close(&pfd);
	}
	return n;
}

/* Wait until bwrap (pidfd, or pid and start time) and the given children
 * have all exited. */
static void wait_gone(pid_t pid, uint64_t start, int pidfd, int *kids, size_t nkids)
{
	struct pollfd p[MAX_CHILDREN + 1];
	size_t n = 0;
	if (pidfd >= 0)
		p[n++] = (struct pollfd){ pidfd, POLLIN, 0 };
	for (size_t i = 0; i < nkids; i++)
		p[n++] = (struct pollfd){ kids[i], POLLIN, 0 };
	for (;;) {
		int left = 0;
		for (size_t i = 0; i < n; i++)
			if (p[i].fd >= 0)
				left = 1;
		int polling = pidfd < 0 && pid > 0 && same_process(pid, start);
		if (!left && !polling)
			return;
		int r = poll(p, (nfds_t)n, polling ? POLL_FALLBACK_MS : -1);
		if (r < 0 && errno != EINTR) {
			/* Cannot watch: fall back to polling each pid. */
			sleep_ms(POLL_FALLBACK_MS);
			continue;
		}
		for (size_t i = 0; i < n; i++)
			if (p[i].fd >= 0 && (p[i].revents & (POLLIN | POLLHUP | POLLERR | POLLNVAL)))
				p[i].fd = -1;
	}
}

/* One pass over /proc: SIGKILL each process holding socket inode `want`
 * ("socket:[N]"), with pidfds of them in fds[] to wait for.  Their count. */
static size_t kill_holders_once(const char *want, int *fds, size_t max)
{
	char link[64], dir[64];
	size_t n = 0;
	DIR *proc = opendir("/proc");
	if (!proc)
		return 0;
	for (struct dirent *de; n < max && (de = readdir(proc));) {
		char *end;
		long pid = strtol(de->d_name, &end, 10);
		if (pid <= 0 || *end || pid == (long)getpid())
			continue;
		(void)snprintf(dir, sizeof(dir), "/proc/%ld/fd", pid);
		int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		DIR *fds_dir = dfd >= 0 ? fdopendir(dfd) : NULL;
		if (!fds_dir) {
			sys_close(&dfd);
			continue; /* not ours to look at (another user's) */
		}
		int hit = 0;
		for (struct dirent *f; !hit && (f = readdir(fds_dir));) {
			ssize_t len = readlinkat(dirfd(fds_dir), f->d_name, link, sizeof(link) - 1);
			if (len > 0) {
				link[len] = '\0';
				hit = strcmp(link, want) == 0;
			}
		}
		(void)closedir(fds_dir);
		if (!hit)
			continue;
		/* The pidfd is taken after the look: the holder would have to
		 * die and its pid be reused in between, by a process of this
		 * user, for the kill to miss; a holder is killed by this pass or
		 * found by the next. */
		int pfd = pidfd_open_compat((pid_t)pid);
		if (pfd < 0)
			continue;
		if (syscall(SYS_pidfd_send_signal, pfd, SIGKILL, NULL, 0) == 0)
			fds[n++] = pfd;
		else
			sys_close(&pfd);
	}
	(void)closedir(proc);
	return n;
}

/* Whoever still holds the sandbox's end of its control socket (inode ino) is
 * a process of this run: bwrap's child, blocked for good on bwrap's
 * internal event counter when bwrap died (with cordon, --die-with-parent)
 * before releasing it, or cordon-inner and its command if bwrap died before
 * its child armed its own parent-death signal.  Nothing else can end them.
 * A bwrap killed while it clones leaves a child the pass that killed it did
 * not see: passes repeat, each after the last one's processes are gone,
 * until one finds nobody and KILL_GRACE_MS have passed. */
static void kill_holders(ino_t ino)
{
	char want[48];
	int fds[MAX_CHILDREN];
	struct timespec t0, now;
	(void)snprintf(want, sizeof(want), "socket:[%llu]", (unsigned long long)ino);
	(void)clock_gettime(CLOCK_MONOTONIC, &t0);
	for (int pass = 0; pass < KILL_PASSES; pass++) {
		size_t n = kill_holders_once(want, fds, MAX_CHILDREN);
		if (n > 0) {
			wait_gone(0, 0, -1, fds, n);
			for (size_t i = 0; i < n; i++)
				sys_close(&fds[i]);
			continue;
		}
		/* Nobody now; a holder /proc did not show a moment ago (a
		 * process of bwrap's briefly undumpable while it changes its
		 * credentials, one being cloned) shows up within a moment:
		 * keep looking for KILL_GRACE_MS after cordon's end. */
		(void)clock_gettime(CLOCK_MONOTONIC, &now);
		long ms = (now.tv_sec - t0.tv_sec) * 1000 + (now.tv_nsec - t0.tv_nsec) / 1000000;
		if (ms >= KILL_GRACE_MS)
			return;
		sleep_ms(KILL_GRACE_STEP_MS);
	}
}

/* Listen to cordon until "done" (exit), or its end of file or a record that
 * breaks the protocol (clean up).  *sb and *pidfd: the bwrap to wait for. */
static int listen_to_cordon(int sock, struct gwire_sandbox *sb, int *pidfd)
{
	struct wire_peer peer = { GWIRE_TO_GUARDIAN, 0 };
	for (;;) {
		struct wire_rec rec;
		struct cordon_err e;
		int r = wire_recv_proto(&gwire_proto, sock, &peer, &rec, &e);
		/* cordon closing its end with "ready" unread sets ECONNRESET
		 * on this one, reported once, ahead of the records it sent
		 * before ("done"): read on. */
		if (r == -ECONNRESET)
			continue;
		if (r <= 0)
			return 0;
		if (rec.type == GWIRE_DONE)
			return 1;
		if (rec.type == GWIRE_SANDBOX && gwire_sandbox_parse(rec.data, rec.len, sb) == 0) {
			*pidfd = rec.fd;
			continue;
		}
		sys_close(&rec.fd);
		memset(sb, 0, sizeof(*sb));
		return 0;
	}
}

/* The guardian's life once it runs on its own.  It is a process of its own
 * now, single-threaded (cordon has no threads, and fork copies only the
 * calling one), so ordinary library calls are safe here.  It never returns
 * and never calls exit(): that would flush stdio buffers copied from cordon.
 * `from` is cordon's registry handle as fork copied it: only its dirfd is
 * still open here, and the guardian makes a handle of its own from it. */
static void __attribute__((noreturn)) guardian_main(int sock, const struct registry *from,
						      const char *name, ino_t sandbox_sock)
{
	struct gwire_sandbox sb = { 0 };
	int pidfd = -1;
	struct cordon_err e;
	struct registry reg = REGISTRY_INIT;

	/* cordon knows this process's pid and start time already (it read
	 * them from /proc for its unreaped child): "ready" says only that it
	 * runs on its own now. */
	/* Without a handle of its own (the registry changed under it), it
	 * still ends what is left of the run; the record stays for the next
	 * sweep. */
	int have_reg = 0;
	if (from) {
		have_reg = registry_dup(from, &reg, &e) == 0;
		int inherited = from->dirfd;
		sys_close(&inherited);
	}
	/* If cordon is gone already, there is nobody to tell, but all the
	 * more to clean up. */
	int sent = wire_send(sock, GWIRE_READY, NULL, 0, -1);
	(void)sent;
	if (listen_to_cordon(sock, &sb, &pidfd))
		_exit(0);

	if (sandbox_sock)
		kill_holders(sandbox_sock);
	int kids[MAX_CHILDREN];
	size_t nkids = 0;
	pid_t sandbox = sb.pid;
	if (sandbox > 0 && (pidfd >= 0 ? alive(pidfd) : same_process(sandbox, sb.start)))
		nkids = sandbox_children(sandbox, kids, MAX_CHILDREN);
	wait_gone(sandbox, sb.start, pidfd, kids, nkids);

	/* cordon is gone and so is its sandbox: release its record exactly as
	 * cordon would have.  A failure leaves the record to the next sweep. */
	if (have_reg && registry_lock(&reg, &e) == 0 &&
	    registry_sweep(&reg, name, NULL, NULL, &e) < 0) {
		/* Nobody to tell: the record stays for the next sweep. */
	}
	registry_close(&reg);
	_exit(0);
}

/* The child, still a copy of cordon: only async-signal-safe calls until it
 * is settled in its own session. */
static void __attribute__((noreturn)) guardian_child(int sock, const struct registry *reg,
						       const char *name, ino_t sandbox_sock)
{
	static const int ignored[] = {
		SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGPIPE, SIGUSR1, SIGUSR2,
		SIGTSTP, SIGTTIN, SIGTTOU,
	};
	/* A session (and process group) of its own: a kill of cordon's group
	 * or session (an agent ending a job) does not reach it.  As a session
	 * leader it would acquire a controlling terminal by opening one; it
	 * opens nothing but /dev/null, /proc and the registry's regular files. */
	if (setsid() < 0)
		_exit(1);
	int keep[2] = { sock, reg ? reg->dirfd : -1 };
	if (sys_close_except(keep, reg ? 2 : 1) < 0)
		_exit(1);
	int nul = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (nul < 0 || dup2(nul, 0) < 0 || dup2(nul, 1) < 0 || dup2(nul, 2) < 0)
		_exit(1);
	if (nul > 2)
		(void)close(nul);
	if (chdir("/") < 0)
		_exit(1);
	/* Its job is to outlive cordon and finish the cleanup: a hangup, an
	 * interrupt or a polite termination must not cut it short (it exits
	 * by itself as soon as cordon and the sandbox are gone; SIGKILL still
	 * ends it, and then the next sweep cleans up). */
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_IGN;
	for (size_t i = 0; i < sizeof(ignored) / sizeof(ignored[0]); i++)
		(void)sigaction(ignored[i], &sa, NULL);
	sigset_t none;
	sigemptyset(&none);
	(void)sigprocmask(SIG_SETMASK, &none, NULL);
	(void)prctl(PR_SET_NAME, "cordon-guardian", 0, 0, 0);
	guardian_main(sock, reg, name, sandbox_sock);
}

int guardian_start(struct guardian *g, const struct registry *reg, const char *name,
		   ino_t sandbox_sock, struct cordon_err *e)
{
	int sv[2];
	*g = (struct guardian)GUARDIAN_INIT;
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0)
		return err_sys(e, errno, "cannot start the guardian: socketpair");
	/* One fork, not a double fork: the guardian is reparented when cordon
	 * exits either way, and as cordon's unreaped child its pid cannot be
	 * reused, so its start time read here names it exactly. */
	pid_t pid = fork();
	if (pid < 0) {
		int err = errno;
		sys_close(&sv[0]);
		sys_close(&sv[1]);
		return err_sys(e, err, "cannot start the guardian: fork");
	}
	if (pid == 0)
		guardian_child(sv[1], reg, name, sandbox_sock);
	sys_close(&sv[1]);
	g->sock = sv[0];
	g->pid = pid;
	int r = procstat_start(pid, &g->start);
	if (r < 0) {
		guardian_abandon(g);
		return err_sys(e, -r, "cannot start the guardian: reading its start time");
	}
	return 0;
}

int guardian_confirm(struct guardian *g, struct cordon_err *e)
{
	if (g->sock < 0 || g->pid <= 0)
		return err_set(e, ECHILD, "internal: no guardian to confirm");
	struct pollfd p = { g->sock, POLLIN, 0 };
	int r;
	do
		r = poll(&p, 1, READY_TIMEOUT_MS);
	while (r < 0 && errno == EINTR);
	struct wire_peer peer = { GWIRE_TO_CORDON, 0 };
	struct wire_rec rec;
	struct cordon_err re;
	int n = r == 1 ? wire_recv_proto(&gwire_proto, g->sock, &peer, &rec, &re) : -ETIMEDOUT;
	if (n == 1 && rec.type == GWIRE_READY)
		return 0;
	if (n == 0)
		n = -EPROTO;
	sys_close(&g->sock);
	return err_set(e, n < 0 ? (int)-n : EPROTO,
		       "the guardian did not start (it cleans up if cordon is killed); "
		       "check that this system allows cordon to fork");
}

int guardian_watch(struct guardian *g, pid_t bwrap, uint64_t start, struct cordon_err *e)
{
	if (g->sock < 0)
		return 0;
	/* bwrap is cordon's unreaped child here, so its pid cannot have been
	 * reused: the pidfd is the guardian's race-free handle on it. */
	AUTO_FD pfd = pidfd_open_compat(bwrap);
	struct gwire_sandbox sb = { (int32_t)bwrap, 0, start };
	int r = wire_send(g->sock, GWIRE_SANDBOX, &sb, sizeof(sb), pfd);
	return r < 0 ? err_sys(e, -r, "cannot reach the guardian") : 0;
}

/* Reap the guardian if it has exited already (it is cordon's child);
 * otherwise it is reparented when cordon exits. */
static void reap_if_gone(struct guardian *g)
{
	if (g->pid > 0)
		(void)waitpid(g->pid, NULL, WNOHANG);
	g->pid = 0;
}

void guardian_done(struct guardian *g)
{
	if (g->sock >= 0) {
		/* If the guardian is gone already there is nobody to tell. */
		int r = wire_send(g->sock, GWIRE_DONE, NULL, 0, -1);
		(void)r;
	}
	sys_close(&g->sock);
	reap_if_gone(g);
}

void guardian_abandon(struct guardian *g)
{
	sys_close(&g->sock);
	reap_if_gone(g);
}
