/* guardian.c: see guardian.h. */
#include "hostpaths/guardian.h"

#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <dirent.h>
#include "wire_guardian.h"
#include "procstat.h"
#include "hostpaths/cgroup.h"
#include "hostpaths/gitstate.h"
#include "hostpaths/guardian_scan.h"
#include "hostpaths/protect_quarantine.h"
#include "hostpaths/registry_sweep.h"
#include "launch/detach.h"
#include "sys.h"
#include "grow.h"

#define READY_TIMEOUT_MS 5000
#define DONE_WAIT_MS 1000
#define GONE_WAIT_MS 60000
#define NAME "cordon-guardian"

/* The watched roots cordon named (GWIRE_WATCH): as many as cordon watches
 * (a repository with many submodules has two or three per git dir), each
 * kept whole; the table grows geometrically. */
struct watched {
	struct gwire_watch *v;  /* as parsed: the root's path, then its names */
	size_t n, cap;
};

/* A new entry at the end of wd, or NULL without memory (that root then goes
 * unrechecked: the guardian has nobody to tell, and the next cordon's sweep
 * and the user's git still see what is there). */
static struct gwire_watch *watched_add(struct watched *wd)
{
	if (grow_reserve(&wd->v, &wd->cap, wd->n + 1, sizeof(*wd->v)) < 0)
		return NULL;
	return &wd->v[wd->n];
}

/* cordon is gone and so is the sandbox: every watched name that is there
 * now is moved aside, as cordon would have (outer/protect_watch.c); nothing is
 * deleted.  Each was missing when the run started (cordon watches only
 * missing names, and refuses to start when one appears before the
 * command), so whatever is there now was made during the run, whatever
 * its timestamps say: a directory renamed into place, or an old file
 * linked there, keeps its old birth time.  Nobody is left to tell. */
static void recheck_watched(struct watched *wd)
{
	for (size_t i = 0; i < wd->n; i++) {
		const struct gwire_watch *wr = &wd->v[i];
		/* gwire_watch_parse checked the layout: the path, NUL, the names */
		const char *rootpath = wr->text, *wnames = wr->text + strlen(wr->text) + 1;
		char names[GWIRE_TEXT_MAX];
		struct stat st;
		/* The root cordon watched, or nothing: opened by path now, so
		 * checked against the identity cordon sent; through the modes
		 * the command may have set on the way (protect_quarantine.h). */
		int64_t bs = 0;
		uint32_t bn = 0;
		AUTO_FD root = protect_quarantine_open_dir(rootpath);
		if (root < 0 || fstat(root, &st) < 0 || st.st_dev != wr->dev ||
		    st.st_ino != wr->ino ||
		    protect_quarantine_time(root, "", AT_EMPTY_PATH, &bs, &bn) < 0 ||
		    bs != wr->born_sec || bn != wr->born_nsec)
			continue;
		(void)snprintf(names, sizeof(names), "%s", wnames);
		char *save = NULL;
		/* The last chance: what cannot be moved is disarmed
		 * (protect_quarantine.h). */
		for (char *n = strtok_r(names, "/", &save); n; n = strtok_r(NULL, "/", &save)) {
			struct protect_quarantine_took t;
			if (protect_quarantine_take(root, n, NULL, 1, &t) == 1 && t.err < 0) {
				/* Left in place (disarmed where it could be):
				 * nobody is left to tell. */
			}
		}
	}
	free(wd->v);
	*wd = (struct watched){ NULL, 0, 0 };
}

/* The git dirs of --git commit cordon named (GWIRE_GITDIR), each with its
 * descriptor. */
struct gitdirs {
	struct gwire_gitdir g[GWIRE_GITDIR_MAX];
	int fd[GWIRE_GITDIR_MAX];
	int links[GWIRE_GITDIR_MAX];  /* GWIRE_GITLINKS: a memfd, or -1 */
	const char *path[GWIRE_GITDIR_MAX], *checkout[GWIRE_GITDIR_MAX];
	size_t n;
};

