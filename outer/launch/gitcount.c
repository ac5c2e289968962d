/* gitcount.c: see gitcount.h. */
#include "launch/gitcount.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>
#include "launch/child.h"
#include "sys.h"

void gitcount_open(struct gitcount *g, const struct rpath *roots, size_t nroots)
{
	struct cordon_err e;
	g->git.fd = -1;
	if (bwrap_find_tool("git", roots, nroots, &g->git, &e) < 0)
		g->git.fd = -1;
}

void gitcount_close(struct gitcount *g)
{
	sys_close(&g->git.fd);
}

/* The ids rev-list reads: NEW, then ^OLD for each.  NULL on ENOMEM. */
static char *revs_text(const char *new_id, const char *const *old, size_t nold, size_t *len)
{
	size_t cap = strlen(new_id) + 2, used = 0;
	for (size_t i = 0; i < nold; i++)
		cap += strlen(old[i]) + 2;
	char *s = malloc(cap + 1);
	if (!s)
		return NULL;
	used += (size_t)sprintf(s, "%s\n", new_id);
	for (size_t i = 0; i < nold; i++)
		used += (size_t)sprintf(s + used, "^%s\n", old[i]);
	*len = used;
	return s;
}

/* Feed in to git's stdin and read its stdout into out until git closes
 * it or the deadline passes.  0, or -ETIMEDOUT / -errno.  stdin is a
 * socket written with MSG_NOSIGNAL: a git that exits early is an error
 * here, never a SIGPIPE for cordon. */
static int converse(int to, int from, const char *in, size_t inlen, char *out, size_t outcap,
		    long long deadline_ms)
{
	size_t sent = 0, got = 0;
	int done_sending = inlen == 0;
	for (;;) {
		long long left = deadline_ms - sys_now_ms();
		if (left <= 0)
			return -ETIMEDOUT;
		struct pollfd p[2] = { { from, POLLIN, 0 }, { done_sending ? -1 : to, POLLOUT, 0 } };
		int n = poll(p, 2, (int)left);
		if (n < 0 && errno != EINTR)
			return -errno;
		if (n <= 0)
			continue;
		if (p[1].revents) {
			ssize_t w = send(to, in + sent, inlen - sent, MSG_NOSIGNAL | MSG_DONTWAIT);
			if (w < 0 && errno != EAGAIN && errno != EINTR)
				return -errno;
			sent += w > 0 ? (size_t)w : 0;
			/* git reads to the end before it counts */
			if (sent == inlen && shutdown(to, SHUT_WR) == 0)
				done_sending = 1;
		}
		if (p[0].revents) {
			ssize_t r = read(from, out + got, outcap - 1 - got);
			if (r < 0 && errno != EAGAIN && errno != EINTR)
				return -errno;
			got += r > 0 ? (size_t)r : 0;
			out[got] = '\0';
			if (r == 0 || got == outcap - 1)
				return 0;
		}
	}
}

long gitcount_new(const struct gitcount *g, int gitfd, const char *new_id,
		  const char *const *old, size_t nold, long long deadline_ms)
{
	if (g->git.fd < 0 || gitfd < 0)
		return -1;
	int in[2] = { -1, -1 }, out[2] = { -1, -1 };
	AUTO_FD null = open("/dev/null", O_WRONLY | O_CLOEXEC);
	size_t inlen = 0;
	char *text = revs_text(new_id, old, nold, &inlen);
	long count = -1;
	if (!text || null < 0 || socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, in) < 0 ||
	    pipe2(out, O_CLOEXEC | O_NONBLOCK) < 0)
		goto out;
	char gitdir[64];
	(void)snprintf(gitdir, sizeof(gitdir), "--git-dir=/proc/self/fd/%d", gitfd);
	/* Never a fetch: in a partial clone, an object id the command chose
	 * that is missing here would have this host git fetch it from the
	 * promisor remote (a network the sandbox has none of, a remote's
	 * helper run on the host).  --missing=allow-any turns git's lazy
	 * fetch off in rev-list (git 2.15 and later; a missing tip then fails
	 * the count, which is reported as unknown); GIT_NO_LAZY_FETCH does
	 * it for every command of git 2.44 and later. */
	char *argv[] = { "git", gitdir, "-c", "core.fsmonitor=false", "rev-list", "--count",
			 "--missing=allow-any", "--stdin", NULL };
	char *envp[] = { "PATH=/usr/bin:/bin", "LC_ALL=C", "GIT_CONFIG_NOSYSTEM=1",
			 "GIT_CONFIG_GLOBAL=/dev/null", "GIT_NO_REPLACE_OBJECTS=1",
			 "GIT_OPTIONAL_LOCKS=0", "GIT_TERMINAL_PROMPT=0", "GIT_NO_LAZY_FETCH=1",
			 "GIT_PROTOCOL_FROM_USER=0", NULL };
	/* The git dir crosses the exec: --git-dir names it by descriptor, so
	 * git reads the directory gitrefs pinned, whatever its path is now. */
	int keep[] = { gitfd };
	int stdio[3] = { in[0], out[1], null };
	sigset_t none;
	sigemptyset(&none);
	struct child_spec s = { "git", g->git.fd, argv, envp, keep, 1, &none, stdio, NULL, 0, 0 };
	struct cordon_err e;
	pid_t pid = child_spawn(&s, &e);
	sys_close(&in[0]);
	sys_close(&out[1]);
	if (pid < 0)
		goto out;
	char buf[64];
	int rc = converse(in[1], out[0], text, inlen, buf, sizeof(buf), deadline_ms);
	if (rc < 0)
		(void)kill(pid, SIGKILL);
	int status;
	if (sys_waitpid(pid, &status) == pid && rc == 0 && WIFEXITED(status) &&
	    WEXITSTATUS(status) == 0) {
		char *end;
		errno = 0;
		long n = strtol(buf, &end, 10);
		if (errno == 0 && end != buf && *end == '\n' && n >= 0)
			count = n;
	}
out:
	free(text);
	sys_close(&in[0]);
	sys_close(&in[1]);
	sys_close(&out[0]);
	sys_close(&out[1]);
	return count;
}
