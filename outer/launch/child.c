/* child.c: see child.h. */
#include "launch/child.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "sys.h"

pid_t child_spawn(const struct child_spec *s, struct cordon_err *e)
{
	/* What the child keeps open: the keep list, and the binary for
	 * execveat (O_CLOEXEC, so it goes at the exec).  Built before fork:
	 * the child may not allocate. */
	int *open_ok = malloc((s->nkeep + 4) * sizeof(*open_ok));
	if (!open_ok)
		return err_set(e, ENOMEM, "out of memory");
	if (s->nkeep)
		memcpy(open_ok, s->keep, s->nkeep * sizeof(*open_ok));
	size_t nopen = s->nkeep;
	open_ok[nopen++] = s->exec_fd;
	for (int i = 0; s->stdio && i < 3; i++)
		if (s->stdio[i] >= 0)
			open_ok[nopen++] = s->stdio[i];
	pid_t pid = fork();
	if (pid != 0) {
		int err = errno;
		free(open_ok);
		return pid > 0 ? pid : err_sys(e, err, "fork");
	}

	/* Child: only async-signal-safe calls until exec.  The keep list is
	 * what the binary must inherit; a descriptor the caller left without
	 * O_CLOEXEC has no business in bwrap or the sandbox: closed here. */
	if (sys_close_except(open_ok, nopen) < 0)
		_exit(EXIT_CORDON_FAILED);
	/* dup2 leaves the copy inheritable; the original keeps O_CLOEXEC. */
	for (int i = 0; s->stdio && i < 3; i++)
		if (s->stdio[i] >= 0 && dup2(s->stdio[i], i) < 0)
			_exit(EXIT_CORDON_FAILED);
	for (size_t i = 0; i < s->nkeep; i++)
		if (sys_set_inheritable(s->keep[i]) < 0)
			_exit(EXIT_CORDON_FAILED);
	if (s->mask && sigprocmask(SIG_SETMASK, s->mask, NULL) < 0)
		_exit(EXIT_CORDON_FAILED);
	syscall(SYS_execveat, s->exec_fd, "", s->argv, s->envp, AT_EMPTY_PATH);
	struct cordon_err ce;
	(void)err_sys(&ce, errno, "cannot execute %s", s->name);
	err_print(&ce);
	_exit(EXIT_CORDON_FAILED);
}
