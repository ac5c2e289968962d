/* vclone.c: see vclone.h. */
#include "launch/vclone.h"

#include <errno.h>
#include <sched.h>
#include <signal.h>

pid_t vclone_run(int (*fn)(void *), void *arg)
{
	/* Only one child at a time runs on it: cordon is suspended meanwhile. */
	static _Alignas(16) char stack[32768];
	int saved = errno;
	pid_t pid = clone(fn, stack + sizeof(stack), CLONE_VM | CLONE_VFORK | SIGCHLD, arg);
	int err = errno;
	errno = saved;
	return pid < 0 ? -err : pid;
}
