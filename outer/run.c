/* run.c: see run.h.  The order matters: everything that can be checked is
 * checked before anything is created on the host or any process started. */
#include "run.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>
#include "argv.h"
#include "plan/bwrap_argv.h"
#include "launch/bridge.h"
#include "launch/bwrap_find.h"
#include "plan/env.h"
#include "launch/inner_find.h"
#include "plan/mount_plan.h"
#include "hostpaths/protect.h"
#include "plan/resolve.h"
#include "seccomp_policy.h"
#include "launch/supervisor.h"
#include "sys.h"
#include "launch/userns.h"
#include "wire.h"

extern char **environ;

struct run_state {
	struct resolved res;
	struct bwrap_bin bwrap;
	int inner_fd;
	int ctrl[2];
	int info[2];
	int args[2];          /* bwrap --args: [0] bwrap reads, [1] cordon writes */
	int bsock[2];         /* --net proxy: [0] cordon-bridge, [1] cordon-inner (wire_bridge.h) */
	pid_t bridge_pid;     /* > 0 once started, until reaped */
	int block[2];         /* bwrap --userns-block-fd: [0] bwrap reads the byte cordon
			       * sends once the mount points exist and the user
			       * namespace is mapped (a socket: no SIGPIPE) */
	struct mount_plan plan;
	struct bwrap_opts bo;
	char inner_exec[64];
	struct argv argv, env, inner_args;
	size_t nopts;         /* argv[0..nopts) are the name and the options */
	int *keep;
	size_t nkeep;
	struct protect_run prot;
	pid_t bwrap_pid;      /* > 0 once forked, until reaped */
	pid_t sandbox;        /* bwrap's child (the sandbox's PID 1), once known */
	int args_sent;        /* bwrap has its arguments: it may have a child */
};

/* Before bwrap is killed: its child gets no parent-death signal until just
 * before it execs, so it would wait forever for its release, or go on
 * setting up a sandbox nobody supervises. */
static void kill_sandbox_child(struct run_state *s)
{
	if (s->bwrap_pid > 0 && s->args_sent)
		userns_kill_child(s->info[0], s->bwrap_pid, &s->sandbox);
}

/* End bwrap (if it runs) and its child, and reap it; its wait status. */
static int end_bwrap(struct run_state *s)
{
	int st = 0;
	if (s->bwrap_pid <= 0)
		return 0;
	kill_sandbox_child(s);
	(void)kill(s->bwrap_pid, SIGKILL);
	(void)sys_waitpid(s->bwrap_pid, &st);
	s->bwrap_pid = 0;
	return st;
}

static void state_free(struct run_state *s)
{
	/* Still running here only when the run failed before the command
	 * could start: cordon-inner waits for the bind checks. */
	(void)end_bwrap(s);
	bridge_end(&s->bridge_pid, 0);
	protect_release(&s->prot);
	resolved_free(&s->res);
	sys_close(&s->bwrap.fd);
	sys_close(&s->inner_fd);
	sys_close(&s->ctrl[0]);
	sys_close(&s->ctrl[1]);
	sys_close(&s->info[0]);
	sys_close(&s->info[1]);
	sys_close(&s->args[0]);
	sys_close(&s->args[1]);
	sys_close(&s->block[0]);
	sys_close(&s->block[1]);
	sys_close(&s->bsock[0]);
	sys_close(&s->bsock[1]);
	mount_plan_free(&s->plan);
	argv_free(&s->argv);
	argv_free(&s->env);
	argv_free(&s->inner_args);
	free(s->keep);
}