/* cordon is gone and so is the sandbox: the end of a --git commit run, as
 * cordon would have done it (hostpaths/gitstate.h), from the git dirs'
 * descriptors and the moment the run started.  cordon may have been killed
 * before its own end, in the middle of it, or after it: each step finds
 * only what is still there.  Nobody is left to read stderr (it is
 * /dev/null here); what was moved aside keeps its quarantine name. */
static void redo_git_end(struct gitdirs *gd)
{
	struct gitstate g = GITSTATE_INIT;
	struct cordon_err e;
	for (size_t i = 0; i < gd->n; i++) {
		unsigned f = gd->g[i].flags;
		struct gitstate_spec s = {
			gd->fd[i], gd->path[i], gd->checkout[i],
			((f & GWIRE_GITDIR_TOP) ? GITSTATE_TOP : 0) |
				((f & GWIRE_GITDIR_REPO) ? GITSTATE_REPO : 0),
			(dev_t)gd->g[i].root_dev, (ino_t)gd->g[i].root_ino };
		g.since = (struct timespec){ (time_t)gd->g[i].since_sec, (long)gd->g[i].since_nsec };
		/* One that cannot be taken (its checkout root is gone or is
		 * another directory now) leaves the others to be done. */
		size_t nrepos = g.nrepos;
		if (gitstate_add(&g, &s, &e) < 0 && e.err == ENOMEM)
			break;
		/* Without it every gitlink counts as new: stricter, never looser. */
		if (g.nrepos > nrepos && gd->links[i] >= 0)
			(void)gitstate_load_links(&g, gd->links[i]);
	}
	(void)gitstate_settle(&g, NULL, NULL);
	gitstate_free(&g);
	for (size_t i = 0; i < gd->n; i++) {
		sys_close(&gd->fd[i]);
		sys_close(&gd->links[i]);
	}
	gd->n = 0;
}

/* The user's terminal as cordon left it to the guardian (GWIRE_TERMINAL). */
static struct {
	int fd;
	struct gwire_terminal mode;
} held_terminal = { -1, { { 0 }, { 0 } } };

static int same_mode(const struct termios *a, const struct termios *b)
{
	return a->c_iflag == b->c_iflag && a->c_oflag == b->c_oflag &&
	       a->c_cflag == b->c_cflag && a->c_lflag == b->c_lflag &&
	       memcmp(a->c_cc, b->c_cc, sizeof(a->c_cc)) == 0;
}

/* cordon died: the user's terminal gets its mode back if it is still the
 * raw one cordon set.  Any other mode is someone else's now (cordon put it
 * back, or the user's shell, which saw cordon die, set its own): left
 * alone.  The guardian leads a session of its own and never made this
 * terminal its controlling one, so no job control stops it here. */
static void restore_terminal(void)
{
	struct termios now;
	if (held_terminal.fd >= 0 && tcgetattr(held_terminal.fd, &now) == 0 &&
	    same_mode(&now, &held_terminal.mode.raw))
		(void)tcsetattr(held_terminal.fd, TCSANOW, &held_terminal.mode.saved);
	sys_close(&held_terminal.fd);
}

