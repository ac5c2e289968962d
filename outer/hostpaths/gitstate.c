/* gitstate.c: see gitstate.h.  Belongs here: reading the state files after
 * the run and moving aside the ones that would run a command (the verdict
 * on their bytes is plan/gitdir.c's). */
#include "hostpaths/gitstate.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <unistd.h>
#include "hostpaths/quarantine.h"
#include "path.h"
#include "plan/gitdir.h"
#include "sys.h"

/* A todo list of a long rebase is a few hundred KiB at most; a larger one
 * cannot be judged in bounded memory and is moved aside. */
#define GITSTATE_MAX (4u << 20)

static int add_file(struct gitstate *g, const struct protect_gitdir *d, const struct gitdir_rule *r,
		    struct cordon_err *e)
{
	struct gitstate_file *v = realloc(g->v, (g->n + 1) * sizeof(*v));
	if (!v)
		return err_set(e, ENOMEM, "out of memory");
	g->v = v;
	struct gitstate_file *f = &v[g->n];
	*f = (struct gitstate_file){ .gitfd = -1, .rel = r->path };
	f->todo = strstr(r->path, "todo") != NULL;
	f->opts = strcmp(path_base(r->path), "opts") == 0;
	size_t len = strlen(d->path) + strlen(r->path) + 2;
	if (!(f->path = malloc(len)))
		return err_set(e, ENOMEM, "out of memory");
	(void)snprintf(f->path, len, "%s/%s", d->path, r->path);
	g->n++;
	if ((f->gitfd = fcntl(d->fd, F_DUPFD_CLOEXEC, 3)) < 0)
		return err_sys(e, errno, "cannot keep a descriptor of %s", d->path);
	char dir[PATH_MAX];
	(void)snprintf(dir, sizeof(dir), "%.*s", (int)(path_base(r->path) - r->path - 1), r->path);
	f->dir_existed = fstatat(f->gitfd, dir, &f->dir_before, AT_SYMLINK_NOFOLLOW) == 0;
	f->existed = fstatat(f->gitfd, r->path, &f->before, AT_SYMLINK_NOFOLLOW) == 0;
	return 0;
}

/* Watch the git dir d (g->v[first] holds a descriptor of it) for created
 * entries. */
static int watch_dir(struct gitstate *g, const struct protect_gitdir *d, size_t first,
		     struct cordon_err *e)
{
	if (g->ifd < 0 && (g->ifd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC)) < 0)
		return err_sys(e, errno, "--git commit: cannot watch the git directories (inotify)");
	struct gitstate_dir *v = realloc(g->dirs, (g->ndirs + 1) * sizeof(*v));
	if (!v)
		return err_set(e, ENOMEM, "out of memory");
	g->dirs = v;
	const struct gitstate_file *f = &g->v[first];
	char link[64];
	(void)snprintf(link, sizeof(link), "/proc/self/fd/%d", f->gitfd);
	int wd = inotify_add_watch(g->ifd, link, IN_CREATE | IN_MOVED_TO | IN_ONLYDIR);
	if (wd < 0)
		return err_sys(e, errno, "--git commit: cannot watch %s (is "
			       "fs.inotify.max_user_watches reached?)", f->path);
	if (!(v[g->ndirs].path = strdup(d->path)))
		return err_set(e, ENOMEM, "out of memory");
	v[g->ndirs++].wd = wd;
	return 0;
}

int gitstate_start(struct gitstate *g, const struct protect_run *p, struct cordon_err *e)
{
	for (size_t i = 0; i < p->ngitdirs; i++) {
		if (!p->gitdirs[i].is_gitdir)
			continue;
		size_t first = g->n;
		for (size_t j = 0; j < gitdir_nrules; j++) {
			if (gitdir_rules[j].role != GITDIR_STATE)
				continue;
			int rc = add_file(g, &p->gitdirs[i], &gitdir_rules[j], e);
			if (rc < 0)
				return rc;
		}
		int rc = g->n > first ? watch_dir(g, &p->gitdirs[i], first, e) : 0;
		if (rc < 0)
			return rc;
	}
	return 0;
}

/* The lock files git made during the run beside a read-only config. */
static void say_config_writes(struct gitstate *g)
{
	char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
	unsigned char said[64] = { 0 };
	for (;;) {
		ssize_t n = read(g->ifd, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		for (char *p = buf; p < buf + n;) {
			const struct inotify_event *ev = (const struct inotify_event *)p;
			p += sizeof(*ev) + ev->len;
			if (ev->len == 0 || (strcmp(ev->name, "config.lock") != 0 &&
					     strcmp(ev->name, "config.worktree.lock") != 0))
				continue;
			for (size_t d = 0; d < g->ndirs; d++) {
				int bit = strcmp(ev->name, "config.lock") == 0 ? 1 : 2;
				if (g->dirs[d].wd != ev->wd || (d < sizeof(said) && (said[d] & bit)))
					continue;
				if (d < sizeof(said))
					said[d] |= (unsigned char)bit;
				fprintf(stderr, "cordon: git tried to write %s/%.*s, which --git commit "
					"keeps read-only (git reads programs to run from it); commands "
					"that change git's configuration (git config, git remote add, "
					"git branch -u, git submodule init) fail inside: run them "
					"outside cordon\n", g->dirs[d].path,
					(int)(strlen(ev->name) - 5), ev->name);
			}
		}
	}
}

static int same(const struct stat *a, const struct stat *b)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino && a->st_size == b->st_size &&
	       a->st_mtim.tv_sec == b->st_mtim.tv_sec && a->st_mtim.tv_nsec == b->st_mtim.tv_nsec &&
	       a->st_ctim.tv_sec == b->st_ctim.tv_sec && a->st_ctim.tv_nsec == b->st_ctim.tv_nsec &&
	       a->st_mode == b->st_mode;
}