static int keep_fd(struct run_state *s, int fd)
{
	if (fd < 0)
		return 0; /* not created (cordon explain creates no args socket) */
	int *v = realloc(s->keep, (s->nkeep + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	v[s->nkeep++] = fd;
	s->keep = v;
	return 0;
}

/* The descriptors bwrap inherits: everything resolved so far. */
static int collect_keep(struct run_state *s, struct cordon_err *e)
{
	const struct { struct rpath *v; size_t n; } lists[] = {
		{ s->res.roots, s->res.nroots }, { s->res.carves, s->res.ncarves },
		{ s->res.protects, s->res.nprotects }, { s->res.masks, s->res.nmasks },
	};
	int r = 0;
	r |= keep_fd(s, s->ctrl[1]);
	r |= keep_fd(s, s->info[1]);
	r |= keep_fd(s, s->inner_fd);
	r |= keep_fd(s, s->args[0]);
	r |= keep_fd(s, s->block[0]);
	r |= keep_fd(s, s->bsock[1]);
	for (size_t l = 0; l < sizeof(lists) / sizeof(lists[0]); l++)
		for (size_t i = 0; i < lists[l].n; i++)
			if (lists[l].v[i].fd >= 0) {
				r |= keep_fd(s, lists[l].v[i].fd);
				lists[l].v[i].inherited = 1;
			}
	return r ? err_set(e, ENOMEM, "out of memory") : 0;
}

/* Read-only paths opened after bwrap was forked (materialized and pinned
 * protected names, the registry carve-out) are not in its descriptor table,
 * even where their number is (cordon reuses freed numbers): they are bound by
 * path and checked by cordon-inner instead. */
static void mark_late(struct run_state *s)
{
	for (size_t i = 0; i < s->res.ncarves; i++)
		s->res.carves[i].late = !s->res.carves[i].inherited;
	for (size_t i = 0; i < s->res.nprotects; i++)
		s->res.protects[i].late = !s->res.protects[i].inherited;
}

static int build_inner_args(const struct config *c, struct run_state *s, struct cordon_err *e)
{
	int r = 0;
	r |= argv_push(&s->inner_args, "--control");
	r |= argv_push_int(&s->inner_args, s->ctrl[1]);
	if (c->tmp == TMP_PRIVATE)
		r |= argv_push(&s->inner_args, "--tmp-private");
	if (c->allow_unix_sockets)
		r |= argv_push(&s->inner_args, "--allow-unix-sockets");
	if (c->require_landlock)
		r |= argv_push(&s->inner_args, "--require-landlock");
	else if (geteuid() == 0 && !c->allow_no_landlock)
		r |= argv_push(&s->inner_args, "--root-needs-landlock"); /* DESIGN section 4 */
	if (c->full_write)
		r |= argv_push(&s->inner_args, "--full-write");
	if (s->bsock[1] >= 0) {
		r |= argv_push(&s->inner_args, "--bridge");
		r |= argv_push_int(&s->inner_args, s->bsock[1]);
	}
	r |= argv_push(&s->inner_args, "--net");
	r |= argv_push(&s->inner_args, c->net == NET_FULL ? "full" : c->net == NET_PROXY ? "proxy" : "none");
	return r ? err_set(e, ENOMEM, "out of memory") : 0;
}

/* The control socket is non-blocking for the supervisor loop, and hundreds
 * of records outgrow its buffer: wait for room while cordon-inner drains it.
 * If cordon-inner never comes, bwrap exits and the peer end closes. */
static int send_blocking(int sock, uint32_t type, const void *data, size_t len, int fd)
{
	for (;;) {
		int r = wire_send(sock, type, data, len, fd);
		if (r != -EAGAIN)
			return r;
		struct pollfd p = { sock, POLLOUT, 0 };
		if (poll(&p, 1, -1) < 0 && errno != EINTR)
			return -errno;
		if (p.revents & (POLLHUP | POLLERR))
			return -EPIPE;
	}
}

static int send_check(const struct run_state *s, uint32_t type, const struct rpath *p,
		      uint32_t *count, struct cordon_err *e)
{
	int r = send_blocking(s->ctrl[0], type, p->path, strlen(p->path), p->fd);
	if (r < 0) {
		(void)err_sys(e, -r, "sending %s to cordon-inner", p->path);
		return r;
	}
	(*count)++;
	return 0;
}

/* Hand cordon-inner the descriptor of every writable root and of every
 * read-only path bound by path, so it can check that what is mounted at each
 * path is the object cordon resolved. */
static int send_bind_checks(const struct run_state *s, struct cordon_err *e)
{
	uint32_t count = 0;
	int r = 0;
	for (size_t i = 0; r == 0 && i < s->res.nroots; i++)
		r = send_check(s, WIRE_BIND_CHECK, &s->res.roots[i], &count, e);
	for (size_t i = 0; r == 0 && i < s->res.ncarves; i++)
		if (s->res.carves[i].late)
			r = send_check(s, WIRE_RO_CHECK, &s->res.carves[i], &count, e);
	for (size_t i = 0; r == 0 && i < s->res.nprotects; i++)
		if (s->res.protects[i].late)
			r = send_check(s, WIRE_RO_CHECK, &s->res.protects[i], &count, e);
	if (r == 0 && (r = send_blocking(s->ctrl[0], WIRE_BINDS_END, &count, sizeof(count), -1)) < 0)
		(void)err_sys(e, -r, "sending to cordon-inner");
	return r;
}

/* The seccomp rules the command runs under, from the table the filter is
 * compiled from. */
static void print_seccomp(void)
{
	size_t n;
	const struct seccomp_rule_desc *t = seccomp_policy_table(&n);
	printf("\nseccomp rules (everything else allowed):\n");
	for (size_t i = 0; i < n; i++)
		printf("  %-18s %s: %s\n", t[i].syscall, t[i].when,
		       t[i].errno_value ? strerror(t[i].errno_value) : "kills the process");
}

/* -v: one line on stderr.  explain: one argument per line on stdout, after a
 * header, so scripts (scripts/bench-startup.sh) can replay it exactly. */
static void print_argv(const struct argv *a, int explain)
{
	if (explain) {
		fputs("bwrap argv (one argument per line):\n", stdout);
		for (size_t i = 0; i < a->n; i++)
			printf("%s\n", a->v[i]);
		print_seccomp();
		return;
	}
	fputs("cordon: bwrap", stderr);
	for (size_t i = 1; i < a->n; i++)
		fprintf(stderr, " %s", a->v[i]);
	fputc('\n', stderr);
}

/* Everything bwrap must inherit or know when it is forked. */
static int prepare_early(const struct config *c, int explain, struct run_state *s,
			 struct cordon_err *e)
{
	int r;
	char inner_path[PATH_MAX];

	if ((r = resolve_config(c, &s->res, e)) < 0)
		return r;
	if ((r = bwrap_find(s->res.roots, s->res.nroots, &s->bwrap, e)) < 0)
		return r;
	if ((r = inner_find(&s->inner_fd, inner_path, e)) < 0)
		return r;
	/* A stream socket rather than a pipe for the arguments and the
	 * release: cordon writes with MSG_NOSIGNAL, so a bwrap that died early
	 * is an error here, never a SIGPIPE. */
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, s->ctrl) < 0 ||
	    pipe2(s->info, O_CLOEXEC) < 0 ||
	    fcntl(s->ctrl[0], F_SETFL, O_NONBLOCK) < 0 || fcntl(s->info[0], F_SETFL, O_NONBLOCK) < 0 ||
	    (!explain && socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, s->args) < 0) ||
	    socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, s->block) < 0)
		return err_sys(e, errno, "cannot create the sockets cordon talks to bwrap over "
			       "(too many open files? check ulimit -n)");
	if (c->net == NET_PROXY && socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, s->bsock) < 0)
		return err_sys(e, errno, "cannot create the socket between the sandbox and "
			       "cordon-bridge (too many open files? check ulimit -n)");
	/* The guardian ends whoever still holds this socket if cordon dies
	 * (bwrap's child may be blocked for good, see guardian.h). */
	struct stat sst;
	if (fstat(s->ctrl[1], &sst) < 0)
		return err_sys(e, errno, "cannot inspect the socket cordon talks to bwrap over");
	s->prot.sandbox_sock = sst.st_ino;
	if ((r = build_inner_args(c, s, e)) < 0)
		return r;
	if ((r = env_build(environ, c, &s->env, e)) < 0)
		return r;
	if (c->net == NET_PROXY) {
		char connect_path[PATH_MAX];
		int cfd = -1;
		/* Without cordon-connect only GIT_SSH_COMMAND is left out. */
		int found = helper_find("cordon-connect", &cfd, connect_path, NULL) == 0;
		sys_close(&cfd);
		if ((r = env_add_proxy(c, found ? connect_path : NULL, &s->env, e)) < 0)
			return r;
	}
	/* bwrap execs cordon-inner through this descriptor: the binary cordon
	 * chose is the one that runs, even where the sandbox hides its path. */
	(void)snprintf(s->inner_exec, sizeof(s->inner_exec), "/proc/self/fd/%d", s->inner_fd);
	s->bo = (struct bwrap_opts){
		.bwrap_name = "bwrap",
		/* With a terminal, stay in the caller's session so shells and
		 * editors keep job control; TIOCSTI and TIOCLINUX, the reason
		 * bwrap offers --new-session, are refused by seccomp instead. */
		.new_session = !isatty(STDIN_FILENO),
		.share_pid = c->pid == PID_INHERIT,
		.share_net = c->net == NET_FULL,
		.info_fd = s->info[1],
		.userns_block_fd = s->block[0],
		.inner_exec = s->inner_exec,
		.inner_args = s->inner_args.v,
		.cmd = c->cmd,
	};
	return collect_keep(s, e);
}

