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
#include "hostpaths/protect_quarantine.h"
#include "path.h"
#include "plan/gitdir.h"
#include "sys.h"

/* A todo list of a long rebase is a few hundred KiB at most; a larger one
 * cannot be judged in bounded memory and is moved aside. */
#define GITSTATE_MAX (4u << 20)
/* An index of a million files is some 100 MiB. */
#define GITSTATE_MAX_INDEX (512u << 20)

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
	/* The watch only names, at the end, a write git tried on a read-only
	 * part; what protects those parts are the mounts.  Without an inotify
	 * instance or watch to spare (the caller's budget, README "Many runs
	 * at once") the run goes on without that line, never refused for it. */
	if (g->no_hint)
		return 0;
	if (g->ifd < 0 && (g->ifd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC)) < 0) {
		g->no_hint = 1;
		return 0;
	}
	struct gitstate_dir *v = realloc(g->dirs, (g->ndirs + 1) * sizeof(*v));
	if (!v)
		return err_set(e, ENOMEM, "out of memory");
	g->dirs = v;
	const struct gitstate_file *f = &g->v[first];
	char link[64];
	(void)snprintf(link, sizeof(link), "/proc/self/fd/%d", f->gitfd);
	int wd = inotify_add_watch(g->ifd, link, IN_CREATE | IN_MOVED_TO | IN_ONLYDIR);
	if (wd < 0) {
		g->no_hint = 1;
		return 0;
	}
	if (!(v[g->ndirs].path = strdup(d->path)))
		return err_set(e, ENOMEM, "out of memory");
	v[g->ndirs++].wd = wd;
	return 0;
}

/* The directory path (relative to rootfd) opened without following a link
 * at any step; -1 when it cannot be. */
static int open_under(int rootfd, const char *path)
{
	char buf[PATH_MAX];
	(void)snprintf(buf, sizeof(buf), "%s", path);
	int fd = fcntl(rootfd, F_DUPFD_CLOEXEC, 3);
	for (char *save = NULL, *c = strtok_r(buf, "/", &save); c && fd >= 0;
	     c = strtok_r(NULL, "/", &save)) {
		int next = strcmp(c, "..") == 0 ? -1
			   : openat(fd, c, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		sys_close(&fd);
		fd = next;
	}
	return fd;
}

/* lstat of path/.git under rootfd: 0 with *st, or -1 when absent. */
static int link_state(int rootfd, const char *path, struct stat *st)
{
	AUTO_FD d = open_under(rootfd, path);
	return d >= 0 && fstatat(d, ".git", st, AT_SYMLINK_NOFOLLOW) == 0 ? 0 : -1;
}

struct links {
	struct gitstate_link *v;
	size_t n;
	int rootfd;
};

static int collect_link(void *ctx, const char *path, size_t len)
{
	struct links *l = ctx;
	struct gitstate_link *v = realloc(l->v, (l->n + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	l->v = v;
	if (!(v[l->n].path = strndup(path, len)))
		return -ENOMEM;
	v[l->n].existed = link_state(l->rootfd, v[l->n].path, &v[l->n].before) == 0;
	l->n++;
	return 0;
}

static void links_free(struct links *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i].path);
	free(l->v);
	l->v = NULL;
	l->n = 0;
}

/* The gitlinks of the index in gitfd (SHA-1, else SHA-256 ids).  0, or
 * -errno (an index too large or unreadable is -EFBIG / -EIO). */
static int read_links(int gitfd, struct links *l)
{
	AUTO_FD fd = openat(gitfd, "index", O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	struct stat st;
	if (fd < 0)
		return errno == ENOENT ? 0 : -EIO;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))
		return -EIO;
	if (st.st_size > (off_t)GITSTATE_MAX_INDEX)
		return -EFBIG;
	unsigned char *buf = malloc((size_t)st.st_size + 1);
	if (!buf)
		return -ENOMEM;
	ssize_t n = sys_read_full(fd, buf, (size_t)st.st_size);
	int rc = n < 0 ? -EIO : gitdir_index_gitlinks(buf, (size_t)n, 20, collect_link, l);
	if (rc == -EINVAL) {
		links_free(l);
		rc = gitdir_index_gitlinks(buf, (size_t)n, 32, collect_link, l);
	}
	free(buf);
	return rc == -EINVAL ? -EIO : rc;
}