static int listen_to_cordon(int sock, struct gwire_sandbox *sb, int *pidfd, struct watched *wd,
			    struct gitdirs *gd)
{
	struct wire_peer peer = { GWIRE_TO_GUARDIAN, 0 };
	for (;;) {
		struct wire_rec rec;
		struct cordon_err e;
		int r = wire_recv_proto(&gwire_proto, sock, &peer, &rec, &e);
		/* cordon closing its end with "ready" unread sets ECONNRESET
		 * on this one, reported once, ahead of the records it sent
		 * before ("done"): read on. */
		if (r == -ECONNRESET)
			continue;
		if (r <= 0)
			return 0;
		if (rec.type == GWIRE_DONE)
			return 1;
		if (rec.type == GWIRE_SANDBOX && gwire_sandbox_parse(rec.data, rec.len, sb) == 0) {
			*pidfd = rec.fd;
			continue;
		}
		if (rec.type == GWIRE_TERMINAL) {
			memcpy(&held_terminal.mode, rec.data, sizeof(held_terminal.mode));
			held_terminal.fd = rec.fd;
			continue;
		}
		if (rec.type == GWIRE_GITDIR && gd->n < GWIRE_GITDIR_MAX &&
		    gwire_gitdir_parse(rec.data, rec.len, &gd->g[gd->n], &gd->path[gd->n],
				       &gd->checkout[gd->n]) == 0) {
			gd->links[gd->n] = -1;
			gd->fd[gd->n++] = rec.fd;
			continue;
		}
		if (rec.type == GWIRE_GITLINKS && gd->n > 0 && gd->links[gd->n - 1] < 0) {
			gd->links[gd->n - 1] = rec.fd;
			continue;
		}
		if (rec.type == GWIRE_WATCH) {
			struct gwire_watch *wr = watched_add(wd);
			const char *root, *names;
			if (!wr)
				continue;
			if (gwire_watch_parse(rec.data, rec.len, wr, &root, &names) == 0 &&
			    root == wr->text && names == root + strlen(root) + 1) {
				wd->n++;
				continue;
			}
		}
		sys_close(&rec.fd);
		memset(sb, 0, sizeof(*sb));
		return 0;
	}
}

/* How long a guardian waits for another sandbox to let go of the run's
 * directories before it leaves them, and the record, to the next sweep. */
#define HELD_WAIT_MS (10L * 60 * 1000)
#define NAP_MIN_MS 50
#define NAP_MAX_MS 5000

/* Release the record as cordon would have.  A directory of the run that
 * another sandbox binds holds the sweep up (-EBUSY): wait, unlocked, until
 * that sandbox lets go, then sweep again.  What no lock explains (the
 * directory is a mount point here, say) only time may change: nap,
 * doubling the nap.  Each round rewrites the record only if an entry left
 * it; without the naps, one such directory kept a guardian sweeping and
 * rewriting its record hundreds of times a second.  After HELD_WAIT_MS the
 * record stays for the next sweep. */
static void release_record(struct registry *reg, const char *name)
{
	struct cordon_err e;
	long long give_up = sys_now_ms() + HELD_WAIT_MS;
	long nap = NAP_MIN_MS;
	for (;;) {
		int rc = registry_lock(reg, &e);
		if (rc == 0)
			rc = registry_sweep(reg, name, NULL, NULL, &e);
		registry_unlock(reg);
		long left = (long)(give_up - sys_now_ms());
		if (rc != -EBUSY || left <= 0)
			return;
		int w = registry_wait_unbound(reg, name, left);
		if (w < 0)
			return;
		if (w == 0) {
			sys_sleep_ms(nap);
			nap = nap * 2 > NAP_MAX_MS ? NAP_MAX_MS : nap * 2;
		}
	}
}

/* Show what this process is: `ps` and `pgrep -f` read the command line
 * from the argument area, still cordon's (which names the command), so a
 * search for the command's processes would find the guardian too.  The
 * area is overwritten in place (its length from /proc, its start checked
 * against argv[0] as libc saw it); if that cannot be done only the name
 * (PR_SET_NAME, as `ps -o comm` shows it) changes. */
static void name_itself(void)
{
	(void)prctl(PR_SET_NAME, NAME, 0, 0, 0);
	/* Zeroed: cppcheck takes read(2)'s buffer for one it reads. */
	char head[4096] = { 0 }, rest[4096] = { 0 };
	int fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	ssize_t n = sys_read_full(fd, head, sizeof(head));
	size_t first = n > 0 ? (size_t)n : 0, total = first;
	while (n > 0 && (n = sys_read_full(fd, rest, sizeof(rest))) > 0)
		total += (size_t)n;
	sys_close(&fd);
	char *arg0 = program_invocation_name;
	size_t len0 = strlen(arg0) + 1;
	if (n < 0 || total < sizeof(NAME) || first < len0 || memcmp(head, arg0, len0) != 0)
		return;
	memset(arg0, 0, total);
	memcpy(arg0, NAME, sizeof(NAME));
}

