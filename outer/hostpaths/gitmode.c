/* gitmode.c: see gitmode.h.  Belongs here: the git dirs of the run, kept;
 * the walk that finds them is protect_git.c's. */
#include "hostpaths/gitmode.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "grow.h"
#include "sys.h"

struct gitmode *gitmode_new(void)
{
	return calloc(1, sizeof(struct gitmode));
}

int gitmode_add(struct gitmode *g, const char *path, int fd, int is_gitdir, struct cordon_err *e)
{
	if (grow_reserve(&g->dirs, &g->capdirs, g->ndirs + 1, sizeof(*g->dirs)) < 0) {
		sys_close(&fd);
		return err_set(e, ENOMEM, "out of memory");
	}
	struct gitmode_dir *v = g->dirs;
	v[g->ndirs] = (struct gitmode_dir){ strdup(path), fd, is_gitdir, NULL };
	if (!v[g->ndirs].path) {
		sys_close(&fd);
		return err_set(e, ENOMEM, "out of memory");
	}
	g->ndirs++;
	return 0;
}

int gitmode_mark_checkout(struct gitmode *g, const char *gitdir, const char *root,
			  struct cordon_err *e)
{
	for (size_t i = 0; i < g->ndirs; i++) {
		if (!g->dirs[i].is_gitdir || strcmp(g->dirs[i].path, gitdir) != 0)
			continue;
		if (!(g->dirs[i].checkout = strdup(root)))
			return err_set(e, ENOMEM, "out of memory");
		return 0;
	}
	return err_set(e, EAGAIN, "%s changed while cordon looked at it; run again", gitdir);
}

void gitmode_close(struct gitmode *g)
{
	for (size_t i = 0; g && i < g->ndirs; i++)
		sys_close(&g->dirs[i].fd);
}

void gitmode_free(struct gitmode *g)
{
	if (!g)
		return;
	gitmode_close(g);
	for (size_t i = 0; i < g->ndirs; i++) {
		free(g->dirs[i].path);
		free(g->dirs[i].checkout);
	}
	free(g->dirs);
	free(g);
}
