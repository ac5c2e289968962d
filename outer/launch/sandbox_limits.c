/* sandbox_limits.c: see sandbox_limits.h. */
#include "launch/sandbox_limits.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include "launch/vclone.h"
#include "plan/shared_counts.h"
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
static void pid_max_helper(int usernsfd, int nsfd, const char *value, size_t len)
{
	/* The sandbox's user namespace first: cordon made it, so it has every
	 * capability there, which entering its PID namespace and writing its
	 * pid_max need; CAP_SYS_ADMIN in its own (which a container's root
	 * lacks, podman's default) is then not needed. */
	if (setns(usernsfd, CLONE_NEWUSER) < 0 || setns(nsfd, CLONE_NEWPID) < 0)
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
	(void)snprintf(path, sizeof(path), "/proc/%d/ns/user", (int)sandbox);
	AUTO_FD userns = open(path, O_RDONLY | O_CLOEXEC);
	if (userns < 0)
		return err_sys(e, errno, "--limit-pids: cannot open the sandbox's user namespace");
	pid_t c = fork();
	if (c < 0)
		return err_sys(e, errno, "--limit-pids: cannot fork");
	if (c == 0)
		pid_max_helper(userns, ns, value, (size_t)len);
	int st = 0;
	if (sys_waitpid(c, &st) < 0)
		return err_sys(e, errno, "--limit-pids: waiting for the helper");
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
		int err = WIFEXITED(st) ? WEXITSTATUS(st) & 0x7f : EIO;
		return err_sys(e, err ? err : EIO,
			       "--limit-pids: as root, cordon counts processes by the pid_max of the "
			       "sandbox's PID namespace (Linux 6.14+), which could not be set; run "
			       "cordon as another user, or give it a cgroup with the pids controller");
	}
	return 0;
}

/* The per-user inotify and fanotify counts are charged in every user
 * namespace up to the caller's own: the sandbox's user namespace, which
 * cordon owns, gets its budget of each (plan/shared_counts.h). */
#define NUCOUNTS SHARED_UCOUNTS_N

static int read_ucount_limit(const char *path, unsigned long *out, struct cordon_err *e)
{
	char buf[32];
	AUTO_FD fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n = fd < 0 ? -1 : sys_read_full(fd, buf, sizeof(buf) - 1);
	if (n <= 0)
		return err_sys(e, n < 0 ? errno : EIO, "cannot read %s (is /proc mounted?)", path);
	buf[n] = '\0';
	char *end;
	errno = 0;
	*out = strtoul(buf, &end, 10);
	if (errno || end == buf)
		return err_set(e, EINVAL, "%s: unexpected contents", path);
	return 0;
}

/* What the helper writes, and where its result goes. */
struct ucount_job {
	int nsfd;
	char values[NUCOUNTS][24];
	int err;            /* 0, or the errno of the first failure */
};

/* The helper: enter the sandbox's user namespace (whose sysctl set
 * /proc/sys/user then shows) and write each value.  It shares cordon's
 * memory (see share_ucounts), so it touches nothing but its job and its
 * own stack, and makes only system calls. */
static int ucount_helper(void *arg)
{
	struct ucount_job *j = arg;
	if (syscall(SYS_setns, j->nsfd, CLONE_NEWUSER) < 0) {
		j->err = errno;
		return 1;
	}
	for (size_t i = 0; i < NUCOUNTS; i++) {
		if (!j->values[i][0])
			continue;
		int fd = (int)syscall(SYS_openat, AT_FDCWD, shared_ucount_files[i], O_WRONLY | O_CLOEXEC);
		size_t len = strlen(j->values[i]);
		if (fd < 0 || syscall(SYS_write, fd, j->values[i], len) != (long)len) {
			j->err = errno ? errno : EIO;
			return 1;
		}
		(void)syscall(SYS_close, fd);
	}
	return 0;
}

/* 0 with p->watches_err set to EROFS when /proc/sys turned out read-only
 * (a container's, bound read-only over a procfs whose sysctls the sandbox's
 * user namespace could otherwise set): nothing else sets these counts, so
 * the run goes on without them and says so (plan/limits.h). */
static int share_ucounts(pid_t sandbox, struct limits_plan *p, struct cordon_err *e)
{
	char path[48];
	struct ucount_job j = { .nsfd = -1, .err = 0 };
	for (size_t i = 0; i < NUCOUNTS; i++) {
		unsigned long v = 0;
		if (i >= SHARED_UCOUNTS_REQUIRED && access(shared_ucount_files[i], F_OK) < 0 &&
		    errno == ENOENT) {
			j.values[i][0] = '\0';
			continue;
		}
		int rc = read_ucount_limit(shared_ucount_files[i], &v, e);
		if (rc < 0)
			return rc;
		(void)snprintf(j.values[i], sizeof(j.values[i]), "%llu\n",
			       shared_counts_budget(v, shared_ucount_caps[i]));
	}
	(void)snprintf(path, sizeof(path), "/proc/%d/ns/user", (int)sandbox);
	AUTO_FD ns = open(path, O_RDONLY | O_CLOEXEC);
	if (ns < 0)
		return err_sys(e, errno, "cannot open the sandbox's user namespace");
	j.nsfd = ns;
	/* setns into a user namespace wants a single thread group and an
	 * unshared fs_struct, not an unshared mm: launch/vclone.h. */
	pid_t c = vclone_run(ucount_helper, &j);
	if (c < 0)
		return err_sys(e, (int)-c, "cannot start the helper that limits the sandbox's inotify use");
	int st = 0;
	if (sys_waitpid(c, &st) < 0)
		return err_sys(e, errno, "waiting for the helper that limits inotify use");
	if ((!WIFEXITED(st) || WEXITSTATUS(st) != 0) && j.err == EROFS) {
		p->watches_err = EROFS;
		return 0;
	}
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
		return err_sys(e, j.err ? j.err : EIO,
			       "cannot limit the sandbox's inotify and fanotify counts in its "
			       "user namespace (/proc/sys/user)");
	return 0;
}

/* Pending signals, message-queue bytes and locked memory are counted per
 * user at each level of user namespaces, and the level above the sandbox
 * is checked against the limit its creator (bwrap) had: set there, a
 * budget would bound the caller's whole count as seen from that sandbox, so
 * one sandbox that took its budget left every other sandbox of the caller
 * none (a new bwrap then could not even start).  So bwrap keeps the
 * caller's limits and the sandbox's first process gets the budget, which
 * bounds the sandbox's own level: each process checks its rlimit against
 * the count of its user namespace, and nothing inside may raise a hard
 * limit (CAP_SYS_RESOURCE in the caller's namespace). */
static int share_rlimits(pid_t sandbox, struct cordon_err *e)
{
	for (size_t i = 0; i < SHARED_COUNTS_N; i++) {
		struct rlimit own;
		if (prlimit(0, shared_counts_resources[i], NULL, &own) < 0)
			return err_sys(e, errno, "cannot read cordon's own resource limits");
		struct rlimit want = shared_counts_rlimit(i, own);
		if (prlimit(sandbox, shared_counts_resources[i], &want, NULL) < 0)
			return err_sys(e, errno, "cannot give the sandbox (process %d) its budget "
				       "of the caller's per-user counts", (int)sandbox);
	}
	return 0;
}

int sandbox_limits_apply(pid_t sandbox, struct limits_plan *p, struct cordon_err *e)
{
	int r = p->watches_shared ? share_ucounts(sandbox, p, e) : 0;
	if (r == 0)
		r = share_rlimits(sandbox, e);
	if (r < 0)
		return r;
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