/* The guardian's life once it runs on its own.  It is a process of its own
 * now, single-threaded (cordon has no threads, and fork copies only the
 * calling one), so ordinary library calls are safe here.  It never returns
 * and never calls exit(): that would flush stdio buffers copied from cordon.
 * `from` is cordon's registry handle as fork copied it: only its dirfd is
 * still open here, and the guardian makes a handle of its own from it. */
static void __attribute__((noreturn)) guardian_main(int sock, const struct registry *from,
						      const char *name, ino_t sandbox_sock)
{
	struct gwire_sandbox sb = { 0 };
	int pidfd = -1;
	struct cordon_err e;
	struct registry reg = REGISTRY_INIT;

	name_itself();
	/* cordon knows this process's pid and start time already (it read
	 * them from /proc for its unreaped child): "ready" says only that it
	 * runs on its own now. */
	/* Without a handle of its own (the registry changed under it), it
	 * still ends what is left of the run; the record stays for the next
	 * sweep. */
	int have_reg = 0;
	if (from) {
		have_reg = registry_dup(from, &reg, &e) == 0;
		int inherited = from->dirfd;
		sys_close(&inherited);
	}
	/* If cordon is gone already, there is nobody to tell, but all the
	 * more to clean up. */
	int sent = wire_send(sock, GWIRE_READY, NULL, 0, -1);
	(void)sent;
	struct watched wd = { NULL, 0, 0 };
	static struct gitdirs gd;
	if (listen_to_cordon(sock, &sb, &pidfd, &wd, &gd))
		_exit(0);
	/* First: the user is looking at that terminal now. */
	restore_terminal();

	if (sandbox_sock)
		gscan_kill_holders(sandbox_sock);
	int kids[GSCAN_MAX_CHILDREN];
	size_t nkids = 0;
	pid_t sandbox = sb.pid;
	if (sandbox > 0 && (pidfd >= 0 ? gscan_alive(pidfd) : gscan_same_process(sandbox, sb.start)))
		nkids = gscan_sandbox_children(sandbox, kids, GSCAN_MAX_CHILDREN);
	/* Killed, or dying with cordon: gone in a moment.  A sandbox still
	 * there after GONE_WAIT_MS may still bind the run's directories:
	 * the names it created are moved aside, but its record stays for a
	 * sweep that finds it gone. */
	int gone = gscan_wait_gone(sandbox, sb.start, pidfd, kids, nkids, GONE_WAIT_MS) == 0;
	recheck_watched(&wd);
	redo_git_end(&gd);
	/* cordon's own cgroup (and any other dead run's) goes now: its name
	 * says cordon is gone.  The guardian is in cordon's cgroups, so it
	 * looks where cordon made them. */
	cgroup_sweep();

	/* cordon is gone and so is its sandbox: release its record exactly as
	 * cordon would have.  A failure leaves the record to the next sweep. */
	if (have_reg && gone)
		release_record(&reg, name);
	registry_close(&reg);
	_exit(0);
}

/* What the forked guardian starts from (launch/detach.h: a copy of
 * cordon, settled in a session of its own). */
struct guardian_job {
	int sock;
	const struct registry *reg;
	const char *name;
	ino_t sandbox_sock;
};

static void guardian_child(void *ctx)
{
	const struct guardian_job *j = ctx;
	guardian_main(j->sock, j->reg, j->name, j->sandbox_sock);
}

