/* run.c: see run.h.  The phases of a run, in order, each one call into the
 * module that owns it.  Everything that can be checked is checked before
 * anything is created on the host or any process started; bwrap is started
 * early (it loads itself while cordon does the registry's work) and waits
 * for its options, then for its release. */
#include "run.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>
#include "explain.h"
#include "hostpaths/caches.h"
#include "hostpaths/protect.h"
#include "launch/detach.h"
#include "hostpaths/userfile.h"
#include "launch/pty.h"
#include "launch/sandbox_limits.h"
#include "nesting.h"
#include "netnote.h"
#include "outcome.h"
#include "prepare.h"
#include "rootcheck.h"
#include "supervise.h"
#include "termrelay.h"
#include "protect_watch.h"
#include "gitrefs.h"
#include "hostpaths/gitstate.h"
#include "path.h"
#include "plan/prefix_decide.h"

/* The guardian moves aside what the command created if cordon dies.  Best
 * effort (a guardian that is gone already: the run goes on, as without its
 * other records); the command has not started yet. */
static int tell_guardian(const struct protect_watch *w, struct protect_run *prot)
{
	struct cordon_err ignored;
	(void)protect_watch_tell(w, &prot->guard, &ignored);
	return 0;
}

/* The watch's inotify instance, taken before the names are decided: when
 * the caller has none left, the run holds its missing names with
 * placeholders instead, and says so once. */
static int reserve_watch(struct protect_watch *w, const struct prepared *p, struct protect_run *prot,
			 struct cordon_err *e)
{
	int r = protect_watch_reserve(w, &p->res, prot, e);
	if (r == 0 && prot->watch_lost)
		fprintf(stderr, "cordon: note: this user has no inotify %s left (%s: %s), so "
			"missing protected names get empty read-only placeholders for this run, "
			"removed at its end, instead of being watched; other processes of yours "
			"hold them (see cordon doctor)\n",
			prot->watch_lost == ENOSPC ? "watch" : "instance", prot->watch_lost_limit,
			strerror(prot->watch_lost));
	return r;
}

/* Another user's link at a protected name that leads to a writable root
 * itself makes that root read-only for the run (plan/linkwalk.h): say so,
 * or the command's failing writes would be a puzzle. */
static void note_read_only_roots(const struct protect_run *prot, const struct resolved *r)
{
	const struct protect_decision *d = protect_decision(prot);
	for (size_t i = 0; i < d->n; i++)
		for (size_t j = 0; d->v[i].via && d->v[i].act == PROTECT_BIND && j < r->nroots; j++)
			if (strcmp(d->v[i].path, r->roots[j].path) == 0)
				fprintf(stderr, "cordon: note: %s is read-only for this run: another "
					"user's symbolic link %s, a protected name, leads to it; have "
					"its owner remove the link, or run without --tmp host\n",
					d->v[i].path, d->v[i].via);
}

/* Nothing of the command is left: the host paths can go before bwrap has
 * finished tearing the namespace down. */
static void command_gone(struct protect_run *prot)
{
	protect_command_gone(prot);
}

/* The guardian ends whoever still holds cordon-inner's end of the control
 * socket if cordon dies (bwrap's child may be blocked for good, see
 * guardian.h): it knows that end by its inode. */
static int name_sandbox_socket(const struct inner_link *l, struct protect_run *prot,
			       struct cordon_err *e)
{
	struct stat st;
	if (fstat(l->ctrl[1], &st) < 0)
		return err_sys(e, errno, "cannot inspect the socket cordon talks to bwrap over");
	prot->sandbox_sock = st.st_ino;
	return 0;
}

static int start_bwrap(struct prepared *p, struct pty *pty, const struct supervise_signals *sig,
		       struct cordon_err *e)
{
	char *empty_env[] = { NULL };
	int stdio[3];
	pty_stdio(pty, stdio);
	struct bwrap_start s = {
		p->bin.fd, &p->bo, p->env.v ? p->env.v : empty_env, p->keep, p->nkeep,
		&sig->old_mask, stdio,
	};
	int r = bwrap_start(&p->bwrap, &s, e);
	if (r == 0) {
		inner_link_started(&p->inner);
		bridge_link_started(&p->bridge);
		pty_started(pty);
	}
	return r;
}

