/* guardian_scan.c: see guardian_scan.h. */
#include "hostpaths/guardian_scan.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include "procstat.h"
#include "sys.h"

#define POLL_FALLBACK_MS 20
#define KILL_PASSES 256
#define KILL_GRACE_MS 500
#define KILL_GRACE_STEP_MS 25
#define KILL_WAIT_MS 1000

int gscan_pidfd_open(pid_t pid)
{
#ifdef SYS_pidfd_open
	return (int)syscall(SYS_pidfd_open, pid, 0);
#else
	(void)pid;
	errno = ENOSYS;
	return -1;
#endif
}

/* 1 while pid is the process that started at `start`. */
int gscan_same_process(pid_t pid, uint64_t start)
{
	uint64_t now;
	return procstat_start(pid, &now) == 0 && now == start;
}

/* 1 while the process of a pidfd has not exited (so its pid is still its). */
int gscan_alive(int pidfd)
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
size_t gscan_sandbox_children(pid_t bwrap, int *fds, size_t max)
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
		int pfd = gscan_pidfd_open((pid_t)c);
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

int gscan_wait_gone(pid_t pid, uint64_t start, int pidfd, int *kids, size_t nkids, long timeout_ms)
{
	struct pollfd p[GSCAN_MAX_CHILDREN + 1];
	size_t n = 0;
	long long until = sys_now_ms() + timeout_ms;
	if (pidfd >= 0)
		p[n++] = (struct pollfd){ pidfd, POLLIN, 0 };
	for (size_t i = 0; i < nkids; i++)
		p[n++] = (struct pollfd){ kids[i], POLLIN, 0 };
	for (;;) {
		int left = 0;
		for (size_t i = 0; i < n; i++)
			if (p[i].fd >= 0)
				left = 1;
		int polling = pidfd < 0 && pid > 0 && gscan_same_process(pid, start);
		if (!left && !polling)
			return 0;
		long long ms = until - sys_now_ms();
		if (ms <= 0)
			return -ETIMEDOUT;
		if (polling && ms > POLL_FALLBACK_MS)
			ms = POLL_FALLBACK_MS;
		int r = poll(p, (nfds_t)n, (int)ms);
		if (r < 0 && errno != EINTR) {
			/* Cannot watch: fall back to polling each pid. */
			sys_sleep_ms(POLL_FALLBACK_MS);
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
		int pfd = gscan_pidfd_open((pid_t)pid);
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
void gscan_kill_holders(ino_t ino)
{
	char want[48];
	int fds[GSCAN_MAX_CHILDREN];
	struct timespec t0, now;
	(void)snprintf(want, sizeof(want), "socket:[%llu]", (unsigned long long)ino);
	(void)clock_gettime(CLOCK_MONOTONIC, &t0);
	for (int pass = 0; pass < KILL_PASSES; pass++) {
		size_t n = kill_holders_once(want, fds, GSCAN_MAX_CHILDREN);
		if (n > 0) {
			/* SIGKILLed: gone in a moment, unless stuck in the
			 * kernel; then the next pass finds it again, and the
			 * passes are counted. */
			(void)gscan_wait_gone(0, 0, -1, fds, n, KILL_WAIT_MS);
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
		sys_sleep_ms(KILL_GRACE_STEP_MS);
	}
}

/* Listen to cordon until "done" (exit), or its end of file or a record that
 * breaks the protocol (clean up).  *sb and *pidfd: the bwrap to wait for. */