int guardian_start(struct guardian *g, const struct registry *reg, const char *name,
		   ino_t sandbox_sock, struct cordon_err *e)
{
	int sv[2];
	*g = (struct guardian)GUARDIAN_INIT;
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0)
		return err_sys(e, errno, "cannot start the guardian: socketpair");
	/* Its job is to outlive cordon and finish the cleanup: a hangup, an
	 * interrupt or a polite termination must not cut it short (it exits
	 * by itself as soon as cordon and the sandbox are gone; SIGKILL still
	 * ends it, and then the next sweep cleans up). */
	static const int ignored[] = {
		SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGPIPE, SIGUSR1, SIGUSR2,
		SIGTSTP, SIGTTIN, SIGTTOU,
	};
	int keep[2] = { sv[1], reg ? reg->dirfd : -1 };
	struct guardian_job job = { sv[1], reg, name, sandbox_sock };
	/* One fork, not a double fork: the guardian is reparented when cordon
	 * exits either way, and as cordon's unreaped child its pid cannot be
	 * reused, so its start time read here names it exactly. */
	pid_t pid = detach_child(keep, reg ? 2 : 1, ignored, sizeof(ignored) / sizeof(ignored[0]),
				 guardian_child, &job);
	if (pid < 0) {
		sys_close(&sv[0]);
		sys_close(&sv[1]);
		return err_sys(e, (int)-pid, "cannot start the guardian: fork");
	}
	sys_close(&sv[1]);
	g->sock = sv[0];
	g->pid = pid;
	int r = procstat_start(pid, &g->start);
	if (r < 0) {
		guardian_abandon(g);
		return err_sys(e, -r, "cannot start the guardian: reading its start time");
	}
	return 0;
}

int guardian_confirm(struct guardian *g, struct cordon_err *e)
{
	if (g->sock < 0 || g->pid <= 0)
		return err_set(e, ECHILD, "internal: no guardian to confirm");
	struct pollfd p = { g->sock, POLLIN, 0 };
	int r;
	do
		r = poll(&p, 1, READY_TIMEOUT_MS);
	while (r < 0 && errno == EINTR);
	struct wire_peer peer = { GWIRE_TO_CORDON, 0 };
	struct wire_rec rec;
	struct cordon_err re;
	int n = r == 1 ? wire_recv_proto(&gwire_proto, g->sock, &peer, &rec, &re) : -ETIMEDOUT;
	if (n == 1 && rec.type == GWIRE_READY)
		return 0;
	if (n == 0)
		n = -EPROTO;
	sys_close(&g->sock);
	return err_set(e, n < 0 ? (int)-n : EPROTO,
		       "the guardian did not start (it cleans up if cordon is killed); "
		       "check that this system allows cordon to fork");
}

int guardian_watch(struct guardian *g, pid_t bwrap, uint64_t start, struct cordon_err *e)
{
	if (g->sock < 0)
		return 0;
	/* bwrap is cordon's unreaped child here, so its pid cannot have been
	 * reused: the pidfd is the guardian's race-free handle on it. */
	AUTO_FD pfd = gscan_pidfd_open(bwrap);
	struct gwire_sandbox sb = { (int32_t)bwrap, 0, start };
	int r = wire_send(g->sock, GWIRE_SANDBOX, &sb, sizeof(sb), pfd);
	return r < 0 ? err_sys(e, -r, "cannot reach the guardian") : 0;
}

int guardian_watch_names(struct guardian *g, int rootfd, const char *root, dev_t dev, ino_t ino,
			 const char *names, const struct timespec *since, struct cordon_err *e)
{
	struct gwire_watch w;
	if (g->sock < 0)
		return 0;
	memset(&w, 0, sizeof(w));
	size_t rl = strlen(root), nl = strlen(names);
	if (rl + nl + 2 > sizeof(w.text))
		return err_set(e, ENAMETOOLONG, "too many protected names to watch in %s", root);
	w.since_sec = since->tv_sec;
	w.since_nsec = (uint32_t)since->tv_nsec;
	w.owner = (int32_t)getpid();
	w.dev = dev;
	w.ino = ino;
	if (protect_quarantine_time(rootfd, "", AT_EMPTY_PATH, &w.born_sec, &w.born_nsec) < 0)
		return 0; /* no identity to check it by later: the guardian leaves it */
	memcpy(w.text, root, rl + 1);
	memcpy(w.text + rl + 1, names, nl + 1);
	int r = wire_send(g->sock, GWIRE_WATCH, &w, offsetof(struct gwire_watch, text) + rl + nl + 2,
			  -1);
	return r < 0 ? err_sys(e, -r, "cannot reach the guardian") : 0;
}

