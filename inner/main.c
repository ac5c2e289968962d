/* main.c: cordon-inner, PID 1 of the sandbox (static, musl).
 *
 * Started by bwrap inside the new namespaces with
 *   cordon-inner --control FD [--tmp-private] [--allow-unix-sockets]
 *                [--require-landlock | --root-needs-landlock] [--full-write]
 *                [--tty] [--keep-ignored HEXMASK] [--net none|proxy|full]
 *                [--bridge FD] [--pid-inherit] [--nofile N] [--standin PID]
 *                -- COMMAND...
 * It checks the sandbox before anything of the command runs; any failed
 * check is reported to cordon as one error record and ends the run with 125,
 * the command never started. */
#include <errno.h>
#include <poll.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <unistd.h>
#include "binds.h"
#include "standin.h"
#include "caps.h"
#include "err.h"
#include "landlock.h"
#include "listen.h"
#include "netcheck.h"
#include "pid1.h"
#include "seccomp_bpf.h"
#include "spawn.h"
#include "sys.h"
#include "unixsup.h"
#include "wire.h"
#include "wstatus.h"

struct inner_opts {
	int ctrl;
	int tmp_private;
	int allow_unix_sockets;
	int landlock_need; /* enum landlock_need */
	int full_write;
	enum netcheck_mode net;
	int bridge;      /* --net proxy: the socket to cordon-bridge */
	int pid_inherit;       /* the caller's PID namespace (pid1_share_host_pidns) */
	int tty;               /* spawn.h: the command's own session on its terminal */
	uint64_t keep_ignored; /* spawn.h: signals the caller ignored */
	uint64_t nofile;       /* spawn.h: the caller's soft RLIMIT_NOFILE, 0: keep */
	pid_t standin;         /* standin.h: cordon's parent's host PID, 0: none */
	struct usock_id host_socks[UNIXSUP_HOST_MAX]; /* --allow-socket MAJ:MIN:INO */
	size_t nhost_socks;
	char **cmd;
};

/* MAJOR:MINOR:INODE, decimal, as cordon writes it (launch/inner_link.c). */
static int parse_sock_id(const char *s, struct usock_id *id)
{
	unsigned long long v[3];
	for (int k = 0; k < 3; k++) {
		char *end;
		errno = 0;
		if (*s < '0' || *s > '9')
			return -EINVAL;
		v[k] = strtoull(s, &end, 10);
		if (errno || *end != (k < 2 ? ':' : '\0'))
			return -EINVAL;
		s = end + 1;
	}
	id->dev_major = v[0];
	id->dev_minor = v[1];
	id->ino = v[2];
	return 0;
}

