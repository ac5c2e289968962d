/* run.c: see run.h.  The phases of a run, in order, each one call into the
 * module that owns it.  Everything that can be checked is checked before
 * anything is created on the host or any process started; bwrap is started
 * early (it loads itself while cordon does the registry's work) and waits
 * for its options, then for its release. */
#include "run.h"

#include <errno.h>
#include <sys/stat.h>
#include <unistd.h>
#include "explain.h"
#include "hostpaths/protect.h"
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
static void command_gone(void *ctx)
{
	protect_command_gone(ctx);
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

static int start_bwrap(struct prepared *p, const struct supervise_signals *sig,
		       struct cordon_err *e)
{
	char *empty_env[] = { NULL };
	struct bwrap_start s = {
		p->bin.fd, &p->bo, p->env.v ? p->env.v : empty_env, p->keep, p->nkeep,
		&sig->old_mask,
	};
	int r = bwrap_start(&p->bwrap, &s, e);
	if (r == 0) {
		inner_link_started(&p->inner);
		bridge_link_started(&p->bridge);
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

static int supervise(const struct config *c, struct prepared *p, struct protect_run *prot,
		     const struct supervise_signals *sig, struct cordon_err *e)
{
	struct run_outcome out;
	struct supervise_spec s = {
		.bwrap = p->bwrap.pid, .sandbox = p->bwrap.child, .ctrl = p->inner.ctrl[0],
		.timeout = c->timeout, .kill_after = c->kill_after, .sig = sig,
		.on_exited = command_gone, .ctx = prot,
	};
	int r = supervise_run(&s, &out, e);
	if (out.reaped)
		bwrap_reaped(&p->bwrap);
	/* The sandbox is gone, so the bridge's socket is at end of file: it
	 * logs its last connections and exits. */
	bridge_end(&p->bridge, 2000);
	return r < 0 ? r : outcome_finish(&out, c, e);
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
	struct netnote net = NETNOTE_INIT;
	int r;
	prepare_init(&p);
	struct inner_term t = { 0, 0 };

	if ((r = nesting_check(e)) < 0 || (r = supervise_block_signals(&sig, e)) < 0)
		return r;
	if ((r = prepare_open(c, &t, &p, e)) < 0 ||
	    (r = name_sandbox_socket(&p.inner, &prot, e)) < 0 ||
	    (r = bridge_start(&p.bridge, c, &sig.old_mask, e)) < 0 ||
	    (r = start_bwrap(&p, &sig, e)) < 0 ||
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
	    (r = watch_network(c, &p, &net)) < 0 ||
	    (r = bwrap_release(&p.bwrap, e)) < 0 ||
	    (r = protect_started(&prot, p.bwrap.pid, e)) < 0 ||
	    (r = send_checks(&p, e)) < 0)
		goto done;
	resolved_close(&p.res);
	r = supervise(c, &p, &prot, &sig, e);
	netnote_finish(&net, r > 0 && r < EXIT_TIMEOUT);
done:
	netnote_finish(&net, 0);
	bwrap_close(&p.bwrap);
	protect_release(&prot);
	prepare_free(&p);
	return r;
}
