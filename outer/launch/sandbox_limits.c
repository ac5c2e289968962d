/* sandbox_limits.c: see sandbox_limits.h. */
#include "launch/sandbox_limits.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include "sys.h"

static int set_limit(pid_t pid, int res, const char *flag, unsigned long long soft,
		     unsigned long long hard, struct cordon_err *e)
{
	struct rlimit own, want;
	if (prlimit(0, res, NULL, &own) < 0)
		return err_sys(e, errno, "%s: cannot read cordon's own limit", flag);
	want.rlim_max = own.rlim_max != RLIM_INFINITY && own.rlim_max < hard ? own.rlim_max : hard;
	want.rlim_cur = soft < want.rlim_max ? soft : want.rlim_max;
	if (prlimit(pid, res, &want, NULL) < 0)
		return err_sys(e, errno, "%s: cannot set the limit on the sandbox (process %d)", flag,
			       (int)pid);
	return 0;
}

/* In the forked helper: enter the PID namespace, fork once more (only a
 * child lands in it), and have that child write /proc/sys/kernel/pid_max,
 * which the kernel applies to the writer's own PID namespace.  Only
 * async-signal-safe calls; the exit status carries the errno. */
static void pid_max_helper(int nsfd, const char *value, size_t len)
{
	if (setns(nsfd, CLONE_NEWPID) < 0)
		_exit(errno & 0x7f);
	pid_t g = fork();
	if (g < 0)
		_exit(errno & 0x7f);
	if (g == 0) {
		int fd = open("/proc/sys/kernel/pid_max", O_WRONLY | O_CLOEXEC);
		if (fd < 0)
			_exit(errno & 0x7f);
		_exit(write(fd, value, len) == (ssize_t)len ? 0 : (errno & 0x7f) | 0x80);
	}
	int st;
	while (waitpid(g, &st, 0) < 0)
		if (errno != EINTR)
			_exit(ECHILD);
	_exit(WIFEXITED(st) ? WEXITSTATUS(st) : EIO);
}

static int set_pid_max(pid_t sandbox, unsigned long pid_max, struct cordon_err *e)
{
	char path[48], value[24];
	(void)snprintf(path, sizeof(path), "/proc/%d/ns/pid", (int)sandbox);
	int len = snprintf(value, sizeof(value), "%lu\n", pid_max);
	AUTO_FD ns = open(path, O_RDONLY | O_CLOEXEC);
	if (ns < 0)
		return err_sys(e, errno, "--limit-pids: cannot open the sandbox's PID namespace");
	pid_t c = fork();
	if (c < 0)
		return err_sys(e, errno, "--limit-pids: cannot fork");
	if (c == 0)
		pid_max_helper(ns, value, (size_t)len);
	int st = 0;
	if (sys_waitpid(c, &st) < 0)
		return err_sys(e, errno, "--limit-pids: waiting for the helper");
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
		int err = WIFEXITED(st) ? WEXITSTATUS(st) & 0x7f : EIO;
		return err_sys(e, err ? err : EIO,
			       "cannot set pid_max in the sandbox's PID namespace (Linux 6.14+ "
			       "needed to count a root caller's processes)");
	}
	return 0;
}

int sandbox_limits_apply(pid_t sandbox, const struct limits_plan *p, struct cordon_err *e)
{
	int r = 0;
	if (p->pids_way == LIMITS_PIDS_RLIMIT)
		r = set_limit(sandbox, RLIMIT_NPROC, "--limit-pids", p->pids, p->pids, e);
	else if (p->pids_way == LIMITS_PIDS_PIDNS)
		r = set_pid_max(sandbox, p->pids + 1, e);
	if (r == 0 && p->data)
		r = set_limit(sandbox, RLIMIT_DATA, "--limit-memory", p->data, p->data, e);
	/* SIGXCPU at the limit, SIGKILL a second later for a process that
	 * handles SIGXCPU and goes on. */
	if (r == 0 && p->cpu)
		r = set_limit(sandbox, RLIMIT_CPU, "--limit-cpu", p->cpu, p->cpu + 1ULL, e);
	return r;
}