static int parse_args(int argc, char **argv, struct inner_opts *o, struct cordon_err *e)
{
	*o = (struct inner_opts){ .ctrl = -1, .bridge = -1 };
	int i;
	for (i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (strcmp(a, "--") == 0) {
			i++;
			break;
		} else if (strcmp(a, "--control") == 0 && i + 1 < argc) {
			char *end;
			long v = strtol(argv[++i], &end, 10);
			if (*end || v < 3 || v > 65535)
				return err_set(e, EINVAL, "cordon-inner: bad --control %s", argv[i]);
			o->ctrl = (int)v;
		} else if (strcmp(a, "--tmp-private") == 0) {
			o->tmp_private = 1;
		} else if (strcmp(a, "--allow-unix-sockets") == 0) {
			o->allow_unix_sockets = 1;
		} else if (strcmp(a, "--require-landlock") == 0) {
			o->landlock_need = LANDLOCK_REQUIRED;
		} else if (strcmp(a, "--root-needs-landlock") == 0) {
			if (o->landlock_need == LANDLOCK_OPTIONAL)
				o->landlock_need = LANDLOCK_ROOT;
		} else if (strcmp(a, "--full-write") == 0) {
			o->full_write = 1;
		} else if (strcmp(a, "--bridge") == 0 && i + 1 < argc) {
			char *end;
			long v = strtol(argv[++i], &end, 10);
			if (*end || v < 3 || v > 65535)
				return err_set(e, EINVAL, "cordon-inner: bad --bridge %s", argv[i]);
			o->bridge = (int)v;
		} else if (strcmp(a, "--net") == 0 && i + 1 < argc) {
			if (netcheck_mode_parse(argv[++i], &o->net) < 0)
				return err_set(e, EINVAL, "cordon-inner: bad --net %s", argv[i]);
		} else if (strcmp(a, "--pid-inherit") == 0) {
			o->pid_inherit = 1;
		} else if (strcmp(a, "--tty") == 0) {
			o->tty = 1;
		} else if (strcmp(a, "--keep-ignored") == 0 && i + 1 < argc) {
			char *end;
			o->keep_ignored = strtoull(argv[++i], &end, 16);
			if (*end || !*argv[i])
				return err_set(e, EINVAL, "cordon-inner: bad --keep-ignored %s", argv[i]);
		} else if (strcmp(a, "--allow-socket") == 0 && i + 1 < argc) {
			struct usock_id id = { 0, 0, 0, 0, 0 };
			if (o->nhost_socks >= UNIXSUP_HOST_MAX || parse_sock_id(argv[++i], &id) < 0)
				return err_set(e, EINVAL, "cordon-inner: bad --allow-socket %s", argv[i]);
			o->host_socks[o->nhost_socks++] = id;
		} else if (strcmp(a, "--standin") == 0 && i + 1 < argc) {
			char *end;
			long v = strtol(argv[++i], &end, 10);
			if (*end || v < 2 || v > (1 << 22))
				return err_set(e, EINVAL, "cordon-inner: bad --standin %s", argv[i]);
			o->standin = (pid_t)v;
		} else if (strcmp(a, "--nofile") == 0 && i + 1 < argc) {
			char *end;
			o->nofile = strtoull(argv[++i], &end, 10);
			if (*end || !*argv[i] || o->nofile == 0)
				return err_set(e, EINVAL, "cordon-inner: bad --nofile %s", argv[i]);
		} else {
			return err_set(e, EINVAL, "cordon-inner: unknown argument %s "
				       "(cordon-inner is started by cordon, not by hand)", a);
		}
	}
	if (o->ctrl < 0 || i >= argc)
		return err_set(e, EINVAL, "cordon-inner is started by cordon, not by hand");
	o->cmd = argv + i;
	/* The control socket crossed bwrap's exec on purpose; it must not
	 * cross the command's. */
	if (fcntl(o->ctrl, F_SETFD, FD_CLOEXEC) < 0)
		return err_sys(e, errno, "cordon-inner: control socket");
	if (o->bridge >= 0 && fcntl(o->bridge, F_SETFD, FD_CLOEXEC) < 0)
		return err_sys(e, errno, "cordon-inner: bridge socket");
	return 0;
}

/* Ending the run kills every process cordon-inner can see (pid1.c): only
 * right as PID 1 of the sandbox's own PID namespace, where that is the
 * command and what it left.  Anywhere else it could reach the user's other
 * processes. */
static int check_pid1(int pid_inherit, struct cordon_err *e)
{
	if (pid_inherit)
		return 0; /* pid1_share_host_pidns, once cordon's checks are in */
	if (getpid() == 1)
		return 0;
	return err_set(e, EPERM, "cordon-inner is not PID 1 of a new PID namespace (it is %d); "
		       "refusing to run the command: cordon starts bwrap with --unshare-pid "
		       "--as-pid-1, so check which bwrap runs (cordon doctor)", (int)getpid());
}

/* Every set empty but for the capabilities in allowed. */
static int check_caps(uint64_t allowed, struct cordon_err *e)
{
	struct cap_sets s;
	int r = caps_read(&s, e);
	if (r < 0)
		return r;
	s.effective &= ~allowed;
	s.permitted &= ~allowed;
	s.inheritable &= ~allowed;
	s.ambient &= ~allowed;
	s.bounding &= ~allowed;
	return caps_check_empty(&s, e);
}

/* The stand-in is made (by the command's process): the capabilities for
 * it go, and the sets are checked empty before the command may exec. */
static int drop_standin_caps(struct cordon_err *e)
{
	int r = standin_drop();
	if (r < 0)
		return err_sys(e, -r, "cordon-inner: dropping the capabilities bwrap gave for the "
			       "stand-in of cordon's parent PID");
	return check_caps(0, e);
}

/* Write access for Landlock: the writable roots, the private /tmp and /dev
 * (the sandbox's own tmpfs); with --full-write, everything. */
static int prepare_landlock(const struct inner_opts *o, const struct binds *b, int *fd,
			    struct cordon_err *e)
{
	const char *paths[BINDS_MAX + 3];
	size_t n = 0;
	if (o->full_write) {
		paths[n++] = "/";
	} else {
		for (size_t i = 0; i < b->n; i++)
			paths[n++] = b->paths[i];
		if (o->tmp_private)
			paths[n++] = "/tmp";
		paths[n++] = "/dev";
	}
	struct landlock_plan plan = { paths, n, 1 };
	int r = landlock_prepare(&plan, o->landlock_need, fd, e);
	return r < 0 ? r : 0;
}

