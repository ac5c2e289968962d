/* spawn.c: see spawn.h. */
#include "spawn.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/seccomp.h>
#include <stdint.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include "landlock.h"
#include "sys.h"

struct report {
	int32_t stage;
	int32_t err;
};

static void child_fail(int fd, int stage, int err)
{
	struct report r = { stage, err };
	ssize_t w = write(fd, &r, sizeof(r));
	(void)w; /* nobody left to tell if even this fails; the parent sees EOF+exit */
	_exit(EXIT_CORDON_FAILED);
}

static void child(const struct spawn_plan *p, int status_fd, int go_fd)
{
	/* Signals cordon-inner blocked or caught are not the command's business:
	 * restore defaults for every catchable signal and the given mask. */
	struct sigaction dfl;
	memset(&dfl, 0, sizeof(dfl));
	dfl.sa_handler = SIG_DFL;
	/* libc refuses the signals it reserves for itself (32-34), yet an
	 * ignored one survives exec (GNU make starts its children with 32 and
	 * 33 ignored): reset those with the raw call.  An all-zero kernel
	 * sigaction is SIG_DFL, no flags, empty mask on every layout. */
	static const unsigned long ksa_dfl[4];
	for (int sig = 1; sig < NSIG; sig++)
		if (sig != SIGKILL && sig != SIGSTOP && sigaction(sig, &dfl, NULL) < 0)
			(void)syscall(SYS_rt_sigaction, sig, ksa_dfl, NULL, (size_t)(NSIG / 8));
	if (sigprocmask(SIG_SETMASK, p->mask, NULL) < 0)
		child_fail(status_fd, SPAWN_SETUP, errno);

	int keep[3] = { status_fd, go_fd, p->landlock_fd };
	if (sys_close_except(keep, p->landlock_fd >= 0 ? 3 : 2) < 0)
		child_fail(status_fd, SPAWN_SETUP, errno);

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		child_fail(status_fd, SPAWN_NNP, errno);
	if (p->landlock_fd >= 0) {
		int r = landlock_enforce(p->landlock_fd);
		if (r < 0)
			child_fail(status_fd, SPAWN_LANDLOCK, -r);
		(void)close(p->landlock_fd);
	}
	if (p->seccomp && prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, p->seccomp, 0, 0) < 0)
		child_fail(status_fd, SPAWN_SECCOMP, errno);
	char go;
	ssize_t n;
	do
		n = read(go_fd, &go, 1);
	while (n < 0 && errno == EINTR);
	if (n != 1)
		_exit(EXIT_CORDON_FAILED); /* a check failed in the parent: never exec */
	execvp(p->argv[0], p->argv);
	child_fail(status_fd, SPAWN_EXEC, errno);
}

int spawn_failure(const char *cmd, int stage, int err, struct cordon_err *e)
{
	static const char *const what[] = {
		[SPAWN_SETUP] = "preparing the command's process",
		[SPAWN_NNP] = "setting no_new_privs",
		[SPAWN_LANDLOCK] = "entering the Landlock domain",
		[SPAWN_SECCOMP] = "loading the seccomp filter",
	};
	if (stage == SPAWN_EXEC) {
		int r;
		if (err == ENOENT || err == ENOTDIR)
			r = err_set(e, err, "%s: command not found (in PATH or as given)", cmd);
		else
			r = err_sys(e, err, "%s: cannot execute", cmd);
		e->exit_code = (err == ENOENT || err == ENOTDIR) ? EXIT_NOT_FOUND
								 : EXIT_NOT_EXECUTABLE;
		return r;
	}
	if (stage < SPAWN_SETUP || stage > SPAWN_SECCOMP)
		return err_set(e, EPROTO, "the command's process failed at an unknown stage %d", stage);
	return err_sys(e, err, "%s failed; refusing to run %s", what[stage], cmd);
}

static void reap(pid_t pid)
{
	int st;
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
}

int spawn_start(const struct spawn_plan *p, struct spawn_handle *h, struct cordon_err *e)
{
	int st[2], go[2];
	*h = (struct spawn_handle){ -1, -1, -1 };
	if (pipe2(st, O_CLOEXEC) < 0)
		return err_sys(e, errno, "pipe2");
	if (pipe2(go, O_CLOEXEC) < 0) {
		int err = errno;
		sys_close(&st[0]);
		sys_close(&st[1]);
		return err_sys(e, err, "pipe2");
	}
	pid_t pid = fork();
	if (pid < 0) {
		int err = errno;
		sys_close(&st[0]);
		sys_close(&st[1]);
		sys_close(&go[0]);
		sys_close(&go[1]);
		return err_sys(e, err, "fork");
	}
	if (pid == 0) {
		(void)close(st[0]);
		(void)close(go[1]);
		child(p, st[1], go[0]);
	}
	sys_close(&st[1]);
	sys_close(&go[0]);
	*h = (struct spawn_handle){ pid, st[0], go[1] };
	return 0;
}

void spawn_abort(struct spawn_handle *h)
{
	if (h->pid > 0) {
		(void)kill(h->pid, SIGKILL);
		reap(h->pid);
	}
	sys_close(&h->status_fd);
	sys_close(&h->go_fd);
	h->pid = -1;
}

pid_t spawn_release(struct spawn_handle *h, const char *cmd, struct cordon_err *e)
{
	pid_t pid = h->pid;
	int w = sys_write_all(h->go_fd, "g", 1);
	sys_close(&h->go_fd);
	struct report r;
	ssize_t n = sys_read_full(h->status_fd, &r, sizeof(r));
	sys_close(&h->status_fd);
	h->pid = -1;
	if (n == 0 && w == 0)
		return pid;
	/* The child failed before exec and has exited (or will): reap it so
	 * the PID-1 loop does not mistake it for the command's end. */
	reap(pid);
	if (n != (ssize_t)sizeof(r))
		return err_set(e, EPROTO, "the command's process failed without a report");
	return spawn_failure(cmd, r.stage, r.err, e);
}

pid_t spawn_command(const struct spawn_plan *p, struct cordon_err *e)
{
	struct spawn_handle h;
	int r = spawn_start(p, &h, e);
	if (r < 0)
		return r;
	return spawn_release(&h, p->argv[0], e);
}
