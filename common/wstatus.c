/* wstatus.c: see wstatus.h. */
#include "wstatus.h"

#include <errno.h>
#include <sys/wait.h>

int wstatus_decode(int wstatus, struct wstatus_end *end)
{
	if (WIFEXITED(wstatus)) {
		*end = (struct wstatus_end){ 0, WEXITSTATUS(wstatus) };
		return 0;
	}
	if (WIFSIGNALED(wstatus) && WTERMSIG(wstatus) >= 1 && WTERMSIG(wstatus) <= WSTATUS_SIG_MAX) {
		*end = (struct wstatus_end){ 1, WTERMSIG(wstatus) };
		return 0;
	}
	return -EINVAL;
}

int wstatus_exit_code(const struct wstatus_end *end)
{
	return end->signaled ? 128 + end->code : end->code;
}
