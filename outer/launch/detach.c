/* detach.c: see detach.h. */
#include "launch/detach.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include "sys.h"

#define IOPRIO_WHO_PROCESS 1
#define IOPRIO_CLASS_IDLE 3
#define IOPRIO_CLASS_SHIFT 13

/* Only keep[] and 0-2, on /dev/null: a copy of a descriptor of cordon's
 * (a socket, the terminal's pty) would keep its other end from seeing
 * cordon's end.  _exits when it cannot. */
static void settle_fds(const int *keep, size_t nkeep)
{
	if (sys_close_except(keep, nkeep) < 0 || sys_detach_stdio() < 0)
		_exit(1);
}

/* Last, once the dispositions are what they must be: a signal that was
 * blocked in cordon (its signalfd's) is delivered from here on. */
static void unblock_all(void)
{
	sigset_t none;
	sigemptyset(&none);
	(void)sigprocmask(SIG_SETMASK, &none, NULL);
}

/* The grandchild: settled as detach.h says, then fn. */
static void __attribute__((noreturn)) detached(void (*fn)(void *ctx), void *ctx)
{
	settle_fds(NULL, 0);
	struct sigaction dfl;
	memset(&dfl, 0, sizeof(dfl));
	dfl.sa_handler = SIG_DFL;
	for (int sig = 1; sig < NSIG; sig++)
		(void)sigaction(sig, &dfl, NULL); /* SIGKILL, SIGSTOP: refused, as meant */
	unblock_all();
	/* Lowest priority: it must not slow the command it runs beside. */
	(void)setpriority(PRIO_PROCESS, 0, 19);
	(void)syscall(SYS_ioprio_set, IOPRIO_WHO_PROCESS, 0, IOPRIO_CLASS_IDLE << IOPRIO_CLASS_SHIFT);
	fn(ctx);
	_exit(0);
}

int detach_run(void (*fn)(void *ctx), void *ctx, struct cordon_err *e)
{
	pid_t pid = fork();
	if (pid < 0)
		return err_sys(e, errno, "cannot start a background task: fork");
	if (pid == 0) {
		/* A session of its own: a kill of cordon's process group or
		 * session (an agent ending a job) is not meant for it. */
		if (setsid() < 0)
			_exit(1);
		pid_t g = fork();
		if (g == 0)
			detached(fn, ctx);
		_exit(g < 0 ? 1 : 0);
	}
	int st;
	if (sys_waitpid(pid, &st) < 0)
		return err_sys(e, errno, "cannot start a background task: waitpid");
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
		return err_set(e, EAGAIN, "cannot start a background task: fork");
	return 0;
}

pid_t detach_child(const int *keep, size_t nkeep, const int *ignore, size_t nignore,
		   void (*fn)(void *ctx), void *ctx)
{
	pid_t pid = fork();
	if (pid < 0)
		return -errno;
	if (pid > 0)
		return pid;
	/* A session (and process group) of its own: a kill of cordon's group
	 * or session (an agent ending a job) does not reach it.  As a session
	 * leader it would acquire a controlling terminal by opening one; fn
	 * must open none (the guardian opens /dev/null, /proc and the
	 * registry's regular files). */
	if (setsid() < 0)
		_exit(1);
	settle_fds(keep, nkeep);
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_IGN;
	for (size_t i = 0; i < nignore; i++)
		(void)sigaction(ignore[i], &sa, NULL);
	unblock_all();
	fn(ctx);
	_exit(0);
}
