/* forkcall.c: see forkcall.h. */
#include "launch/forkcall.h"

#include <errno.h>
#include <unistd.h>

pid_t forkcall_start(int (*fn)(void *ctx), void *ctx)
{
	pid_t pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0)
		_exit(fn(ctx));
	return pid;
}