/* What can wait until bwrap is starting: the registry's decisions, then the
 * plan and the argv.  The mount points come after bwrap has the argv
 * (protect_materialize), while it creates its namespaces. */
static int prepare_late(const struct config *c, int explain, struct run_state *s,
			struct cordon_err *e)
{
	int r;

	if (explain)
		r = protect_explain(&s->res, e);
	else
		r = protect_prepare(&s->res, c->full_write, s->bwrap_pid, &s->prot, e);
	if (r < 0)
		return r;
	if (!explain)
		mark_late(s);

	struct plan_input in = {
		s->res.roots, s->res.nroots, s->res.carves, s->res.ncarves,
		s->res.protects, s->res.nprotects, s->res.masks, s->res.nmasks,
		c->tmp == TMP_PRIVATE, c->full_write, s->res.cwd.path,
	};
	if ((r = mount_plan_build(&in, &s->plan, e)) < 0)
		return r;
	if ((r = bwrap_argv_options(&s->plan, &s->bo, &s->argv, e)) < 0)
		return r;
	s->nopts = s->argv.n;
	return bwrap_argv_command(&s->bo, &s->argv, e);
}

/* Start bwrap with `--args FD` before the registry work: it spends the time
 * cordon needs for that loading itself, then blocks reading its arguments. */