int guardian_watch_gitdir(struct guardian *g, int fd, const char *path, const char *checkout,
			  unsigned flags, dev_t root_dev, ino_t root_ino,
			  const struct timespec *since, struct cordon_err *e)
{
	struct gwire_gitdir w;
	if (g->sock < 0)
		return err_set(e, ECHILD, "--git commit: no guardian to redo the end of the run "
			       "for %s if cordon is killed", path);
	memset(&w, 0, sizeof(w));
	const char *co = checkout ? checkout : "";
	size_t pl = strlen(path), cl = strlen(co);
	if (pl + cl + 2 > sizeof(w.text))
		return err_set(e, ENAMETOOLONG, "--git commit: %s: path too long", path);
	w.since_sec = since->tv_sec;
	w.since_nsec = (uint32_t)since->tv_nsec;
	w.flags = flags;
	w.root_dev = checkout ? root_dev : 0;
	w.root_ino = checkout ? root_ino : 0;
	memcpy(w.text, path, pl + 1);
	memcpy(w.text + pl + 1, co, cl + 1);
	int r = wire_send(g->sock, GWIRE_GITDIR, &w, offsetof(struct gwire_gitdir, text) + pl + cl + 2,
			  fd);
	return r < 0 ? err_sys(e, -r, "cannot reach the guardian") : 0;
}

int guardian_watch_gitlinks(struct guardian *g, int fd, struct cordon_err *e)
{
	if (g->sock < 0)
		return err_set(e, ECHILD, "--git commit: no guardian to hand the submodule entries to");
	int r = wire_send(g->sock, GWIRE_GITLINKS, NULL, 0, fd);
	return r < 0 ? err_sys(e, -r, "cannot reach the guardian") : 0;
}

void guardian_terminal(struct guardian *g, int fd, const struct termios *saved,
		       const struct termios *raw)
{
	struct gwire_terminal t;
	if (g->sock < 0)
		return;
	memset(&t, 0, sizeof(t));
	t.saved = *saved;
	t.raw = *raw;
	if (wire_send(g->sock, GWIRE_TERMINAL, &t, sizeof(t), fd) < 0) {
		/* The guardian is gone: nobody to restore it after a SIGKILL. */
	}
}

/* Reap the guardian if it has exited already (it is cordon's child);
 * otherwise it is reparented when cordon exits. */
static void reap_if_gone(struct guardian *g)
{
	if (g->pid > 0)
		(void)waitpid(g->pid, NULL, WNOHANG);
	g->pid = 0;
}

/* A dismissed guardian exits at once: wait for that (at most
 * DONE_WAIT_MS), so that a run that ended normally leaves no process behind
 * once cordon has exited.  Its pid is still its (cordon's unreaped child):
 * its pidfd says when it has exited; without pidfds, its end of the socket
 * closing does. */
static void wait_dismissed(struct guardian *g)
{
	if (g->pid <= 0)
		return;
	AUTO_FD pfd = gscan_pidfd_open(g->pid);
	struct pollfd p = { pfd >= 0 ? pfd : g->sock, pfd >= 0 ? POLLIN : POLLRDHUP, 0 };
	if (p.fd < 0)
		return;
	int r;
	do
		r = poll(&p, 1, DONE_WAIT_MS);
	while (r < 0 && errno == EINTR);
}

void guardian_done(struct guardian *g)
{
	if (g->sock >= 0) {
		/* If the guardian is gone already there is nobody to tell. */
		int r = wire_send(g->sock, GWIRE_DONE, NULL, 0, -1);
		if (r >= 0)
			wait_dismissed(g);
	}
	sys_close(&g->sock);
	reap_if_gone(g);
}

void guardian_abandon(struct guardian *g)
{
	sys_close(&g->sock);
	reap_if_gone(g);
}