/* bwrap failing a mount closes the control socket under the checks: then
 * its own message says why.  Otherwise the teardown kills it: cordon-inner
 * never got the end of the checks. */
static int send_checks(struct prepared *p, const struct protect_run *prot, struct cordon_err *e)
{
	size_t n;
	const struct rpath *by_path = protect_checks(prot, &n);
	int r = inner_link_send_checks(&p->inner, &p->res, by_path, n, e);
	if (r == -EPIPE || r == -ECONNRESET)
		r = bwrap_fail(&p->bwrap, e);
	return r;
}

/* What the supervisor's callbacks need: the record and guardian, the
 * terminal relay, and the watched names (protect_watch.h). */
struct run_ctx {
	struct protect_run *prot;
	struct pty *pty;
	struct protect_watch *w;
	struct bwrap *bwrap;
	int stopped;          /* cordon killed the sandbox for a name */
	struct termrelay *relay;
};

/* Each watched name found after the run is a violation in --report. */
static void report_found(void *rep, const struct protect_watch_found *f)
{
	char detail[PATH_MAX + 128];
	(void)snprintf(detail, sizeof(detail), "%s created by the command%s%s%s", f->kind,
		       f->disarmed ? "; NOT moved aside: left in place, made mode 000" :
		       !f->moved ? "; NOT moved aside: left in place" :
		       f->removed ? "; then removed by it" : "",
		       f->via ? "; another user's symbolic link leads there: " : "",
		       f->via ? f->via : "");
	report_add_violation(rep, "protected_name", f->name, f->path, f->moved, detail);
}

/* Each root whose path leads elsewhere after the run is one too. */
static void report_moved(void *rep, const struct rootcheck_moved *m)
{
	char detail[96];
	(void)snprintf(detail, sizeof(detail), "the path now leads to %s", m->now);
	report_add_violation(rep, "root_moved", NULL, m->path, NULL, detail);
}

/* A git state file moved aside (--git commit) is a violation in --report. */
static void report_state(void *rep, const char *path, const char *moved, const char *why)
{
	report_add_violation(rep, "git_state", path_base(path), path, moved, why);
}

/* protect_watch_settle for this run: the names it finds go to the report too. */
static size_t settle(struct protect_watch *w, const struct config *c, struct report *rep)
{
	return protect_watch_settle(w, c, report_found, rep);
}

static void on_exited(void *ctx)
{
	struct run_ctx *x = ctx;
	command_gone(x->prot);
	/* Nothing of the command is left to create a name: the watches go now
	 * (protect_watch_settle looks at every name again after bwrap), and their
	 * teardown with them, off the path to cordon's exit. */
	protect_watch_stop(x->w);
}

static void on_winch(void *ctx)
{
	termrelay_winch(((struct run_ctx *)ctx)->relay);
}

static void on_hangup(void *ctx)
{
	termrelay_hangup(((struct run_ctx *)ctx)->relay);
}

static void on_cont(void *ctx)
{
	termrelay_cont(((struct run_ctx *)ctx)->relay);
}

static void on_stopped(void *ctx, int sig)
{
	termrelay_stopped(((struct run_ctx *)ctx)->relay, sig);
}

static void on_name(struct supervise_watch *sw, short revents)
{
	struct run_ctx *x = sw->ctx;
	(void)revents;
	if (protect_watch_on_event(x->w) != 1)
		return;
	/* Nothing inside may go on writing: the whole PID namespace dies
	 * with its PID 1.  bwrap then exits, which ends the loop.  In the
	 * caller's PID namespace the end takes PID 1's kill(-1) first
	 * (bwrap_kill): what the command made is moved aside once it is
	 * done, by the settle after bwrap, never while it may still write. */
	x->stopped = 1;
	bwrap_kill(x->bwrap);
	if (!x->bwrap->shared_pidns)
		protect_watch_move_aside(x->w);
	sw->fd = -1;
}

static int tree_cpu_usec(void *cgroup, unsigned long long *usec)
{
	return cgroup_run_cpu_usec(cgroup, usec);
}

