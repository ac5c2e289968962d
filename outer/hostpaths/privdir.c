/* privdir.c: see privdir.h. */
#include "hostpaths/privdir.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "path.h"
#include "sys.h"

static int visit(const struct privdir_walk *w, int fd, const char *shown, size_t idx,
		 size_t prefix, struct cordon_err *e)
{
	struct stat st;
	if (fstat(fd, &st) < 0)
		return err_sys(e, errno, "%s: cannot inspect %s", w->what, shown);
	return w->check ? w->check(w->ctx, shown, &st, idx, prefix, e) : 0;
}

/* comp, missing under cur: made 0700 when allowed, then opened. */
static int create_one(const struct privdir_walk *w, int cur, const char *comp, const char *shown,
		      size_t idx, int *missing, struct cordon_err *e)
{
	if (!w->create || idx <= w->must_exist) {
		*missing = 1;
		return err_set(e, ENOENT, "%s: %s does not exist; %s", w->what, shown, w->advice);
	}
	if (mkdirat(cur, comp, 0700) < 0 && errno != EEXIST) {
		*missing = 1;
		return err_set(e, errno, "%s: cannot create %s (%s); %s", w->what, shown,
			       strerror(errno), w->advice);
	}
	int fd = openat(cur, comp, O_PATH | O_NOFOLLOW | O_DIRECTORY | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

/* Why comp could not be opened: a link is named as one. */
static int open_failed(const struct privdir_walk *w, int cur, const char *comp, const char *shown,
		       int err, struct cordon_err *e)
{
	struct stat lst;
	if ((err == ENOTDIR || err == ELOOP) && fstatat(cur, comp, &lst, AT_SYMLINK_NOFOLLOW) == 0 &&
	    S_ISLNK(lst.st_mode))
		return err_set(e, ELOOP, "%s: %s is a symbolic link; %s", w->what, shown,
			       w->link_advice);
	return err_set(e, err, "%s: cannot open %s: %s; %s", w->what, shown, strerror(err),
		       w->advice);
}

int privdir_open(const struct privdir_walk *w, int *missing, struct cordon_err *e)
{
	char shown[PATH_MAX], comp[NAME_MAX + 1];
	int dummy = 0, rc;
	if (!missing)
		missing = &dummy;
	*missing = 0;
	AUTO_FD cur = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (cur < 0)
		return err_sys(e, errno, "%s: cannot open /", w->what);
	if ((rc = visit(w, cur, "/", 0, 0, e)) < 0)
		return rc;
	const char *p = w->path;
	size_t idx = 0, len;
	for (const char *s; (s = path_next(&p, &len)) && len > 0;) {
		if (len > NAME_MAX)
			return err_set(e, ENAMETOOLONG, "%s: a component of %s is too long", w->what,
				       w->path);
		memcpy(comp, s, len);
		comp[len] = '\0';
		size_t prefix = (size_t)(p - w->path);
		(void)snprintf(shown, sizeof(shown), "%.*s", (int)prefix, w->path);
		idx++;
		int fd = openat(cur, comp, O_PATH | O_NOFOLLOW | O_DIRECTORY | O_CLOEXEC);
		int err = fd < 0 ? errno : 0;
		if (err == ENOENT) {
			fd = create_one(w, cur, comp, shown, idx, missing, e);
			if (*missing)
				return fd;
			err = fd < 0 ? -fd : 0;
		}
		if (fd < 0)
			return open_failed(w, cur, comp, shown, err, e);
		sys_close(&cur);
		cur = fd;
		if ((rc = visit(w, cur, shown, idx, prefix, e)) < 0)
			return rc;
	}
	return sys_take_fd(&cur);
}
