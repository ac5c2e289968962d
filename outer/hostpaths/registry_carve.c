/* registry_carve.c: see registry_carve.h. */
#include "hostpaths/registry_carve.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "plan/protect_decide.h"
#include "sys.h"

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

static int push(struct rpath **out, size_t *nout, size_t *capout, const char *dest, int fd,
		dev_t dev, ino_t ino, int pin, struct cordon_err *e)
{
	struct rpath c = { .fd = fd, .dev = dev, .ino = ino, .is_dir = 1, .pin = pin };
	c.path = strdup(dest);
	if (!c.path || rpath_push(out, nout, capout, &c) < 0) {
		rpath_free(&c);
		return err_set(e, ENOMEM, "out of memory");
	}
	return 0;
}

/* Open what protect_decide_carves decided: the registry itself by its
 * descriptor, a pin one component at a time from its root, checked to be
 * the directory registry_open saw. */
static int open_carve(const struct resolved *res, const struct registry *reg,
		      const struct protect_carve *c, struct rpath **out, size_t *nout,
		      size_t *capout, struct cordon_err *e)
{
	if (!c->pin) {
		int fd = openat(reg->dirfd, ".", O_PATH | O_CLOEXEC);
		if (fd < 0)
			return err_sys(e, errno, "registry %s: cannot open it", reg->path);
		return push(out, nout, capout, c->path, fd, reg->dev, reg->ino, 0, e);
	}
	const char *rp = c->root < res->nroots ? res->roots[c->root].path : "/";
	AUTO_FD at = c->root < res->nroots
			     ? openat(res->roots[c->root].fd, ".", O_PATH | O_DIRECTORY | O_CLOEXEC)
			     : open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (at < 0)
		return err_sys(e, errno, "cannot open the writable root %s", rp);
	int fd = open_ancestor(reg, at, c->top, c->anc);
	if (fd < 0)
		return err_sys(e, errno, "registry %s: cannot open %s to keep it in place "
			       "(run again; if it persists, check what moves it)",
			       reg->path, c->path);
	return push(out, nout, capout, c->path, fd, reg->anc[c->anc].dev, reg->anc[c->anc].ino, 1,
		    e);
}

int registry_carve(const struct resolved *res, int full_write, const struct registry *reg,
		   struct rpath **out, size_t *nout, size_t *capout, struct cordon_err *e)
{
	struct protect_anc anc[REGISTRY_MAX_DEPTH + 1];
	for (size_t i = 0; i < reg->nanc; i++)
		anc[i] = (struct protect_anc){ reg->anc[i].dev, reg->anc[i].ino, reg->anc[i].off };
	const struct protect_regview view = { reg->path, anc, reg->nanc };
	size_t nroots = res->nroots, nhave = res->ncarves + (*out != res->carves ? *nout : 0);
	struct protect_root *roots = calloc(nroots ? nroots : 1, sizeof(*roots));
	struct protect_carved *have = calloc(nhave ? nhave : 1, sizeof(*have));
	struct protect_carve *v = NULL;
	size_t n = 0, cap = 0;
	if (!roots || !have) {
		free(roots);
		free(have);
		return err_set(e, ENOMEM, "out of memory");
	}
	for (size_t i = 0; i < nroots; i++)
		roots[i] = (struct protect_root){ res->roots[i].path, res->roots[i].dev,
						  res->roots[i].ino, 0 };
	for (size_t i = 0; i < nhave; i++) {
		const struct rpath *h = i < res->ncarves ? &res->carves[i] : &(*out)[i - res->ncarves];
		have[i] = (struct protect_carved){ h->path, h->pin };
	}
	int rc = protect_decide_carves(roots, nroots, full_write, &view, have, nhave, &v, &n, &cap,
				       e);
	free(roots);
	free(have);
	for (size_t i = 0; rc == 0 && i < n; i++)
		rc = open_carve(res, reg, &v[i], out, nout, capout, e);
	protect_carves_free(v, n);
	return rc;
}