/* bwrap arms this process's parent-death signal only after its setup: if
 * bwrap died before that (killed with cordon, --die-with-parent), nothing
 * would end the command, and the bind checks cordon queued before it died
 * are still there to read.  cordon holds the other end of the control
 * socket until it exits: once it is gone (hang-up), the command must not
 * start.  If cordon is still alive here, bwrap was alive when it armed the
 * signal, and it ends this process with bwrap. */
static int check_cordon_alive(int ctrl, struct cordon_err *e)
{
	struct pollfd p = { ctrl, POLLRDHUP, 0 };
	int r;
	do
		r = poll(&p, 1, 0);
	while (r < 0 && errno == EINTR);
	if (r < 0)
		return err_sys(e, errno, "cordon-inner: poll on the control socket");
	if (p.revents & (POLLHUP | POLLRDHUP | POLLERR))
		return err_set(e, EPIPE, "cordon-inner: cordon is gone; the command does not start");
	return 0;
}

static int start_supervisor(const struct inner_opts *o, struct spawn_handle *h,
			    struct unixsup *sup, struct cordon_err *e)
{
	int listener = -1;
	int r = spawn_listener(h, &listener, e);
	if (r == 0)
		r = unixsup_start(sup, listener, o->net == NETCHECK_FULL, e);
	for (size_t i = 0; r == 0 && i < o->nhost_socks; i++)
		if (unixsup_allow_host(sup, &o->host_socks[i]) < 0)
			r = err_set(e, ENOSPC, "cordon-inner: more than %d --allow-unix-socket",
				    UNIXSUP_HOST_MAX);
	return r;
}

/* The checks, in order; the command's process is forked (confined, waiting)
 * before the network check so that both proceed at once on two CPUs, and it
 * execs only once every check has passed. */
static int setup_and_spawn(const struct inner_opts *o, const sigset_t *orig,
			   struct unixsup *sup, pid_t *cmd, struct cordon_err *e)
{
	struct binds b = { .n = 0 };
	struct spawn_handle h = { -1, -1, -1, -1 };
	int landlock_fd = -1;
	struct sock_fprog prog;
	int r;

	if (!o->cmd || !o->cmd[0]) {
		r = err_set(e, EINVAL, "cordon-inner: no command");
		goto out;
	}
	/* With a stand-in, the two capabilities bwrap gave for it and no
	 * other until the fork; then none (check_caps below). */
	if ((r = check_pid1(o->pid_inherit, e)) < 0 ||
	    (r = check_caps(o->standin ? STANDIN_CAPS : 0, e)) < 0 ||
	    (r = pid1_make_undumpable(e)) < 0)
		goto out;
	if ((r = binds_receive_and_check(o->ctrl, &b, e)) < 0)
		goto out;
	/* After the checks arrived: cordon is then past the limits, which it
	 * sets on this process while it lives. */
	if (o->pid_inherit && (r = pid1_share_host_pidns(e)) < 0)
		goto out;
	if ((r = prepare_landlock(o, &b, &landlock_fd, e)) < 0)
		goto out;
	seccomp_bpf_program(o->allow_unix_sockets, &prog);
	struct spawn_plan sp = { o->cmd, orig, landlock_fd, &prog, o->tty, o->keep_ignored,
				 !o->allow_unix_sockets, o->nofile, o->pid_inherit ? 0 : o->standin };
	if ((r = spawn_start(&sp, &h, e)) < 0)
		goto out;
	if (o->standin && (r = drop_standin_caps(e)) < 0) {
		spawn_abort(&h);
		goto out;
	}
	/* PID 1's own filter comes after the fork (the command must not
	 * inherit it) and after the network check (netlink), the proxy
	 * listeners (socket, bind, listen) and the Unix socket supervisor's
	 * setup (its listener, its sock_diag socket), before the command
	 * execs: the command's first connect() already needs an answer. */
	if ((r = netcheck_for_mode(o->net, e)) < 0 ||
	    (r = listen_for_mode(o->net, o->bridge, e)) < 0 ||
	    (!o->allow_unix_sockets && (r = start_supervisor(o, &h, sup, e)) < 0) ||
	    (r = pid1_confine(e)) < 0) {
		spawn_abort(&h);
		goto out;
	}
	if ((r = check_cordon_alive(o->ctrl, e)) < 0) {
		spawn_abort(&h);
		goto out;
	}
	pid_t pid = spawn_release(&h, o->cmd[0], e);
	if (pid < 0) {
		r = (int)pid;
		goto out;
	}
	*cmd = pid;
	r = 0;
out:
	sys_close(&landlock_fd);
	binds_free(&b);
	return r;
}

