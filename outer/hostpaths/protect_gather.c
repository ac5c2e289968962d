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
	if (n->is_symlink)
		return 0; /* refused by protect_decide */
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
	if (c->git == GIT_COMMIT && (rc = protect_git_gather(p, e)) < 0)
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
