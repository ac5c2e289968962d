/* explain.c: see explain.h. */
#include "explain.h"

#include <limits.h>
#include <stdio.h>
#include <unistd.h>
#include "explain_path.h"
#include "explain_print.h"
#include "hostpaths/caches.h"
#include "hostpaths/protect.h"
#include "prepare.h"
#include "supervise.h"

extern char **environ;

void explain_verbose(const struct argv *a)
{
	fputs("cordon: bwrap", stderr);
	for (size_t i = 1; i < a->n; i++)
		fprintf(stderr, " %s", a->v[i]);
	fputc('\n', stderr);
}

/* The cache directory a run from here would bind (toolenv_cache_root's
 * workspace); explain creates nothing, and one that cannot be named is
 * simply not shown. */
static void cache_path(const struct config *c, const struct resolved *r, char *out, size_t len)
{
	struct cordon_err ignored;
	out[0] = '\0';
	if (c->cache != CACHE_PRIVATE)
		return;
	const char *ws = c->write.n && r->nroots ? r->roots[0].path : r->cwd.path;
	if (!ws || caches_path(ws, out, len, &ignored) < 0)
		out[0] = '\0';
}

/* Planning only: explain creates no socket, memfd, cache directory or keep
 * list (prepare.h). */
static int explain_plan(const struct config *c, struct prepared *p, struct protect_run *prot,
			char *cache, size_t len, struct cordon_err *e)
{
	/* What a run from here would pass on (run.c). */
	struct inner_term t = { isatty(STDIN_FILENO) || isatty(STDOUT_FILENO), supervise_ignored(), 0 };
	int r;
	if ((r = prepare_plan(c, p, prot, e)) < 0)
		return r;
	cache_path(c, &p->res, cache, len);
	if ((r = prepare_explain(c, &t, cache, p, e)) < 0 ||
	    (r = protect_explain(prot, c->full_write, e)) < 0)
		return r;
	return prepare_argv(c, protect_decision(prot), p, e);
}

int explain_run(const struct config *c, struct cordon_err *e)
{
	struct prepared p;
	struct protect_run prot = PROTECT_RUN_INIT;
	char cache[PATH_MAX];
	prepare_init(&p);
	int r = explain_plan(c, &p, &prot, cache, sizeof(cache), e);
	if (r == 0 && c->explain_paths.n)
		r = explain_paths(stdout, c, &p.res, protect_decision(&prot), &p.plan, e);
	else if (r == 0) {
		struct explain_env env = { environ, &p.env };
		r = explain_print(stdout, c, &p.res, protect_decision(&prot), cache, &env,
				  &p.limits, &p.pm, &p.argv, e);
	}
	protect_release(&prot);
	prepare_free(&p);
	return r;
}
