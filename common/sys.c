/* sys.c: see sys.h. */
#include "sys.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sys/inotify.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int sys_write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;
	while (len > 0) {
		ssize_t n = write(fd, p, len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

ssize_t sys_read_full(int fd, void *buf, size_t len)
{
	char *p = buf;
	size_t got = 0;
	while (got < len) {
		ssize_t n = read(fd, p + got, len - got);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (n == 0)
			break;
		got += (size_t)n;
	}
	return (ssize_t)got;
}

void sys_close(int *fd)
{
	if (*fd >= 0) {
		int saved = errno;
		(void)close(*fd);
		errno = saved;
		*fd = -1;
	}
}

static int close_span(unsigned lo, unsigned hi)
{
	if (lo > hi)
		return 0;
#ifdef SYS_close_range
	if (syscall(SYS_close_range, lo, hi, 0) == 0)
		return 0;
	if (errno != ENOSYS)
		return -errno;
#endif
	long max = sysconf(_SC_OPEN_MAX);
	if (max < 0)
		max = 65536;
	for (unsigned fd = lo; fd <= hi && fd < (unsigned)max; fd++)
		(void)close((int)fd);
	return 0;
}

int sys_close_except(const int *keep, size_t nkeep)
{
	/* keep[] is tiny: walk the gaps between kept descriptors in order. */
	unsigned lo = 3;
	for (;;) {
		unsigned next = UINT_MAX;
		for (size_t i = 0; i < nkeep; i++)
			if (keep[i] >= (int)lo && (unsigned)keep[i] < next)
				next = (unsigned)keep[i];
		int r = close_span(lo, next == UINT_MAX ? UINT_MAX : next - 1);
		if (r < 0)
			return r;
		if (next == UINT_MAX)
			return 0;
		lo = next + 1;
	}
}

pid_t sys_waitpid(pid_t pid, int *status)
{
	pid_t r;
	while ((r = waitpid(pid, status, 0)) < 0 && errno == EINTR)
		;
	return r;
}

int sys_set_inheritable(int fd)
{
	int flags = fcntl(fd, F_GETFD);
	if (flags < 0 || fcntl(fd, F_SETFD, flags & ~FD_CLOEXEC) < 0)
		return -errno;
	return 0;
}

void sys_sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

int sys_raise_nofile(unsigned long long *orig)
{
	struct rlimit rl;
	if (getrlimit(RLIMIT_NOFILE, &rl) < 0)
		return -errno;
	*orig = rl.rlim_cur;
	if (rl.rlim_cur == rl.rlim_max)
		return 0;
	rl.rlim_cur = rl.rlim_max;
	return setrlimit(RLIMIT_NOFILE, &rl) < 0 ? -errno : 0;
}

long long sys_now_ms(void)
{
	struct timespec ts;
	(void)clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int sys_random_hex(char *out, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	unsigned char b[64];
	size_t got = 0;
	if (n > sizeof(b))
		return -EINVAL;
	while (got < n) {
		ssize_t r = getrandom(b + got, n - got, 0);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -errno;
		got += (size_t)r;
	}
	for (size_t i = 0; i < n; i++) {
		out[2 * i] = hex[b[i] >> 4];
		out[2 * i + 1] = hex[b[i] & 15];
	}
	out[2 * n] = '\0';
	return 0;
}

int sys_detach_stdio(void)
{
	int nul = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (nul < 0 || dup2(nul, 0) < 0 || dup2(nul, 1) < 0 || dup2(nul, 2) < 0)
		return -1;
	if (nul > 2)
		(void)close(nul);
	return chdir("/") < 0 ? -1 : 0;
}

void sys_inotify_drain(int fd, sys_inotify_fn *fn, void *ctx)
{
	char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
	for (;;) {
		ssize_t n = read(fd, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return;
		for (char *p = buf; p < buf + n;) {
			const struct inotify_event *ev = (const struct inotify_event *)p;
			fn(ctx, ev);
			p += sizeof(*ev) + ev->len;
		}
	}
}