/* A root's own .git (not modules/X, not worktrees/X), or a linked
 * worktree's git dir outside the roots (its checkout: the root): its index. */
static int add_repo(struct gitstate *g, const struct protect_gitdir *d, struct cordon_err *e)
{
	struct gitstate_repo *v = realloc(g->repos, (g->nrepos + 1) * sizeof(*v));
	if (!v)
		return err_set(e, ENOMEM, "out of memory");
	g->repos = v;
	struct gitstate_repo *r = &v[g->nrepos++];
	*r = (struct gitstate_repo){ .gitfd = fcntl(d->fd, F_DUPFD_CLOEXEC, 3), .rootfd = -1 };
	r->root = d->checkout ? strdup(d->checkout)
			      : strndup(d->path, (size_t)(path_base(d->path) - d->path - 1));
	if (!r->root || r->gitfd < 0)
		return err_set(e, ENOMEM, "cannot keep a descriptor of %s", d->path);
	r->rootfd = d->checkout ? open(d->checkout, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
				: openat(r->gitfd, "..", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (r->rootfd < 0)
		return err_sys(e, errno, "cannot open the directory of %s", d->path);
	struct links l = { NULL, 0, r->rootfd };
	int rc = read_links(r->gitfd, &l);
	r->links = l.v;
	r->nlinks = l.n;
	if (rc == -ENOMEM)
		return err_set(e, ENOMEM, "out of memory");
	/* unreadable now: every gitlink then counts as new at the end */
	return 0;
}

int gitstate_start(struct gitstate *g, const struct protect_run *p, struct cordon_err *e)
{
	for (size_t i = 0; i < p->ngitdirs; i++) {
		int rc;
		if (p->gitdirs[i].is_gitdir &&
		    (strcmp(path_base(p->gitdirs[i].path), ".git") == 0 || p->gitdirs[i].checkout) &&
		    (rc = add_repo(g, &p->gitdirs[i], e)) < 0)
			return rc;
	}
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

struct config_writes {
	const struct gitstate *g;
	unsigned char said[64];
};

static void say_config_write(void *ctx, const struct inotify_event *ev)
{
	struct config_writes *c = ctx;
	const struct gitstate *g = c->g;
	if (ev->len == 0 || (strcmp(ev->name, "config.lock") != 0 &&
			     strcmp(ev->name, "config.worktree.lock") != 0))
		return;
	for (size_t d = 0; d < g->ndirs; d++) {
		int bit = strcmp(ev->name, "config.lock") == 0 ? 1 : 2;
		if (g->dirs[d].wd != ev->wd || (d < sizeof(c->said) && (c->said[d] & bit)))
			continue;
		if (d < sizeof(c->said))
			c->said[d] |= (unsigned char)bit;
		fprintf(stderr, "cordon: git tried to write %s/%.*s, which --git commit "
			"keeps read-only (git reads programs to run from it); commands "
			"that change git's configuration (git config, git remote add, "
			"git branch -u, git submodule init) fail inside: run them "
			"outside cordon\n", g->dirs[d].path,
			(int)(strlen(ev->name) - 5), ev->name);
	}
}

/* The lock files git made during the run beside a read-only config. */
static void say_config_writes(struct gitstate *g)
{
	struct config_writes c = { g, { 0 } };
	sys_inotify_drain(g->ifd, say_config_write, &c);
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

static size_t settle_one(struct gitstate_file *f, gitstate_found_fn *found,
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
	} else if (fstatat(dfd, base, &st, AT_SYMLINK_NOFOLLOW) < 0) {
		if (errno == ENOENT)
			return 0;
		/* The command took search permission from its directory:
		 * what it hides is moved aside unread (the move looks
		 * through the mode, hostpaths/protect_quarantine.h). */
		why = "it cannot be looked at";
	} else {
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
	r = protect_quarantine_move(movefd, victim, moved, sizeof(moved));
	if (r == -ENOENT)
		return 0;
	(void)snprintf(where, sizeof(where), "%.*s/%s", (int)(path_base(what) - what - 1), what, moved);
	/* The last resort (hostpaths/protect_quarantine.h): left in place,
	 * unreadable to host tools running as the caller. */
	int disarmed = r < 0 && protect_quarantine_disarm(movefd, victim) == 0;
	char said[256];
	(void)snprintf(said, sizeof(said), "%s%s", why,
		       disarmed ? "; NOT moved aside: left in place, made mode 000" :
		       r < 0 ? "; NOT moved aside: left in place" : "");
	if (r == 0)
		fprintf(stderr, "cordon: %s was written during the run and %s: moved aside, not "
			"deleted, to %s (--git commit)\n", what, why, where);
	else
		fprintf(stderr, "cordon: %s was written during the run and %s, and it could NOT be "
			"moved aside (%s)%s: remove it before running git there on the host\n",
			what, why, strerror(-r), disarmed ? "; cordon made it mode 000 instead" : "");
	if (found)
		found(ctx, what, r == 0 ? where : NULL, said);
	return 1;
}

static const struct gitstate_link *link_at(const struct gitstate_repo *r, const char *path)
{
	for (size_t i = 0; i < r->nlinks; i++)
		if (strcmp(r->links[i].path, path) == 0)
			return &r->links[i];
	return NULL;
}

static int same(const struct stat *a, const struct stat *b);

/* Each gitlink of the index now whose checkout's .git the run made or
 * changed: moved aside, so that a host git status does not run git (and
 * that repository's config) there. */
static size_t settle_links(struct gitstate_repo *r, gitstate_found_fn *found,
			   void *ctx)
{
	struct links now = { NULL, 0, r->rootfd };
	size_t moved_n = 0;
	if (r->rootfd < 0)
		return 0;
	int rc = read_links(r->gitfd, &now);
	if (rc < 0 && rc != -ENOMEM)
		fprintf(stderr, "cordon: %s/.git/index cannot be checked for submodule entries "
			"(%s): before running git status there on the host, check that no "
			"submodule was added during the run (git ls-files -s | grep ^160000)\n",
			r->root, rc == -EFBIG ? "too large" : "unreadable");
	for (size_t i = 0; i < now.n; i++) {
		const struct gitstate_link *was = link_at(r, now.v[i].path);
		if (!now.v[i].existed ||
		    (was && was->existed && same(&now.v[i].before, &was->before)))
			continue;
		char what[PATH_MAX], moved[NAME_MAX + 1], where[PATH_MAX + NAME_MAX + 2];
		(void)snprintf(what, sizeof(what), "%s/%s/.git", r->root, now.v[i].path);
		AUTO_FD d = open_under(r->rootfd, now.v[i].path);
		int m = d >= 0 ? protect_quarantine_move(d, ".git", moved, sizeof(moved)) : -ENOENT;
		(void)snprintf(where, sizeof(where), "%s/%s/%s", r->root, now.v[i].path, moved);
		const char *why = "the index holds a submodule entry for it, and a host git status "
				  "would run git there, with that repository's config";
		if (m == 0)
			fprintf(stderr, "cordon: %s was %s during the run and %s: moved aside, not "
				"deleted, to %s (--git commit)\n", what, was ? "changed" : "made", why,
				where);
		else
			fprintf(stderr, "cordon: %s was %s during the run and %s, and it could not be "
				"moved aside (%s): remove it before running git status on the host\n",
				what, was ? "changed" : "made", why, strerror(-m));
		if (found)
			found(ctx, what, m == 0 ? where : NULL, why);
		moved_n++;
	}
	links_free(&now);
	return moved_n;
}

size_t gitstate_settle(struct gitstate *g, gitstate_found_fn *found, void *ctx)
{
	size_t n = 0;
	if (g->ifd >= 0)
		say_config_writes(g);
	for (size_t i = 0; i < g->n; i++)
		n += settle_one(&g->v[i], found, ctx);
	for (size_t i = 0; i < g->nrepos; i++)
		n += settle_links(&g->repos[i], found, ctx);
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
	for (size_t i = 0; i < g->nrepos; i++) {
		struct links l = { g->repos[i].links, g->repos[i].nlinks, -1 };
		links_free(&l);
		sys_close(&g->repos[i].gitfd);
		sys_close(&g->repos[i].rootfd);
		free(g->repos[i].root);
	}
	free(g->repos);
	free(g->dirs);
	sys_close(&g->ifd);
	*g = (struct gitstate)GITSTATE_INIT;
}
