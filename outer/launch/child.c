/* child.c: see child.h. */
#include "launch/child.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "launch/vclone.h"
#include "sys.h"

/* What the child needs, built before it starts (it may not allocate), and
 * where it leaves the reason its exec failed. */
struct child_job {
	const struct child_spec *s;
	const int *open_ok;
	size_t nopen;
	int exec_err;
};

/* The child (launch/vclone.h: cordon's memory, cordon suspended): only
 * system calls until exec.  The keep list is what the binary must inherit;
 * a descriptor the caller left without O_CLOEXEC has no business in bwrap
 * or the sandbox: closed here. */
static int child_main(void *arg)
{
	struct child_job *j = arg;
	const struct child_spec *s = j->s;
	if (sys_close_except(j->open_ok, j->nopen) < 0)
		goto fail;
	/* A process group of its own: a signal for the terminal's foreground
	 * group (Ctrl-C while cordon has no raw terminal to read keys from,
	 * with only stdout a terminal) reaches cordon, which passes it on to
	 * the command, and not bwrap, which would die of it and take the
	 * sandbox with it before the command could clean up. */
	if (setpgid(0, 0) < 0)
		goto fail;
	/* dup2 leaves the copy inheritable; the original keeps O_CLOEXEC. */
	for (int i = 0; s->stdio && i < 3; i++)
		if (s->stdio[i] >= 0 && dup2(s->stdio[i], i) < 0)
			goto fail;
	for (size_t i = 0; i < s->nkeep; i++)
		if (sys_set_inheritable(s->keep[i]) < 0)
			goto fail;
	/* prlimit64 itself: a libc's setrlimit may fall back to signalling
	 * every thread, which has no place in this child. */
	for (size_t i = 0; i < s->nrlimits; i++)
		if (syscall(SYS_prlimit64, 0, s->rlimits[i].resource, &s->rlimits[i].lim, NULL) < 0)
			goto fail;
	/* The raw call: libc's sigaction may write its own state, which this
	 * child shares with cordon.  The kernel's struct, handler first
	 * (SIG_IGN), no flags, no mask, on every layout. */
	for (int sig = 1; sig <= 64; sig++) {
		static const unsigned long ksa_ign[4] = { (unsigned long)SIG_IGN, 0, 0, 0 };
		if ((s->ignore >> (sig - 1) & 1) &&
		    syscall(SYS_rt_sigaction, sig, ksa_ign, NULL, (size_t)(_NSIG / 8)) < 0)
			goto fail;
	}
	if (s->mask && sigprocmask(SIG_SETMASK, s->mask, NULL) < 0)
		goto fail;
	syscall(SYS_execveat, s->exec_fd, "", s->argv, s->envp, AT_EMPTY_PATH);
fail:
	j->exec_err = errno ? errno : EIO;
	return EXIT_CORDON_FAILED;
}

uint64_t child_end_signals(void)
{
	static const int end[] = { SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGUSR1, SIGUSR2 };
	uint64_t m = 0;
	for (size_t i = 0; i < sizeof(end) / sizeof(end[0]); i++)
		m |= (uint64_t)1 << (end[i] - 1);
	return m;
}

pid_t child_spawn(const struct child_spec *s, struct cordon_err *e)
{
	/* What the child keeps open: the keep list, and the binary for
	 * execveat (O_CLOEXEC, so it goes at the exec). */
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
	struct child_job j = { s, open_ok, nopen, 0 };
	pid_t pid = vclone_run(child_main, &j);
	free(open_ok);
	if (pid < 0)
		return err_sys(e, (int)-pid, "cannot start %s", s->name);
	/* cordon resumes once the child has exec'd or given up: a failure is
	 * known here, and said once, by cordon. */
	if (j.exec_err) {
		(void)sys_waitpid(pid, NULL);
		return err_sys(e, j.exec_err, "cannot execute %s", s->name);
	}
	return pid;
}
