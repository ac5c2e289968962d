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
#include "path.h"
#include "sys.h"

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

#define LINK_HOPS 40

static int in_a_root(const struct resolved *r, const char *path)
{
	for (size_t i = 0; i < r->nroots; i++)
		if (path_is_under(path, r->roots[i].path))
			return 1;
	return 0;
}

/* 1 if following the link at path looks a name up in a directory inside a
 * writable root, or ends inside one: there the command could create, swap
 * or write what the protected name leads to.  Followed by hand, one
 * component at a time, so that every directory a lookup happens in is
 * known by its canonical path; a name missing from a directory outside
 * every root can never appear (0).  Anything in doubt (too many links, too
 * long, unreadable) counts as reaching a root. */
static int link_reaches_root(const struct resolved *r, const char *path)
{
	char cur[PATH_MAX], todo[PATH_MAX], text[PATH_MAX], next[PATH_MAX];
	int hops = 0;
	ssize_t n = readlink(path, text, sizeof(text) - 1);
	if (n <= 0)
		return 1;
	text[n] = '\0';
	const char *slash = strrchr(path, '/');
	(void)snprintf(cur, sizeof(cur), "%.*s", slash && slash != path ? (int)(slash - path) : 1,
		       path);
	if (text[0] == '/')
		(void)snprintf(cur, sizeof(cur), "/");
	(void)snprintf(todo, sizeof(todo), "%s", text);
	for (;;) {
		const char *p = todo;
		size_t len;
		const char *s = path_next(&p, &len);
		if (!s || len == 0)
			return in_a_root(r, cur);
		if (len == 1 && s[0] == '.') {
			memmove(todo, p, strlen(p) + 1);
			continue;
		}
		if (in_a_root(r, cur))
			return 1;
		if (len == 2 && s[0] == '.' && s[1] == '.') {
			char *up = strrchr(cur, '/');
			if (up)
				up[up == cur ? 1 : 0] = '\0';
			memmove(todo, p, strlen(p) + 1);
			continue;
		}
		if (snprintf(next, sizeof(next), "%s%s%.*s", cur, strcmp(cur, "/") ? "/" : "", (int)len,
			     s) >= (int)sizeof(next))
			return 1;
		struct stat st;
		if (lstat(next, &st) < 0)
			return errno == ENOENT || errno == ENOTDIR ? 0 : 1;
		if (S_ISLNK(st.st_mode)) {
			if (++hops > LINK_HOPS || (n = readlink(next, text, sizeof(text) - 1)) <= 0)
				return 1;
			text[n] = '\0';
			if (snprintf(next, sizeof(next), "%s/%s", text, p) >= (int)sizeof(next))
				return 1;
			memcpy(todo, next, strlen(next) + 1);
			if (text[0] == '/')
				(void)snprintf(cur, sizeof(cur), "/");
			continue;
		}
		memcpy(cur, next, strlen(next) + 1);
		memmove(todo, p, strlen(p) + 1);
	}
}

/* A link at a protected name that neither the caller nor its earlier runs
 * made: owned by another user, in a directory that others can write (the
 * sticky /tmp with --tmp host).  The caller's own links stay refused: an
 * earlier sandboxed command may have planted them. */
static enum protect_link link_kind(const struct resolved *r, int rootfd, const char *path,
				   const struct stat *link)
{
	struct stat dir;
	if (link->st_uid == geteuid() || fstat(rootfd, &dir) < 0 ||
	    !(dir.st_mode & (S_IWGRP | S_IWOTH)))
		return LINK_OWN;
	return link_reaches_root(r, path) ? LINK_FOREIGN_INTO_ROOT : LINK_FOREIGN;
}

static int gather_name(const struct resolved *r, size_t root, const char *name, int watch_only,
		       struct protect_run *p, struct cordon_err *e)
{
	const struct rpath *rt = &r->roots[root];
	char full[PATH_MAX];
	struct stat st;
	if (path_join(rt->path, name, full, sizeof(full)) < 0)
		return err_set(e, ENAMETOOLONG, "%s/%s: path too long", rt->path, name);
	struct protect_name *v = realloc(p->names, (p->nnames + 1) * sizeof(*v));
	if (!v)
		return err_set(e, ENOMEM, "out of memory");
	p->names = v;
	struct protect_name *n = &v[p->nnames];
	*n = (struct protect_name){ .root = root, .fd = -1, .watch_only = watch_only };
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
		n->link = link_kind(r, rt->fd, full, &st);
		return 0; /* refused by protect_decide, or left alone and watched */
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
	struct protect_name *v = realloc(p->names, (p->nnames + 1) * sizeof(*v));
	if (!v)
		return err_set(e, ENOMEM, "out of memory");
	p->names = v;
	struct protect_name *n = &v[p->nnames];
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
				if ((rc = gather_name(r, i, *n, 0, p, e)) < 0)
					return rc;
			for (const char *const *n = config_default_dotfiles; *n; n++)
				if ((rc = gather_name(r, i, *n, 1, p, e)) < 0)
					return rc;
		}
		for (size_t j = 0; j < c->protect.n; j++)
			if ((rc = gather_name(r, i, c->protect.v[j], 0, p, e)) < 0)
				return rc;
	}
	/* Before the gitdirs resolve found: those stay read-only as a whole. */
	if (c->git == GIT_COMMIT &&
	    ((rc = protect_git_gather(p, e)) < 0 || (rc = protect_git_linked(r, p, e)) < 0))
		return rc;
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
