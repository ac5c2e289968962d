/* pins.c: see pins.h. */
#include "plan/pins.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "path.h"
#include "sys.h"

/* The deepest writable root strictly above path, or NULL. */
static const struct rpath *root_above(const struct resolved *r, const char *path)
{
	const struct rpath *best = NULL;
	for (size_t i = 0; i < r->nroots; i++) {
		const struct rpath *rt = &r->roots[i];
		if (!rt->is_dir || strcmp(rt->path, path) == 0 || !path_is_under(path, rt->path))
			continue;
		if (!best || path_depth(rt->path) > path_depth(best->path))
			best = rt;
	}
	return best;
}

/* 1 if dir needs no pin: a writable root, a carve already (pin or read-only),
 * or inside a read-only carve-out or git directory. */
static int needs_no_pin(const struct resolved *r, const char *dir)
{
	for (size_t i = 0; i < r->nroots; i++)
		if (strcmp(r->roots[i].path, dir) == 0)
			return 1;
	for (size_t i = 0; i < r->ncarves; i++)
		if (strcmp(r->carves[i].path, dir) == 0 ||
		    (!r->carves[i].pin && path_is_under(dir, r->carves[i].path)))
			return 1;
	for (size_t i = 0; i < r->ngitdirs; i++)
		if (path_is_under(dir, r->gitdirs[i].path))
			return 1;
	return 0;
}

static int push_pin(struct resolved *r, const char *dir, int at, struct cordon_err *e)
{
	struct stat st;
	struct rpath p = { .fd = -1, .is_dir = 1, .pin = 1 };
	if (fstat(at, &st) < 0)
		return err_sys(e, errno, "cannot inspect %s", dir);
	p.fd = fcntl(at, F_DUPFD_CLOEXEC, 3);
	p.dev = st.st_dev;
	p.ino = st.st_ino;
	p.path = strdup(dir);
	if (p.fd < 0 || !p.path || rpath_push(&r->carves, &r->ncarves, &r->capcarves, &p) < 0) {
		int err = p.fd < 0 ? errno : ENOMEM;
		rpath_free(&p);
		return err_sys(e, err, "cannot keep %s in place", dir);
	}
	return 0;
}

int pins_add_above(struct resolved *r, const char *where, int full_write, struct cordon_err *e)
{
	/* A copy: where may lie in r->carves, which each pin reallocates. */
	char path[PATH_MAX], dir[PATH_MAX], comp[NAME_MAX + 1];
	size_t wlen = strlen(where);
	if (wlen >= sizeof(path))
		return err_set(e, ENAMETOOLONG, "%s: path too long", where);
	memcpy(path, where, wlen + 1);
	const struct rpath *root = root_above(r, path);
	if (!root && !full_write)
		return 0;
	/* With --full-write and no root above it, the path lies in the writable /. */
	const char *rootpath = root ? root->path : "/";
	size_t rootlen = strlen(rootpath);
	AUTO_FD at = root ? openat(root->fd, ".", O_PATH | O_DIRECTORY | O_CLOEXEC)
			  : open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (at < 0)
		return err_sys(e, errno, "cannot open the writable root %s", rootpath);
	const char *p = path + (strcmp(rootpath, "/") == 0 ? 0 : rootlen);
	size_t len;
	for (const char *s; (s = path_next(&p, &len)) && len > 0;) {
		const char *rest = p;
		size_t more;
		if (!path_next(&rest, &more) || more == 0)
			break; /* the last component: path itself, read-only already */
		if (len > NAME_MAX)
			return err_set(e, ENAMETOOLONG, "%s: a component is too long", path);
		memcpy(comp, s, len);
		comp[len] = '\0';
		memcpy(dir, path, (size_t)(p - path));
		dir[p - path] = '\0';
		/* Without following links: the path was canonical a moment ago,
		 * so a link here is a swap, and the pin must be the directory
		 * that is checked. */
		int fd = openat(at, comp, O_PATH | O_NOFOLLOW | O_DIRECTORY | O_CLOEXEC);
		if (fd < 0)
			return err_sys(e, errno, "cannot open %s to keep %s in place (run again; if it "
				       "persists, check what moves it)", dir, path);
		sys_close(&at);
		at = fd;
		if (needs_no_pin(r, dir))
			continue;
		int rc = push_pin(r, dir, at, e);
		if (rc < 0)
			return rc;
	}
	return 0;
}