static int fork_bwrap(struct run_state *s, struct cordon_err *e)
{
	struct argv argv = { 0 };
	int r = 0;
	r |= argv_push(&argv, "bwrap");
	r |= argv_push(&argv, "--args");
	r |= argv_push_int(&argv, s->args[0]);
	if (r < 0) {
		argv_free(&argv);
		return err_set(e, ENOMEM, "out of memory");
	}
	if ((r = bwrap_argv_command(&s->bo, &argv, e)) < 0)
		return r;
	char *empty_env[] = { NULL };
	struct spawn_spec spec = {
		s->bwrap.fd, argv.v, s->env.v ? s->env.v : empty_env, s->keep, s->nkeep,
	};
	pid_t pid = supervisor_spawn(&spec, e);
	argv_free(&argv);
	if (pid < 0)
		return (int)pid;
	s->bwrap_pid = pid;
	sys_close(&s->args[0]);
	sys_close(&s->block[0]);
	return 0;
}

/* bwrap --args reads NUL-terminated options until end of file. */
static int send_args(struct run_state *s, struct cordon_err *e)
{
	for (size_t i = 1; i < s->nopts; i++) {
		const char *a = s->argv.v[i];
		size_t len = strlen(a) + 1;
		while (len > 0) {
			ssize_t n = send(s->args[1], a, len, MSG_NOSIGNAL);
			if (n < 0 && errno == EINTR)
				continue;
			if (n < 0)
				return err_sys(e, errno, "bwrap exited before reading its arguments");
			a += n;
			len -= (size_t)n;
		}
	}
	sys_close(&s->args[1]);
	return 0;
}

/* bwrap failed before it took its arguments or its release: reap it and
 * say why once, not twice. */
static int bwrap_failed(struct run_state *s, struct cordon_err *e)
{
	/* It has exited or is exiting (it said why before closing its end);
	 * should it not be, a malformed --info-fd stream, it must not stay
	 * blocked waiting for its release. */
	int st = end_bwrap(s);
	if (WIFEXITED(st) && WEXITSTATUS(st) == EXIT_CORDON_FAILED) {
		e->msg[0] = '\0'; /* cordon's child could not exec it and said so */
		return -EIO;
	}
	return err_set(e, EIO, "bwrap could not build the sandbox (its message, if any, is "
		       "above); run cordon doctor to check this machine");
}

