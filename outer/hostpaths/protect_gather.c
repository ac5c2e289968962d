/* protect_gather.c: see protect.h.  Belongs here: what protect_decide
 * needs to know of each protected name (lstat, opened if it exists) and of
 * the git directories resolve found. */
#include "hostpaths/protect.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>
#include "hostpaths/gitmode.h"
#include "path.h"
#include "plan/linkwalk.h"
#include "sys.h"
#include "grow.h"

/* A writable root on a read-only mount: mkdir would fail with EROFS, and the
 * command cannot create the name either, so nothing is materialized. */
static int root_read_only(int rootfd)
{
	struct statvfs sv;
	return fstatvfs(rootfd, &sv) == 0 && (sv.f_flag & ST_RDONLY);
}

/* Open the existing name (st: its lstat) for bwrap to bind from.  A
 * directory is opened readable where it can be, so that protect_hold can
 * flock it; otherwise O_PATH.  0, -EAGAIN if it is not the object st
 * describes, or -errno. */
static int open_name(int rootfd, const char *name, const char *path, const struct stat *st,
		     int *fd)
{
	if (S_ISDIR(st->st_mode)) {
		struct stat now;
		int d = openat(rootfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (d >= 0) {
			if (fstat(d, &now) < 0 || now.st_dev != st->st_dev || now.st_ino != st->st_ino) {
				sys_close(&d);
				return -EAGAIN;
			}
			*fd = d;
			return 0;
		}
		if (errno != EACCES)
			return errno == ENOENT || errno == ENOTDIR || errno == ELOOP ? -EAGAIN : -errno;
	}
	struct rpath o;
	int rc = resolve_open_at(rootfd, name, path, st->st_dev, st->st_ino, &o);
	if (rc < 0)
		return rc;
	*fd = o.fd;
	o.fd = -1;
	rpath_free(&o);
	return 0;
}

/* lstat, readlink and faccessat for linkwalk, as the caller. */
static int fs_lstat(void *ctx, const char *path, struct stat *st)
{
	(void)ctx;
	return lstat(path, st) < 0 ? -errno : 0;
}

static ssize_t fs_readlink(void *ctx, const char *path, char *buf, size_t len)
{
	(void)ctx;
	ssize_t n = readlink(path, buf, len);
	return n < 0 ? -errno : n;
}

/* Root passes (but EROFS does not): it counts as able to write anywhere,
 * which only means more is watched and bound. */
static int fs_writable(void *ctx, const char *path)
{
	(void)ctx;
	return faccessat(AT_FDCWD, path, W_OK | X_OK, AT_EACCESS) == 0;
}

/* A link at a protected name that neither the caller nor its earlier runs
 * made: owned by another user, in a directory that others can write (the
 * sticky /tmp with --tmp host).  The caller's own links stay refused: an
 * earlier sandboxed command may have planted them. */
static enum protect_link link_kind(int rootfd, const struct stat *link)
{
	struct stat dir;
	if (link->st_uid == geteuid() || fstat(rootfd, &dir) < 0 ||
	    !(dir.st_mode & (S_IWGRP | S_IWOTH)))
		return LINK_OWN;
	return LINK_FOREIGN;
}

static struct protect_name *add_name(struct protect_run *p, const char *path,
				     struct cordon_err *e)
{
	if (grow_reserve(&p->names, &p->capnames, p->nnames + 1, sizeof(*p->names)) < 0) {
		(void)err_set(e, ENOMEM, "out of memory");
		return NULL;
	}
	struct protect_name *n = &p->names[p->nnames];
	*n = (struct protect_name){ .fd = -1, .dirfd = -1, .hold = -1 };
	if (!(n->path = strdup(path))) {
		(void)err_set(e, ENOMEM, "out of memory");
		return NULL;
	}
	p->nnames++;
	return n;
}

/* path opened, and checked to be the object (dev, ino) the walk saw: a
 * directory readable where it can be (protect_hold flocks it), else
 * O_PATH.  0, -EAGAIN if it is another object now, or -errno. */
static int open_seen(const char *path, int dir, uint64_t dev, uint64_t ino, int *fd)
{
	struct stat st;
	int f = -1;
	if (dir)
		f = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (f < 0)
		f = open(path, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (f < 0)
		return errno == ENOENT || errno == ENOTDIR || errno == ELOOP ? -EAGAIN : -errno;
	if (fstat(f, &st) < 0 || (uint64_t)st.st_dev != dev || (uint64_t)st.st_ino != ino) {
		sys_close(&f);
		return -EAGAIN;
	}
	*fd = f;
	return 0;
}

/* One step of another user's link's way (plan/linkwalk.h) becomes a name of
 * the run, watched in its own directory or bound, that says which link it
 * stands for. */
static int add_step(struct protect_run *p, size_t link, const struct linkwalk_step *s,
		    struct cordon_err *e)
{
	for (size_t i = 0; i < p->nnames; i++)
		if (strcmp(p->names[i].path, s->path) == 0)
			return 0; /* a protected name itself, or another link's step */
	size_t root = p->names[link].root;
	const char *via = p->names[link].path;
	struct protect_name *n = add_name(p, s->path, e);
	if (!n)
		return -ENOMEM;
	n->root = root;
	n->via = via;
	n->watch_only = 1;
	n->exists = s->kind != LINKWALK_MISSING;
	n->as_found = s->kind == LINKWALK_ON_THE_WAY;
	n->is_dir = s->is_dir;
	n->dev = s->dev;
	n->ino = s->ino;
	int rc = 0;
	if (s->kind == LINKWALK_TARGET) {
		rc = open_seen(s->path, s->is_dir, s->dev, s->ino, &n->fd);
	} else {
		if (n->as_found)
			rc = open_seen(s->path, 0, s->dev, s->ino, &n->hold);
		char dir[PATH_MAX];
		(void)snprintf(dir, sizeof(dir), "%.*s",
			       path_base(s->path) - s->path > 1 ?
				       (int)(path_base(s->path) - s->path - 1) : 1, s->path);
		if (rc == 0)
			rc = open_seen(dir, 1, s->dir_dev, s->dir_ino, &n->dirfd);
	}
	if (rc == -EAGAIN)
		return err_set(e, EAGAIN, "%s, where another user's symbolic link %s leads, changed "
			       "while cordon looked at it; run again", s->path, via);
	if (rc < 0)
		return err_sys(e, -rc, "cannot open %s, where another user's symbolic link %s leads",
			       s->path, via);
	return 0;
}

/* The fail-closed end of a walk that could not be finished. */
static int refuse_walk(const char *path, int rc, struct cordon_err *e)
{
	const char *what = rc == -E2BIG ? "leads through too many places the command could change" :
			   rc == -ENAMETOOLONG ? "leads through a path too long to follow" :
			   rc == -EAGAIN ? "changed while cordon followed it" : NULL;
	if (rc == -ENOMEM)
		return err_set(e, ENOMEM, "out of memory");
	if (!what)
		return err_sys(e, -rc, "protected %s is another user's symbolic link, and cordon "
			       "cannot follow it to keep what it leads to from the command; have "
			       "its owner remove it, or run without --tmp host (or outside that "
			       "directory)", path);
	return err_set(e, rc == -EAGAIN ? EAGAIN : EPERM,
		       "protected %s is another user's symbolic link, and it %s; %s", path, what,
		       rc == -EAGAIN ? "run again" : "have its owner remove it, or run without "
		       "--tmp host (or outside that directory)");
}

/* Another user's link (names[link]): follow it by hand (plan/linkwalk.h)
 * and add what of its way the command could change. */
static int gather_link(const struct resolved *r, const struct config *c, struct protect_run *p,
		       size_t link, struct cordon_err *e)
{
	/* With --full-write these are not the host's inside (/tmp: a private one). */
	static const char *const outside[] = { "/dev", "/proc", "/sys", "/tmp" };
	const char **roots = calloc(r->nroots ? r->nroots : 1, sizeof(*roots));
	if (!roots)
		return err_set(e, ENOMEM, "out of memory");
	for (size_t i = 0; i < r->nroots; i++)
		roots[i] = r->roots[i].path;
	struct linkwalk_in in = { p->names[link].path, roots, r->nroots, c->full_write, outside,
				  c->tmp == TMP_PRIVATE ? 4 : 3, geteuid() };
	struct linkwalk_fs fs = { NULL, fs_lstat, fs_readlink, fs_writable };
	struct linkwalk w = { 0 };
	int rc = linkwalk(&in, &fs, &w);
	free(roots);
	if (rc < 0)
		rc = refuse_walk(p->names[link].path, rc, e);
	for (size_t i = 0; rc == 0 && i < w.n; i++)
		rc = add_step(p, link, &w.v[i], e);
	linkwalk_free(&w);
	return rc;
}

static int gather_name(const struct resolved *r, const struct config *c, size_t root,
		       const char *name, int watch_only, struct protect_run *p, struct cordon_err *e)
{
	const struct rpath *rt = &r->roots[root];
	char full[PATH_MAX];
	struct stat st;
	if (path_join(rt->path, name, full, sizeof(full)) < 0)
		return err_set(e, ENAMETOOLONG, "%s/%s: path too long", rt->path, name);
	if (grow_reserve(&p->names, &p->capnames, p->nnames + 1, sizeof(*p->names)) < 0)
		return err_set(e, ENOMEM, "out of memory");
	struct protect_name *n = &p->names[p->nnames];
	*n = (struct protect_name){ .root = root, .fd = -1, .dirfd = -1, .hold = -1,
				    .watch_only = watch_only };
	if (!(n->path = strdup(full)))
		return err_set(e, ENOMEM, "out of memory");
	p->nnames++;
	if (fstatat(rt->fd, name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
		if (errno != ENOENT)
			return err_sys(e, errno, "cannot inspect protected %s", full);
		p->roots[root].read_only = root_read_only(rt->fd);
		return 0;
	}
	n->exists = 1;
	n->is_dir = S_ISDIR(st.st_mode);
	n->is_symlink = S_ISLNK(st.st_mode);
	n->dev = st.st_dev;
	n->ino = st.st_ino;
	if (n->is_symlink) {
		n->link = link_kind(rt->fd, &st);
		int hr = n->link == LINK_FOREIGN ? open_seen(full, 0, n->dev, n->ino, &n->hold) : 0;
		if (hr < 0)
			return hr == -EAGAIN ? err_set(e, EAGAIN, "protected %s changed while cordon "
						       "looked at it; run again", full) :
					       err_sys(e, -hr, "cannot open protected %s", full);
		/* the caller's: refused by protect_decide; another user's: left
		 * alone and watched, and its way kept from the command */
		return n->link == LINK_FOREIGN ? gather_link(r, c, p, p->nnames - 1, e) : 0;
	}
	int rc = open_name(rt->fd, name, full, &st, &n->fd);
	if (rc == -EAGAIN)
		return err_set(e, EAGAIN, "protected %s changed while cordon looked at it; run again",
			       full);
	if (rc < 0)
		return err_sys(e, -rc, "cannot open protected %s", full);
	return 0;
}

/* A git directory resolve found inside a writable root (a .git file's
 * gitdir, core.hooksPath): bound read-only like an existing name, from a
 * descriptor of protect's own (resolve's stays resolve's). */
static int gather_gitdir(const struct rpath *g, struct protect_run *p, struct cordon_err *e)
{
	if (grow_reserve(&p->names, &p->capnames, p->nnames + 1, sizeof(*p->names)) < 0)
		return err_set(e, ENOMEM, "out of memory");
	struct protect_name *n = &p->names[p->nnames];
	*n = (struct protect_name){ .root = 0, .exists = 1, .is_dir = g->is_dir, .dev = g->dev,
				    .ino = g->ino, .fd = -1 };
	if (!(n->path = strdup(g->path)))
		return err_set(e, ENOMEM, "out of memory");
	p->nnames++;
	n->fd = fcntl(g->fd, F_DUPFD_CLOEXEC, 3);
	if (n->fd < 0)
		return err_sys(e, errno, "cannot keep a descriptor of %s", g->path);
	return 0;
}

int protect_gather(const struct resolved *r, const struct config *c, struct protect_run *p,
		   struct cordon_err *e)
{
	int rc;
	p->watch = c->protect_missing == PROTECT_MISSING_WATCH;
	if (!(p->roots = calloc(r->nroots ? r->nroots : 1, sizeof(*p->roots))))
		return err_set(e, ENOMEM, "out of memory");
	p->nroots = r->nroots;
	for (size_t i = 0; i < r->nroots; i++)
		p->roots[i] = (struct protect_root){ r->roots[i].path, r->roots[i].dev,
						     r->roots[i].ino, 0 };
	for (size_t i = 0; i < r->nroots; i++) {
		if (!r->roots[i].is_dir)
			continue;
		if (c->default_protect) {
			for (const char *const *n = config_default_protect; *n; n++)
				if (config_default_protects(c, *n) &&
				    (rc = gather_name(r, c, i, *n, 0, p, e)) < 0)
					return rc;
			for (const char *const *n = config_default_dotfiles; *n; n++)
				if (config_default_protects(c, *n) &&
				    (rc = gather_name(r, c, i, *n, 1, p, e)) < 0)
					return rc;
		}
		for (size_t j = 0; j < c->protect.n; j++)
			if ((rc = gather_name(r, c, i, c->protect.v[j], 0, p, e)) < 0)
				return rc;
	}
	/* Before the gitdirs resolve found: those stay read-only as a whole. */
	if (c->git == GIT_COMMIT) {
		/* git commit mode's facts: the run's from here on (protect_release) */
		if (!p->git && !(p->git = gitmode_new()))
			return err_set(e, ENOMEM, "out of memory");
		if ((rc = protect_git_gather(p, e)) < 0 || (rc = protect_git_linked(r, p, e)) < 0)
			return rc;
	}
	for (size_t i = 0; i < r->ngitdirs; i++)
		if ((rc = gather_gitdir(&r->gitdirs[i], p, e)) < 0)
			return rc;
	return 0;
}

int protect_fds(const struct protect_run *p, int (*fn)(void *ctx, int fd), void *ctx)
{
	for (size_t i = 0; i < p->nnames; i++) {
		int rc = p->names[i].fd >= 0 ? fn(ctx, p->names[i].fd) : 0;
		if (rc < 0)
			return rc;
	}
	return 0;
}