static int supervise(const struct config *c, struct prepared *p, struct protect_run *prot,
		     struct pty *pty, struct protect_watch *w, const struct supervise_signals *sig,
		     struct report *rep, struct run_outcome *out, struct cordon_err *e)
{
	struct supervise_watch watches[TERMRELAY_NWATCH + 1];
	struct termrelay relay;
	struct run_ctx ctx = { prot, pty, w, &p->bwrap, 0, &relay };
	int tty = pty->master >= 0;
	termrelay_start(&relay, pty, watches, &p->inner, &p->bwrap);
	watches[TERMRELAY_NWATCH] = (struct supervise_watch){ w->fd, POLLIN, on_name, &ctx };
	struct supervise_spec s = {
		.bwrap = &p->bwrap, .ctrl = p->inner.ctrl[0],
		.timeout = c->timeout, .kill_after = c->kill_after, .sig = sig,
		.on_exited = on_exited, .on_winch = tty ? on_winch : NULL,
		.on_hangup = tty ? on_hangup : NULL, .on_cont = tty ? on_cont : NULL,
		.on_stopped = tty ? on_stopped : NULL, .ctx = &ctx,
		.watch = watches, .nwatch = TERMRELAY_NWATCH + 1,
		.cpu_limit = p->limits.cpu_tree, .cpu_usec = tree_cpu_usec, .cpu_ctx = &p->cgroup,
	};
	int r = pty_raw(pty, e);
	if (r == 0 && pty->raw)
		guardian_terminal(&prot->guard, pty->term, &pty->saved, &pty->rawmode);
	if (r == 0)
		r = supervise_run(&s, out, e);
	termrelay_stop(&relay);
	/* The user's terminal back before anything is said on it. */
	pty_close(pty);
	/* The sandbox is gone, so the bridge's socket is at end of file: it
	 * logs its last connections and exits. */
	bridge_end(&p->bridge, 2000);
	if (r < 0)
		return r;
	/* bwrap is gone and everything in the sandbox with it: look at every
	 * watched name again (an event can race the end), and at the path of
	 * every root (rootcheck.h).  A name created or a root moved is status
	 * 1 at least; killed by cordon, the command's own status means
	 * nothing. */
	if (out->reaped) {
		size_t found = settle(w, c, rep);
		int moved = rootcheck_settle(&p->res, report_moved, rep, e);
		if (moved < 0) {
			/* Not known to be clean: fails closed, but the command
			 * may have run, so never 125 ("nothing ran"): its own
			 * status, 1 for 0 (issue 30 (d)). */
			err_print(e);
			if (out->lost)
				err_print(&out->lost_err);
			r = outcome_exit_code(out);
			return r == 0 || r == EXIT_CORDON_FAILED ? 1 : r;
		}
		if (found > 0 || moved > 0 || ctx.stopped) {
			if (out->lost)
				err_print(&out->lost_err);
			r = outcome_exit_code(out);
			return ctx.stopped || r == 0 ? 1 : r;
		}
	}
	return outcome_finish(out, c, e);
}

/* --die-with-parent: the kernel sends cordon SIGTERM when the thread that
 * started it exits, and the supervisor ends the sandbox as for any forwarded
 * SIGTERM.  A parent that was gone before the request took effect shows as a
 * changed getppid(): then nothing is started.  Called before the signals are
 * blocked: SIGTERM must reach cordon even if its caller ignored it (the user
 * asked for this end), and until it is blocked it ends cordon before
 * anything exists. */
static int die_with_parent(pid_t parent, struct cordon_err *e)
{
	struct sigaction dfl = { .sa_handler = SIG_DFL };
	if (sigaction(SIGTERM, &dfl, NULL) < 0)
		return err_sys(e, errno, "--die-with-parent: cannot reset SIGTERM");
	if (prctl(PR_SET_PDEATHSIG, SIGTERM) < 0)
		return err_sys(e, errno, "--die-with-parent: cannot ask for a parent-death signal");
	if (getppid() != parent)
		return err_set(e, ESRCH, "--die-with-parent: cordon's parent has already exited; "
			       "nothing was started");
	return 0;
}

/* --cache private: the workspace caches of deleted or long-unused
 * workspaces go, at most once a day, in a process of their own started
 * once the command runs (start-up does not wait for it).  Best effort: a
 * prune that cannot start is tried by the next run. */