/* Why f's current content must go, or NULL.  fd: it, opened. */
static const char *verdict(const struct gitstate_file *f, int fd, const struct stat *st)
{
	static char buf[GITSTATE_MAX];
	if (!S_ISREG(st->st_mode))
		return "it is not a regular file";
	if (st->st_size < 0 || (size_t)st->st_size >= sizeof(buf))
		return "it is too large to check";
	ssize_t n = sys_read_full(fd, buf, sizeof(buf));
	if (n < 0)
		return "it cannot be read";
	if ((size_t)n >= sizeof(buf))
		return "it is too large to check";
	if (f->todo)
		return gitdir_todo_runs(buf, (size_t)n)
			? "it holds an exec line, which a later --continue on the host would run "
			  "outside the sandbox" : NULL;
	return gitdir_strategy_runs(buf, (size_t)n, f->opts)
		? "it names a merge strategy that is not built in (git would run git-merge-NAME)"
		: NULL;
}

static size_t settle_one(struct gitstate_file *f, const char *tag, gitstate_found_fn *found,
			 void *ctx)
{
	char dir[PATH_MAX], moved[NAME_MAX + 1], where[PATH_MAX + NAME_MAX + 2];
	const char *base = path_base(f->rel), *why = NULL;
	struct stat st;
	(void)snprintf(dir, sizeof(dir), "%.*s", (int)(base - f->rel - 1), f->rel);
	AUTO_FD dfd = openat(f->gitfd, dir, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	int movefd = dfd, r;
	const char *victim = base;
	if (dfd < 0) {
		/* rebase-merge turned into a link or a file: git would follow
		 * a link to a todo list elsewhere. */
		if (fstatat(f->gitfd, dir, &st, AT_SYMLINK_NOFOLLOW) < 0 || S_ISDIR(st.st_mode) ||
		    (f->dir_existed && same(&st, &f->dir_before)))
			return 0;
		movefd = f->gitfd;
		victim = dir;
		why = "it is not a directory";
	} else {
		if (fstatat(dfd, base, &st, AT_SYMLINK_NOFOLLOW) < 0)
			return 0;
		if (f->existed && same(&st, &f->before))
			return 0; /* the user's own, from before the run */
		AUTO_FD fd = openat(dfd, base, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
		if (fd < 0 && errno == ELOOP)
			why = "it is a symbolic link";
		else if (fd < 0 || fstat(fd, &st) < 0)
			why = "it cannot be read";
		else
			why = verdict(f, fd, &st);
		if (!why)
			return 0;
	}
	/* f->path is GITDIR/dir/base: the victim's path, and where it went */
	char what[PATH_MAX];
	int gitlen = (int)(strlen(f->path) - strlen(f->rel) - 1);
	(void)snprintf(what, sizeof(what), "%.*s/%s", gitlen, f->path, victim == dir ? dir : f->rel);
	r = quarantine_move(movefd, victim, tag, moved, sizeof(moved));
	(void)snprintf(where, sizeof(where), "%.*s/%s", (int)(path_base(what) - what - 1), what, moved);
	if (r == 0)
		fprintf(stderr, "cordon: %s was written during the run and %s: moved aside, not "
			"deleted, to %s (--git commit)\n", what, why, where);
	else
		fprintf(stderr, "cordon: %s was written during the run and %s, and it could not be "
			"moved aside (%s): remove it before running git there on the host\n",
			what, why, strerror(-r));
	if (found)
		found(ctx, what, r == 0 ? where : NULL, why);
	return 1;
}

size_t gitstate_settle(struct gitstate *g, const char *tag, gitstate_found_fn *found, void *ctx)
{
	size_t n = 0;
	if (g->ifd >= 0)
		say_config_writes(g);
	for (size_t i = 0; i < g->n; i++)
		n += settle_one(&g->v[i], tag, found, ctx);
	return n;
}

void gitstate_free(struct gitstate *g)
{
	for (size_t i = 0; i < g->n; i++) {
		sys_close(&g->v[i].gitfd);
		free(g->v[i].path);
	}
	free(g->v);
	for (size_t i = 0; i < g->ndirs; i++)
		free(g->dirs[i].path);
	free(g->dirs);
	sys_close(&g->ifd);
	*g = (struct gitstate)GITSTATE_INIT;
}
