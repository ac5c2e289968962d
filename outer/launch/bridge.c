/* bridge.c: see bridge.h. */
#include "launch/bridge.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "launch/inner_find.h"
#include "sys.h"

extern char **environ;

int bridge_argv(const struct config *c, int sandbox_fd, pid_t parent, struct argv *out,
		struct cordon_err *e)
{
	int r = 0;
	memset(out, 0, sizeof(*out));
	r |= argv_push(out, "cordon-bridge");
	r |= argv_push(out, "--sandbox");
	r |= argv_push_int(out, sandbox_fd);
	r |= argv_push(out, "--parent");
	r |= argv_push_int(out, (int)parent);
	for (size_t i = 0; i < c->allow_domain.n; i++) {
		r |= argv_push(out, "--allow");
		r |= argv_push(out, c->allow_domain.v[i]);
	}
	for (size_t i = 0; i < c->deny_domain.n; i++) {
		r |= argv_push(out, "--deny");
		r |= argv_push(out, c->deny_domain.v[i]);
	}
	if (c->net_log) {
		r |= argv_push(out, "--net-log");
		r |= argv_push(out, c->net_log);
	}
	if (c->proxy_upstream) {
		r |= argv_push(out, "--upstream");
		r |= argv_push(out, c->proxy_upstream);
	}
	if (c->attribution_token) {
		r |= argv_push(out, "--attribution-token");
		r |= argv_push(out, c->attribution_token);
	}
	if (r) {
		argv_free(out);
		return err_set(e, ENOMEM, "out of memory");
	}
	return 0;
}

int bridge_start(const struct config *c, int sandbox_fd, pid_t *pid, struct cordon_err *e)
{
	char path[PATH_MAX];
	AUTO_FD bin = -1;
	struct argv argv;
	int r = helper_find("cordon-bridge", &bin, path, e);
	if (r < 0)
		return r;
	if ((r = bridge_argv(c, sandbox_fd, getpid(), &argv, e)) < 0)
		return r;
	sigset_t none;
	sigemptyset(&none);
	pid_t p = fork();
	if (p < 0) {
		argv_free(&argv);
		return err_sys(e, errno, "cannot start cordon-bridge: fork");
	}
	if (p == 0) {
		int keep[2] = { sandbox_fd, bin };
		/* Only async-signal-safe calls until exec.  The parent-death
		 * signal is set before exec so that no window exists where
		 * cordon could die and leave the bridge behind (the bridge
		 * checks its parent again). */
		if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) < 0 ||
		    sys_close_except(keep, 2) < 0 || sys_set_inheritable(sandbox_fd) < 0 ||
		    sigprocmask(SIG_SETMASK, &none, NULL) < 0)
			_exit(EXIT_CORDON_FAILED);
		syscall(SYS_execveat, bin, "", argv.v, environ, AT_EMPTY_PATH);
		struct cordon_err ce;
		(void)err_sys(&ce, errno, "cannot execute cordon-bridge");
		err_print(&ce);
		_exit(EXIT_CORDON_FAILED);
	}
	argv_free(&argv);
	*pid = p;
	return 0;
}

void bridge_end(pid_t *pid, int grace_ms)
{
	if (*pid <= 0)
		return;
	int pfd = (int)syscall(SYS_pidfd_open, *pid, 0);
	if (pfd >= 0 && grace_ms > 0) {
		struct pollfd p = { pfd, POLLIN, 0 };
		/* A timeout or an error both end in SIGKILL below. */
		(void)poll(&p, 1, grace_ms);
	}
	if (pfd >= 0)
		(void)close(pfd);
	(void)kill(*pid, SIGKILL);
	(void)sys_waitpid(*pid, NULL);
	*pid = 0;
}