static void prune_caches(void *unused)
{
	(void)unused;
	(void)caches_prune();
}

static int start_cache_prune(const struct config *c, const struct prepared *p)
{
	struct cordon_err ignored;
	if (c->cache == CACHE_PRIVATE && p->cache_dir[0] && caches_prune_due() &&
	    detach_run(prune_caches, NULL, &ignored) < 0) {
		/* Not started: the next run tries again. */
	}
	return 0;
}

/* --net-log: opened before anything runs, as a file of the caller's that
 * is no link (hostpaths/userfile.h); the bridge gets the descriptor.  Not
 * in prepare_open: explain must create nothing. */
static int open_net_log(const struct config *c, struct prepared *p, struct cordon_err *e)
{
	int fd = -1;
	if (!c->net_log || c->net != NET_PROXY)
		return 0;
	int r = userfile_append("--net-log", c->net_log, &fd, e);
	if (r == 0)
		bridge_link_log(&p->bridge, fd);
	return r;
}

/* A run holds descriptors for each root, pin and git dir until the
 * sandbox is built: with a few dozen submodules the usual soft limit of
 * 1024 ran out in the middle of the start.  cordon takes its hard limit;
 * the command gets the caller's soft limit back (inner_term.nofile).  Not
 * raised (it cannot fail short of a broken kernel): the run goes on, and a
 * start that runs out fails with its EMFILE, as before.  The limit to give
 * back, 0 when nothing changed. */
static uint64_t raise_nofile(void)
{
	unsigned long long orig = 0;
	if (sys_raise_nofile(&orig) < 0)
		return 0;
	struct rlimit now;
	return getrlimit(RLIMIT_NOFILE, &now) == 0 && now.rlim_cur > orig ? orig : 0;
}

/* --net none: the sandbox's no-route counters, opened once its namespaces
 * exist, for the note after a failed run (netnote.h). */
static int watch_network(const struct config *c, const struct prepared *p, struct netnote *n)
{
	if (c->net == NET_NONE)
		netnote_open(n, p->bwrap.child);
	return 0;
}

/* --net proxy: each decision the bridge recorded, decoded once, to the
 * report and to the lines on refused hosts (netnote.h). */
struct net_seen {
	struct report *rep;
	struct netnote_proxy note;
};

static void on_decision(void *ctx, const struct wire_bridge_decision *d)
{
	struct net_seen *s = ctx;
	report_add_net_decision(s->rep, d);
	netnote_proxy_add(&s->note, d);
}

/* The report is written before the host paths are released: it describes
 * the run, and the paths it names are still the resolved ones. */
static void write_report(struct report *rep, const struct config *c, const struct prepared *p,
			 const struct protect_run *prot, const struct run_outcome *out, int r,
			 const struct cordon_err *e)
{
	struct cordon_err we;
	if (!rep || rep->dirfd < 0)
		return;
	(void)snprintf(rep->cache_dir, sizeof(rep->cache_dir), "%s", p->cache_dir);
	rep->cmd_env = p->env.n ? &p->env : NULL;
	rep->limits = p->limits;
	rep->have_limits = p->limits.decided;
	if (prot->watch_lost)
		(void)snprintf(rep->watch_fallback, sizeof(rep->watch_fallback),
			       "placeholders instead of a watch: %s reached (%s)",
			       prot->watch_lost_limit, strerror(prot->watch_lost));
	rep->pm = p->pm;
	if (out) {
		rep->out.started = out->started;
		rep->out.timed_out = out->timed_out;
		rep->out.timeout_killed = out->timeout_killed;
		rep->out.cpu_exceeded = out->cpu_exceeded;
		rep->out.forwarded = out->killed_by;
		rep->out.have_error = out->have_error;
		rep->out.have_end = outcome_command_end(out, &rep->out.end) == 0;
		rep->out.have_rusage = out->reaped;
		rep->out.rusage = out->rusage;
	}
	const struct cordon_err *why = r < 0 ? e : out && out->have_error ? &out->inner_err : NULL;
	if (report_write(rep, c, &p->res, protect_decision(prot), r < 0 ? EXIT_CORDON_FAILED : r,
			 why, &we) < 0)
		err_print(&we); /* the command has run: its status stands */
}

