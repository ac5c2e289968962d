/* toolenv.c: see toolenv.h. */
#include "toolenv.h"

#include <errno.h>
#include <stdio.h>
#include "hostpaths/caches.h"
#include "plan/caches.h"
#include "plan/offline.h"

extern char **environ;

int toolenv_cache_root(const struct config *c, struct resolved *res, char *dir, size_t len,
		       struct cordon_err *e)
{
	struct rpath p;
	dir[0] = '\0';
	if (c->cache != CACHE_PRIVATE || c->mode == MODE_EXPLAIN)
		return 0;
	const char *ws = c->write.n ? res->roots[0].path : res->cwd.path;
	int r = caches_open(ws, &p, e);
	if (r < 0 && caches_unavailable(r)) {
		/* Without it the command has less to write, never more: say so
		 * and go on (a home that does not exist or is read-only). */
		(void)err_wrap(e, "note: tools' caches stay read-only");
		err_print(e);
		return 0;
	}
	if (r < 0)
		return r;
	(void)snprintf(dir, len, "%s", p.path);
	if (rpath_push(&res->roots, &res->nroots, &res->caproots, &p) < 0) {
		rpath_free(&p);
		dir[0] = '\0';
		return err_set(e, ENOMEM, "out of memory");
	}
	return 0;
}

int toolenv_apply(const struct config *c, const char *dir, struct argv *env,
		  struct cordon_err *e)
{
	int r;
	if (dir[0]) {
		static char goenv[16384];
		int g = caches_read_goenv(goenv, sizeof(goenv));
		struct caches_in in = { dir, environ, c->env, c->nenv, g == 0 ? goenv : NULL };
		if ((r = caches_env(env, &in, e)) < 0)
			return r;
	}
	if (c->net == NET_NONE && (r = offline_env(env, e)) < 0)
		return r;
	return 0;
}
