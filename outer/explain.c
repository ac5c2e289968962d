/* explain.c: see explain.h. */
#include "explain.h"

#include <limits.h>
#include <stdio.h>
#include <unistd.h>
#include "explain_print.h"
#include "hostpaths/caches.h"
#include "hostpaths/protect.h"
#include "plan/env.h"
#include "prepare.h"
#include "supervise.h"

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

int explain_run(const struct config *c, struct cordon_err *e)
{
	struct prepared p;
	struct protect_run prot = PROTECT_RUN_INIT;
	/* What a run from here would pass on (run.c). */
	struct inner_term t = { isatty(STDIN_FILENO) || isatty(STDOUT_FILENO), supervise_ignored() };
	int r;
	prepare_init(&p);
	if ((r = prepare_open(c, &t, &p, &prot, e)) == 0 &&
	    (r = protect_explain(&prot, c->full_write, e)) == 0 &&
	    (r = prepare_argv(c, protect_decision(&prot), &p, e)) == 0) {
		char cache[PATH_MAX];
		cache_path(c, &p.res, cache, sizeof(cache));
		r = explain_print(stdout, c, &p.res, protect_decision(&prot), cache, &p.limits,
				  &p.pm, &p.argv, e);
		if (r == 0 && c->net == NET_PROXY && !c->json) {
			printf("\nenvironment for --net proxy (a --setenv of the same name wins):\n");
			for (size_t i = 0; i < p.env.n; i++)
				if (env_is_proxy_key(p.env.v[i]))
					printf("  %s\n", p.env.v[i]);
		}
	}
	protect_release(&prot);
	prepare_free(&p);
	return r;
}
