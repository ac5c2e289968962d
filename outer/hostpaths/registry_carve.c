/* registry_carve.c: see registry_carve.h. */
#include "hostpaths/registry_carve.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "path.h"
#include "sys.h"

/* The carve-outs so far: resolve's (--read-only) and the ones made here. */
struct carves {
	const struct resolved *r;
	struct rpath **v;
	size_t *n;
};

static int has_carve(const struct carves *c, const char *path)
{
	for (size_t i = 0; i < c->r->ncarves; i++)
		if (strcmp(c->r->carves[i].path, path) == 0)
			return 1;
	for (size_t i = 0; i < *c->n; i++)
		if (strcmp((*c->v)[i].path, path) == 0)
			return 1;
	return 0;
}

/* 1 if path lies in (or is) a read-only carve-out: nothing there can be
 * renamed, and a pin would make it writable. */
static int under_read_only(const struct carves *c, const char *path)
{
	for (size_t i = 0; i < c->r->ncarves; i++)
		if (!c->r->carves[i].pin && path_is_under(path, c->r->carves[i].path))
			return 1;
	for (size_t i = 0; i < *c->n; i++)
		if (!(*c->v)[i].pin && path_is_under(path, (*c->v)[i].path))
			return 1;
	return 0;
}

/* dest: the path under root rp of the registry's ancestor at reg->path[0..off). */
static int dest_of(const struct registry *reg, const char *rp, size_t from, size_t to,
		   char *dest, size_t len, struct cordon_err *e)
{
	int n = snprintf(dest, len, "%s%.*s", strcmp(rp, "/") == 0 ? "" : rp,
			 (int)(to - from), reg->path + from);
	if (n < 0 || (size_t)n >= len)
		return err_set(e, ENAMETOOLONG, "registry %s under %s: path too long", reg->path, rp);
	if (dest[0] == '\0')
		(void)snprintf(dest, len, "/");
	return 0;
}

/* Open the ancestor anc[j] below root descriptor `at` (anc[k]) one
 * component at a time without following links, and check it is the
 * directory registry_open saw. */
static int open_ancestor(const struct registry *reg, int at, size_t k, size_t j)
{
	int cur = openat(at, ".", O_PATH | O_DIRECTORY | O_CLOEXEC);
	for (size_t a = k + 1; cur >= 0 && a <= j; a++) {
		char comp[NAME_MAX + 1];
		const char *s = reg->path + reg->anc[a - 1].off + 1;
		size_t len = reg->anc[a].off - reg->anc[a - 1].off - 1;
		if (len == 0 || len > NAME_MAX) {
			sys_close(&cur);
			errno = EINVAL;
			return -1;
		}
		memcpy(comp, s, len);
		comp[len] = '\0';
		int fd = openat(cur, comp, O_PATH | O_NOFOLLOW | O_DIRECTORY | O_CLOEXEC);
		sys_close(&cur);
		cur = fd;
	}
	struct stat st;
	if (cur >= 0 && (fstat(cur, &st) < 0 || st.st_dev != reg->anc[j].dev ||
			 st.st_ino != reg->anc[j].ino)) {
		sys_close(&cur);
		errno = ESTALE;
	}
	return cur;
}

static int push(const struct carves *cv, const char *dest, int fd, dev_t dev, ino_t ino, int pin,
		struct cordon_err *e)
{
	struct rpath c = { .fd = fd, .dev = dev, .ino = ino, .is_dir = 1, .pin = pin };
	c.path = strdup(dest);
	if (!c.path || rpath_push(cv->v, cv->n, &c) < 0) {
		rpath_free(&c);
		return err_set(e, ENOMEM, "out of memory");
	}
	return 0;
}

/* The pins between root rp (anc[k], descriptor at) and the registry. */
static int pin_ancestors(const struct carves *r, const struct registry *reg, const char *rp,
			 int at, size_t k, struct cordon_err *e)
{
	for (size_t j = k + 1; j + 1 < reg->nanc; j++) {
		char dest[PATH_MAX];
		int rc = dest_of(reg, rp, reg->anc[k].off, reg->anc[j].off, dest, sizeof(dest), e);
		if (rc < 0)
			return rc;
		if (has_carve(r, dest) || under_read_only(r, dest))
			continue;
		int fd = open_ancestor(reg, at, k, j);
		if (fd < 0)
			return err_sys(e, errno, "registry %s: cannot open %s to keep it in place "
				       "(run again; if it persists, check what moves it)",
				       reg->path, dest);
		if ((rc = push(r, dest, fd, reg->anc[j].dev, reg->anc[j].ino, 1, e)) < 0)
			return rc;
	}
	return 0;
}

int registry_carve(const struct resolved *res, int full_write, const struct registry *reg,
		   struct rpath **out, size_t *nout, struct cordon_err *e)
{
	const struct carves cv = { res, out, nout };
	const struct carves *r = &cv;
	size_t nroots = res->nroots + (full_write ? 1 : 0);
	for (size_t i = 0; i < nroots; i++) {
		const char *rp = i < res->nroots ? res->roots[i].path : "/";
		char dest[PATH_MAX];
		size_t k = 0;
		int rc;
		if (i < res->nroots) {
			for (k = 0; k < reg->nanc; k++)
				if (reg->anc[k].dev == res->roots[i].dev && reg->anc[k].ino == res->roots[i].ino)
					break;
			if (k == reg->nanc)
				continue;
		}
		if ((rc = dest_of(reg, rp, reg->anc[k].off, strlen(reg->path), dest, sizeof(dest), e)) < 0)
			return rc;
		if (!has_carve(r, dest)) {
			int fd = openat(reg->dirfd, ".", O_PATH | O_CLOEXEC);
			if (fd < 0)
				return err_sys(e, errno, "registry %s: cannot open it", reg->path);
			if ((rc = push(r, dest, fd, reg->dev, reg->ino, 0, e)) < 0)
				return rc;
		}
		AUTO_FD at = i < res->nroots ? openat(res->roots[i].fd, ".", O_PATH | O_DIRECTORY | O_CLOEXEC)
					   : open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (at < 0)
			return err_sys(e, errno, "cannot open the writable root %s", rp);
		if ((rc = pin_ancestors(r, reg, rp, at, k, e)) < 0)
			return rc;
	}
	return 0;
}