/* The limits, and the note when /proc/sys turned out read-only only now
 * (prepare_print_lost told what was known before). */
static int apply_limits(struct prepared *p, struct cordon_err *e)
{
	int planned = p->limits.watches_shared;
	int r = sandbox_limits_apply(p->bwrap.child, &p->limits, e);
	if (r == 0 && planned && p->limits.watches_err)
		fprintf(stderr, "cordon: note: inotify and fanotify: %s\n",
			limits_how(&p->limits, LIMITS_WATCHES));
	return r;
}

/* The release window: bwrap, started and waiting for its options, gets
 * them, then waits for its user namespace's map, then for the byte that
 * lets it mount.  Each step, in the order the run needs, with its reason.
 * On a failure the teardown (bwrap_close) kills bwrap and its child: before
 * the release, still blocked before it mounted anything; after it, with
 * cordon-inner waiting for the checks, the command unstarted. */
static int release_window(const struct config *c, struct prepared *p, struct protect_run *prot,
			  struct protect_watch *w, struct gitstate *gs, struct gitrefs *refs,
			  struct netnote *net, struct cordon_err *e)
{
	int r;
	/* bwrap into the run's cgroup before it can clone: its child is born there. */
	if ((r = cgroup_run_make(&p->cgroup, &p->limits, p->bwrap.pid, e)) < 0)
		return r;
	/* Its options: it makes the namespaces and mount points meanwhile. */
	if ((r = bwrap_send_args(&p->bwrap, p->argv.v, p->nopts, e)) < 0)
		return r;
	/* What bwrap binds by path, and the run's record, before it may mount. */
	if ((r = protect_materialize(&p->res, prot, e)) < 0)
		return r;
	/* The missing protected names watched before the command can make one. */
	if ((r = protect_watch_start(w, &p->res, prot, e)) < 0)
		return r;
	/* The git state files as they are before the command, to tell its changes. */
	if ((r = gitstate_start(gs, prot, e)) < 0)
		return r;
	/* The refs as they are before the command, and the git that counts commits. */
	if (gitrefs_start(refs, prot, p->res.roots, p->res.nroots) < 0)
		return err_set(e, ENOMEM, "out of memory");
	/* PID 1's pid, checked as bwrap's child, and its user namespace's map. */
	if ((r = bwrap_map(&p->bwrap, geteuid(), getegid(), e)) < 0)
		return r;
	/* --net none: the namespace's no-route counters, which exist from now. */
	if ((r = watch_network(c, p, net)) < 0)
		return r;
	/* bwrap mounts (its longest step): the rest runs meanwhile. */
	if ((r = bwrap_release(&p->bwrap, e)) < 0)
		return r;
	/* The guardian has bwrap before the command can run: what to wait for. */
	if ((r = protect_started(prot, p->bwrap.pid, e)) < 0)
		return r;
	/* The guardian moves aside what the command created if cordon dies. */
	if ((r = tell_guardian(w, prot)) < 0)
		return r;
	/* And redoes the git end (gitstate.h): before the command can run. */
	if ((r = gitstate_tell(gs, &prot->guard, e)) < 0)
		return r;
	/* The limits, set while bwrap mounts, off the path the start waits on. */
	if ((r = apply_limits(p, e)) < 0)
		return r;
	/* PID 1 in the run's cgroup, bwrap out of it: the limits count the sandbox. */
	if ((r = cgroup_run_enter(&p->cgroup, p->bwrap.pid, p->bwrap.child, e)) < 0)
		return r;
	/* cgroup.kill now reaches the sandbox alone: bwrap_kill writes it too. */
	bwrap_kill_cgroup(&p->bwrap, p->cgroup.kill_fd);
	/* Last: cordon-inner starts the command once it has them, every limit held. */
	return send_checks(p, prot, e);
}

