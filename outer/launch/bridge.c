/* bridge.c: see bridge.h. */
#include "launch/bridge.h"

#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "launch/child.h"
#include "launch/inner_find.h"
#include "sys.h"
#include "wire_bridge.h"

extern char **environ;

/* The upstream's credentials for the bridge, read from the start of a
 * memfd: not on its command line, which any host user may read. */
static int bl_auth_memfd(struct bridge_link *l, const char *auth, struct cordon_err *e)
{
	size_t len = strlen(auth);
	if ((l->auth = memfd_create("cordon-upstream-auth", MFD_CLOEXEC)) < 0)
		return err_sys(e, errno, "cannot create the in-memory file for --proxy-upstream's "
			       "credentials (too many open files? check ulimit -n)");
	if (write(l->auth, auth, len) != (ssize_t)len)
		return err_sys(e, errno, "cannot write --proxy-upstream's credentials to memory");
	return 0;
}

int bridge_link_open(struct bridge_link *l, const struct config *c, struct cordon_err *e)
{
	if (c->net != NET_PROXY)
		return 0;
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, l->sock) < 0)
		return err_sys(e, errno, "cannot create the socket between the sandbox and "
			       "cordon-bridge (too many open files? check ulimit -n)");
	/* In memory, never on disk: the network decisions (for the report
	 * and the lines on refused hosts) leave nothing behind, and nothing
	 * in the sandbox can reach them. */
	if ((l->decisions = memfd_create("cordon-net-decisions", MFD_CLOEXEC)) < 0)
		return err_sys(e, errno, "cannot create the in-memory file for the network "
			       "decisions (too many open files? check ulimit -n)");
	if (c->proxy_upstream_auth)
		return bl_auth_memfd(l, c->proxy_upstream_auth, e);
	return 0;
}

void bridge_link_log(struct bridge_link *l, int fd)
{
	sys_close(&l->log);
	l->log = fd;
}

int bridge_link_inner_fd(const struct bridge_link *l)
{
	return l->sock[1];
}

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

int bridge_start(struct bridge_link *l, const struct config *c, const sigset_t *mask,
		 struct cordon_err *e)
{
	char path[PATH_MAX];
	AUTO_FD bin = -1;
	struct argv argv;
	if (l->sock[0] < 0)
		return 0;
	int r = helper_find("cordon-bridge", &bin, path, e);
	if (r < 0 || (r = bridge_argv(c, l->sock[0], getpid(), &argv, e)) < 0)
		return r;
	int keep[4] = { l->sock[0], -1, -1, -1 };
	size_t nkeep = 1;
	if (l->log >= 0) {
		r |= argv_push(&argv, "--net-log-fd") | argv_push_int(&argv, l->log);
		keep[nkeep++] = l->log;
	}
	if (l->decisions >= 0) {
		r |= argv_push(&argv, "--decisions") | argv_push_int(&argv, l->decisions);
		keep[nkeep++] = l->decisions;
	}
	if (l->auth >= 0) {
		r |= argv_push(&argv, "--upstream-auth") | argv_push_int(&argv, l->auth);
		keep[nkeep++] = l->auth;
	}
	if (r) {
		argv_free(&argv);
		return err_set(e, ENOMEM, "out of memory");
	}
	/* These cross the exec on purpose (child_spawn clears their CLOEXEC).
	 * The end signals ignored, as bwrap's (launch/bwrap.c): the command's
	 * cleanup may still need the network; the bridge ends with the
	 * sandbox (end of file) or with cordon (its parent-death signal). */
	struct child_spec s = { "cordon-bridge", bin, argv.v, environ, keep, nkeep, mask, NULL,
				NULL, 0, child_end_signals() };
	pid_t pid = child_spawn(&s, e);
	argv_free(&argv);
	if (pid < 0)
		return (int)pid;
	l->pid = pid;
	sys_close(&l->sock[0]);
	sys_close(&l->auth);
	sys_close(&l->log);
	return 0;
}

void bridge_link_started(struct bridge_link *l)
{
	sys_close(&l->sock[1]);
}

int bridge_decisions(struct bridge_link *l,
		     void (*fn)(void *ctx, const struct wire_bridge_decision *d), void *ctx,
		     struct cordon_err *e)
{
	enum { CAP = WIRE_BRIDGE_DECISIONS_MAX };
	if (l->decisions < 0)
		return 0;
	unsigned char *buf = malloc(CAP);
	size_t len = 0;
	while (buf && len < CAP) {
		ssize_t n = pread(l->decisions, buf + len, CAP - len, (off_t)len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += (size_t)n;
	}
	int r = 0;
	struct wire_bridge_decision d;
	for (size_t at = 0; buf && (r = wire_bridge_decision_next(buf, len, &at, &d, e)) == 1;)
		fn(ctx, &d);
	free(buf);
	sys_close(&l->decisions);
	return r < 0 ? r : 0;
}

void bridge_end(struct bridge_link *l, int grace_ms)
{
	sys_close(&l->sock[0]);
	sys_close(&l->sock[1]);
	sys_close(&l->auth);
	sys_close(&l->log);
	if (l->pid <= 0)
		return;
	int pfd = (int)syscall(SYS_pidfd_open, l->pid, 0);
	if (pfd >= 0 && grace_ms > 0) {
		struct pollfd p = { pfd, POLLIN, 0 };
		/* A timeout or an error both end in SIGKILL below. */
		(void)poll(&p, 1, grace_ms);
	}
	if (pfd >= 0)
		(void)close(pfd);
	(void)kill(l->pid, SIGKILL);
	(void)sys_waitpid(l->pid, NULL);
	l->pid = 0;
}
