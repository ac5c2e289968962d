/* run.c: see run.h.  The phases of a run, in order, each one call into the
 * module that owns it.  Everything that can be checked is checked before
 * anything is created on the host or any process started; bwrap is started
 * early (it loads itself while cordon does the registry's work) and waits
 * for its options, then for its release. */
#include "run.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>
#include "explain.h"
#include "hostpaths/protect.h"
#include "launch/pty.h"
#include "launch/sandbox_limits.h"
#include "nesting.h"
#include "netnote.h"
#include "outcome.h"
#include "prepare.h"
#include "supervise.h"

/* Read-only paths opened after bwrap was started (materialized and pinned
 * protected names, the registry carve-out) are not in its descriptor table,
 * even where their number is (cordon reuses freed numbers): they are bound by
 * path and checked by cordon-inner instead. */
static void mark_late(struct resolved *r)
{
	for (size_t i = 0; i < r->ncarves; i++)
		r->carves[i].late = !r->carves[i].inherited;
	for (size_t i = 0; i < r->nprotects; i++)
		r->protects[i].late = !r->protects[i].inherited;
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
static int send_checks(struct prepared *p, struct cordon_err *e)
{
	int r = inner_link_send_checks(&p->inner, &p->res, e);
	if (r == -EPIPE || r == -ECONNRESET)
		r = bwrap_fail(&p->bwrap, e);
	return r;
}

struct run_ctx {
	struct protect_run *prot;
	struct pty *pty;
};

static void on_exited(void *ctx)
{
	command_gone(((struct run_ctx *)ctx)->prot);
}

static void on_winch(void *ctx)
{
	pty_resize(((struct run_ctx *)ctx)->pty);
}

static void on_keys(struct supervise_watch *w, short revents)
{
	(void)revents;
	if (pty_input(w->ctx) < 0)
		w->fd = -1;
}

static void on_output(struct supervise_watch *w, short revents)
{
	(void)revents;
	if (pty_output(w->ctx) < 0)
		w->fd = -1;
}

static int supervise(const struct config *c, struct prepared *p, struct protect_run *prot,
		     struct pty *pty, const struct supervise_signals *sig, struct cordon_err *e)
{
	struct run_outcome out = { 0 };
	struct run_ctx ctx = { prot, pty };
	struct supervise_watch relay[2] = {
		{ pty->master >= 0 ? pty->in : -1, POLLIN, on_keys, pty },
		{ pty->master, POLLIN, on_output, pty },
	};
	struct supervise_spec s = {
		.bwrap = p->bwrap.pid, .sandbox = p->bwrap.child, .ctrl = p->inner.ctrl[0],
		.timeout = c->timeout, .kill_after = c->kill_after, .sig = sig,
		.on_exited = on_exited, .on_winch = pty->master >= 0 ? on_winch : NULL, .ctx = &ctx,
		.watch = relay, .nwatch = 2,
	};
	int r = pty_raw(pty, e);
	if (r == 0)
		r = supervise_run(&s, &out, e);
	if (out.reaped)
		bwrap_reaped(&p->bwrap);
	/* The user's terminal back before anything is said on it. */
	pty_close(pty);
	/* The sandbox is gone, so the bridge's socket is at end of file: it
	 * logs its last connections and exits. */
	bridge_end(&p->bridge, 2000);
	return r < 0 ? r : outcome_finish(&out, c, e);
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

/* --net none: the sandbox's no-route counters, opened once its namespaces
 * exist, for the note after a failed run (netnote.h). */
static int watch_network(const struct config *c, const struct prepared *p, struct netnote *n)
{
	if (c->net == NET_NONE)
		netnote_open(n, p->bwrap.child);
	return 0;
}

int run_sandbox(const struct config *c, struct cordon_err *e)
{
	struct supervise_signals sig;
	struct prepared p;
	struct protect_run prot = PROTECT_RUN_INIT;
	struct pty pty = PTY_INIT;
	struct netnote net = NETNOTE_INIT;
	int r;
	prepare_init(&p);
	pid_t parent = getppid();

	if (c->die_with_parent && (r = die_with_parent(parent, e)) < 0)
		return r;
	if ((r = nesting_check(e)) < 0 || (r = supervise_block_signals(&sig, e)) < 0)
		return r;
	if ((r = pty_open(&pty, e)) < 0)
		goto done;
	struct inner_term t = { pty.master >= 0, sig.ignored };
	if ((r = prepare_open(c, &t, &p, e)) < 0 ||
	    (r = name_sandbox_socket(&p.inner, &prot, e)) < 0 ||
	    (r = bridge_start(&p.bridge, c, &sig.old_mask, e)) < 0 ||
	    (r = start_bwrap(&p, &pty, &sig, e)) < 0 ||
	    (r = protect_prepare(&p.res, c->full_write, p.bwrap.pid, &prot, e)) < 0)
		goto done;
	mark_late(&p.res);
	if ((r = prepare_argv(c, &p, e)) < 0)
		goto done;
	if (c->verbose)
		explain_verbose(&p.argv);
	/* bwrap creates its namespaces meanwhile, then waits: the mount points
	 * first, then the user namespace's map, then it may mount.  On failure
	 * the teardown kills it, still blocked, before it mounted anything. */
	if ((r = bwrap_send_args(&p.bwrap, p.argv.v, p.nopts, e)) < 0 ||
	    (r = protect_materialize(&p.res, &prot, e)) < 0 ||
	    (r = bwrap_map(&p.bwrap, geteuid(), getegid(), e)) < 0 ||
	    (r = sandbox_limits_apply(p.bwrap.child, &p.limits, e)) < 0 ||
	    (r = watch_network(c, &p, &net)) < 0 ||
	    (r = bwrap_release(&p.bwrap, e)) < 0 ||
	    (r = protect_started(&prot, p.bwrap.pid, e)) < 0 ||
	    (r = send_checks(&p, e)) < 0)
		goto done;
	resolved_close(&p.res);
	r = supervise(c, &p, &prot, &pty, &sig, e);
	netnote_finish(&net, r > 0 && r < EXIT_TIMEOUT);
done:
	netnote_finish(&net, 0);
	bwrap_close(&p.bwrap);
	pty_close(&pty);
	protect_release(&prot);
	prepare_free(&p);
	return r;
}