int run_sandbox(const struct config *c, struct report *rep, struct cordon_err *e)
{
	struct run_outcome out = { 0 };
	int have_out = 0;
	struct supervise_signals sig;
	struct prepared p;
	struct protect_run prot = PROTECT_RUN_INIT;
	struct protect_watch w = PROTECT_WATCH_INIT;
	struct gitstate gs = GITSTATE_INIT;
	struct gitrefs refs = GITREFS_INIT;
	/* pty_init sets what is read; the 128 KiB of buffers are left
	 * untouched (no -ftrivial-auto-var-init zeroing, no page faults). */
	struct pty pty __attribute__((uninitialized));
	struct netnote net = NETNOTE_INIT;
	int r;
	prepare_init(&p);
	pty_init(&pty);
	pid_t parent = getppid();

	if ((c->die_with_parent && (r = die_with_parent(parent, e)) < 0) ||
	    (r = nesting_check(e)) < 0 || (r = cgroup_run_name_pick(e)) < 0 ||
	    (r = supervise_block_signals(&sig, e)) < 0) {
		write_report(rep, c, &p, &prot, NULL, r, e);
		prepare_free(&p);
		return r;
	}
	if ((r = pty_open(&pty, e)) < 0)
		goto done;
	struct inner_term t = { pty.master >= 0, sig.ignored, raise_nofile() };
	if ((r = prepare_open(c, &t, &p, &prot, e)) < 0)
		goto done;
	prepare_print_lost(&p);
	if ((r = reserve_watch(&w, &p, &prot, e)) < 0 ||
	    (r = open_net_log(c, &p, e)) < 0 ||
	    (r = name_sandbox_socket(&p.inner, &prot, e)) < 0 ||
	    (r = bridge_start(&p.bridge, c, &sig.old_mask, e)) < 0 ||
	    (r = start_bwrap(&p, &pty, &sig, e)) < 0 ||
	    (r = protect_prepare(&p.res, c->full_write, p.bwrap.pid, &prot, e)) < 0)
		goto done;
	note_read_only_roots(&prot, &p.res);
	if ((r = prepare_argv(c, protect_decision(&prot), &p, e)) < 0 ||
	    (r = prefix_check_not_writable_inside(c->policy_guard, &p.plan, p.res.roots,
						  p.res.nroots, e)) < 0)
		goto done;
	if (c->verbose)
		explain_verbose(&p.argv);
	if ((r = release_window(c, &p, &prot, &w, &gs, &refs, &net, e)) < 0 ||
	    (r = start_cache_prune(c, &p)) < 0)
		goto done;
	resolved_close(&p.res);
	protect_close_fds(&prot);
	r = supervise(c, &p, &prot, &pty, &w, &sig, rep, &out, e);
	have_out = 1;
	netnote_finish(&net, r > 0 && r < EXIT_TIMEOUT);
done:
	netnote_finish(&net, 0);
	bwrap_close(&p.bwrap);
	/* A failure after the command may have started: bwrap is ended now,
	 * so whatever it created is looked at and moved aside too. */
	if (w.fd >= 0)
		(void)settle(&w, c, rep);
	/* supervise checks the roots after a run it saw to the end; a failure
	 * after the release may have let the command run too: the same
	 * check, since the pins are what holds and this is how a miss shows
	 * (before the release the paths are as resolved, and it finds none). */
	if (!have_out && r < 0) {
		struct cordon_err re;
		if (rootcheck_settle(&p.res, report_moved, rep, &re) < 0)
			err_print(&re); /* the run failed already: said beside its own error */
	}
	protect_watch_free(&w);
	/* bwrap is gone here on every path: the git dirs are final.  Their
	 * end first: gitrefs reads them and runs git on them, which must not
	 * open a link or a FIFO the command left there. */
	(void)gitstate_settle(&gs, report_state, rep);
	(void)gitrefs_settle(&refs, rep);
	gitrefs_free(&refs);
	gitstate_say_config(&gs);
	gitstate_free(&gs);
	/* supervise ended the bridge: what it logged is complete. */
	if (have_out && c->net == NET_PROXY) {
		struct net_seen seen = { rep, { 0 } };
		struct cordon_err de;
		if (bridge_decisions(&p.bridge, on_decision, &seen, &de) < 0)
			err_print(&de);
		netnote_proxy_print(&seen.note, r > 0 && r < EXIT_TIMEOUT);
	}
	write_report(rep, c, &p, &prot, have_out ? &out : NULL, r, e);
	pty_close(&pty);
	protect_release(&prot);
	prepare_free(&p);
	return r;
}