/* bwrap execs us as /proc/self/fd/N (bwrap 0.8 has no --argv0), so the
 * kernel named us "N" and ps showed that path: the name for ps, top and
 * pgrep, and argv[0] rewritten in place (never longer than it was) for the
 * command line ps -f shows. */
static void name_self(char *argv0)
{
	static const char name[] = "cordon-inner";
	(void)prctl(PR_SET_NAME, name, 0, 0, 0);
	size_t len = argv0 ? strlen(argv0) : 0;
	if (len >= sizeof(name) - 1) {
		memset(argv0, 0, len);
		memcpy(argv0, name, sizeof(name) - 1);
	}
}

int main(int argc, char **argv)
{
	struct cordon_err e = { 0 };
	struct inner_opts o;
	sigset_t watch, orig;
	pid_t cmd = -1;

	name_self(argv[0]);

	/* Block first: a signal cordon forwards before the command exists must
	 * wait for it rather than be lost (PID 1 drops default-action signals). */
	pid1_forwarded_set(&watch);
	sigaddset(&watch, SIGCHLD);
	sigaddset(&watch, WIRE_END_SIGNAL);
	if (sigprocmask(SIG_BLOCK, &watch, &orig) < 0) {
		(void)err_sys(&e, errno, "cordon-inner: sigprocmask");
		err_print(&e);
		return EXIT_CORDON_FAILED;
	}
	if (parse_args(argc, argv, &o, &e) < 0) {
		err_print(&e);
		return EXIT_CORDON_FAILED;
	}
	/* cordon starts bwrap with the end signals ignored (a SIGTERM to bwrap
	 * must not end the sandbox), and an ignored signal stays ignored
	 * across exec: ours are read from the signalfd, so back to the
	 * default (blocked, nothing changes meanwhile).  Those the caller
	 * ignored stay ignored (--keep-ignored): cordon forwards none of them. */
	struct sigaction dfl;
	memset(&dfl, 0, sizeof(dfl));
	dfl.sa_handler = SIG_DFL;
	for (int sig = 1; sig <= 64 && sig < NSIG; sig++)
		if (sigismember(&watch, sig) == 1 && !(o.keep_ignored >> (sig - 1) & 1) &&
		    sigaction(sig, &dfl, NULL) < 0) {
			(void)err_sys(&e, errno, "cordon-inner: sigaction");
			err_print(&e);
			return EXIT_CORDON_FAILED;
		}
	AUTO_FD sfd = signalfd(-1, &watch, SFD_CLOEXEC | SFD_NONBLOCK);
	if (sfd < 0)
		(void)err_sys(&e, errno, "cordon-inner: signalfd");
	struct pid1_term term;
	pid1_term_init(&term, o.ctrl);
	/* Served by the PID-1 loop while the command runs.  Static for its
	 * size (the set of sockets bound inside, fixed), not on the stack. */
	static struct unixsup sup = UNIXSUP_INIT;

	if (sfd < 0 || setup_and_spawn(&o, &orig, &sup, &cmd, &e) < 0) {
		if (wire_send(o.ctrl, WIRE_ERROR, &e, sizeof(e), -1) < 0)
			err_print(&e); /* cordon is gone: say it here */
		return e.exit_code ? e.exit_code : EXIT_CORDON_FAILED;
	}
	int32_t pid32 = (int32_t)cmd;
	if (wire_send(o.ctrl, WIRE_STARTED, &pid32, sizeof(pid32), -1) < 0) {
		/* cordon is gone; --die-with-parent is about to end us anyway. */
	}
	int wstatus;
	struct wstatus_end end;
	if (pid1_run(cmd, sfd, o.tty ? &term : NULL, &sup, &wstatus) < 0 ||
	    wstatus_decode(wstatus, &end) < 0)
		return EXIT_CORDON_FAILED;
	/* Every other process of the namespace is dead and reaped: cordon may
	 * clean up on the host while bwrap tears the namespace down.  The wait
	 * status itself, not our exit status: 128+N is ambiguous. */
	int32_t st32 = wstatus;
	if (wire_send(o.ctrl, WIRE_EXITED, &st32, sizeof(st32), -1) < 0) {
		/* cordon is gone; nobody is waiting for this. */
	}
	sys_close(&o.ctrl);
	return wstatus_exit_code(&end);
}
