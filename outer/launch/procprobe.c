/* procprobe.c: see procprobe.h. */
#include "launch/procprobe.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdlib.h>
#include <sys/mount.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <unistd.h>
#include "sys.h"

struct probe_msg {
	int stage;
	int err;
};

/* Only async-signal-safe calls from here on (cordon may have threads). */
static void say(int fd, int stage, int err)
{
	struct probe_msg m = { stage, err };
	(void)!write(fd, &m, sizeof(m));
}

/* The probe's first process of its PID namespace: the proc mount is made
 * for the mounter's own PID namespace, so only a process inside the new
 * one can try it. */
static void probe_child(int fd)
{
	if (unshare(CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWPID) < 0) {
		say(fd, PROCMODE_STAGE_UNSHARE, errno);
		_exit(1);
	}
	pid_t g = fork();
	if (g < 0) {
		say(fd, PROCMODE_STAGE_FORK, errno);
		_exit(1);
	}
	if (g == 0) {
		/* Private first: the mount must not propagate anywhere, even
		 * though this mount namespace dies with the probe. */
		if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0) {
			say(fd, PROCMODE_STAGE_PRIVATE, errno);
			_exit(1);
		}
		if (mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) < 0) {
			say(fd, PROCMODE_STAGE_MOUNT, errno);
			_exit(1);
		}
		say(fd, PROCMODE_STAGE_DONE, 0);
		_exit(0);
	}
	int st;
	while (waitpid(g, &st, 0) < 0 && errno == EINTR)
		;
	_exit(0);
}

static enum procmode_verdict run_probe(void)
{
	int p[2];
	if (pipe2(p, O_CLOEXEC) < 0)
		return PROCMODE_UNKNOWN;
	pid_t c = fork();
	if (c < 0) {
		sys_close(&p[0]);
		sys_close(&p[1]);
		return PROCMODE_UNKNOWN;
	}
	if (c == 0) {
		(void)close(p[0]);
		probe_child(p[1]);
	}
	sys_close(&p[1]);
	struct probe_msg m = { 0, 0 };
	ssize_t n = sys_read_full(p[0], &m, sizeof(m));
	sys_close(&p[0]);
	int st;
	(void)sys_waitpid(c, &st);
	if (n != (ssize_t)sizeof(m))
		return PROCMODE_UNKNOWN;
	return procmode_verdict(m.stage, m.err);
}

static int mounts_suspect(void)
{
	AUTO_FD fd = open("/proc/self/mountinfo", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 1; /* no /proc to read: let the probe say */
	size_t cap = 16384, len = 0;
	char *buf = malloc(cap);
	for (;;) {
		if (!buf)
			return 1;
		ssize_t n = read(fd, buf + len, cap - 1 - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += (size_t)n;
		if (len == cap - 1) {
			char *nb = realloc(buf, cap * 2);
			if (!nb)
				free(buf);
			buf = nb;
			cap *= 2;
		}
	}
	buf[len] = '\0';
	int r = procmode_suspect(buf);
	free(buf);
	return r;
}

enum procmode_verdict procprobe_fresh_proc(void)
{
	static enum procmode_verdict cached = PROCMODE_NOT_PROBED;
	static int done;
	if (!done) {
		cached = mounts_suspect() ? run_probe() : PROCMODE_NOT_PROBED;
		done = 1;
	}
	return cached;
}

int procprobe_sysctl_ro(void)
{
	struct statvfs sv;
	return statvfs("/proc/sys", &sv) == 0 && (sv.f_flag & ST_RDONLY);
}