/* Nothing of the command is left: the host paths can go before bwrap has
 * finished tearing the namespace down. */
static void command_gone(void *ctx)
{
	protect_command_gone(ctx);
}

int run_sandbox(const struct config *c, int explain, struct cordon_err *e)
{
	struct run_state s = { .inner_fd = -1, .ctrl = { -1, -1 }, .info = { -1, -1 },
			       .args = { -1, -1 }, .block = { -1, -1 }, .bsock = { -1, -1 },
			       .prot = PROTECT_RUN_INIT };
	s.bwrap.fd = -1;
	struct run_outcome out;
	int r;

	if ((r = supervisor_block_signals(e)) < 0)
		return r;
	if ((r = prepare_early(c, explain, &s, e)) < 0)
		goto done;
	if (!explain && (r = fork_bwrap(&s, e)) < 0)
		goto done;
	if (!explain && s.bsock[0] >= 0) {
		if ((r = bridge_start(c, s.bsock[0], &s.bridge_pid, e)) < 0)
			goto done;
		sys_close(&s.bsock[0]);
	}
	if ((r = prepare_late(c, explain, &s, e)) < 0)
		goto done;
	if (explain || c->verbose)
		print_argv(&s.argv, explain);
	if (explain && c->net == NET_PROXY) {
		printf("\nenvironment for --net proxy (a --setenv of the same name wins):\n");
		for (size_t i = 0; i < s.env.n; i++)
			if (env_is_proxy_key(s.env.v[i]))
				printf("  %s\n", s.env.v[i]);
	}
	if (explain) {
		r = 0;
		goto done;
	}
	if (send_args(&s, e) < 0) {
		r = bwrap_failed(&s, e);
		goto done;
	}
	s.args_sent = 1;
	pid_t pid = s.bwrap_pid;
	sys_close(&s.ctrl[1]);
	sys_close(&s.info[1]);
	sys_close(&s.bsock[1]);
	/* bwrap creates its namespaces meanwhile, then waits: the mount points
	 * first, then the user namespace's map, then it may mount.  On failure
	 * state_free kills it, still blocked, before it mounted anything. */
	if ((r = protect_materialize(&s.res, &s.prot, e)) < 0)
		goto done;
	if (userns_read_child(s.info[0], -1, &s.sandbox, e) < 0) {
		r = bwrap_failed(&s, e);
		goto done;
	}
	if ((r = userns_map(s.sandbox, pid, geteuid(), getegid(), e)) < 0)
		goto done;
	if (send(s.block[1], "m", 1, MSG_NOSIGNAL) != 1) {
		r = bwrap_failed(&s, e);
		goto done;
	}
	sys_close(&s.block[1]);
	if ((r = protect_started(&s.prot, pid, e)) < 0)
		goto done; /* nothing ran: cordon-inner waits for the bind checks */
	if ((r = send_bind_checks(&s, e)) < 0) {
		/* bwrap failing a mount closes the socket under the checks:
		 * then its own message says why.  Otherwise state_free kills
		 * it: cordon-inner never got BINDS_END. */
		if (r == -EPIPE || r == -ECONNRESET)
			r = bwrap_failed(&s, e);
		goto done;
	}
	resolved_close(&s.res);
	struct supervisor_hooks hooks = { command_gone, &s.prot };
	r = supervisor_wait(pid, s.sandbox, s.ctrl[0], c->timeout, &hooks, &out, e);
	if (out.reaped)
		s.bwrap_pid = 0;
	/* The sandbox is gone, so the bridge's socket is at EOF: it logs its
	 * last connections and exits. */
	bridge_end(&s.bridge_pid, 2000);
	if (r < 0)
		goto done;
	r = supervisor_exit_code(&out);
	if (out.timed_out) {
		struct cordon_err te;
		(void)err_set(&te, ETIMEDOUT, "%s: timed out after %u s; the sandbox was killed",
			      c->cmd[0], c->timeout);
		err_print(&te);
	} else if (out.have_error) {
		err_print(&out.inner_err);
	} else if (!out.started && !out.killed_by) {
		(void)err_set(e, EIO,
			      "bwrap could not build the sandbox (its message, if any, is above); "
			      "run cordon doctor to check this machine");
		r = -EIO;
	}
done:
	state_free(&s);
	return r;
}
