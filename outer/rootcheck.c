/* rootcheck.c: see rootcheck.h. */
#include "rootcheck.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include "path.h"
#include "sys.h"

/* What path leads to now, without following links: NULL if it is still the
 * object (dev, ino). */
static const char *leads_elsewhere(const char *path, dev_t dev, ino_t ino)
{
	char comp[NAME_MAX + 1];
	struct stat st;
	AUTO_FD at = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (at < 0)
		return "nothing cordon can open";
	const char *p = path;
	size_t len;
	for (const char *s; (s = path_next(&p, &len)) && len > 0;) {
		if (len > NAME_MAX)
			return "nothing cordon can open";
		memcpy(comp, s, len);
		comp[len] = '\0';
		int fd = openat(at, comp, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0)
			return errno == ENOENT || errno == ENOTDIR ? "nothing" : "nothing cordon can open";
		sys_close(&at);
		at = fd;
		if (fstat(at, &st) < 0)
			return "nothing cordon can inspect";
		if (S_ISLNK(st.st_mode))
			return "a symbolic link on the way";
	}
	if (fstat(at, &st) < 0)
		return "nothing cordon can inspect";
	if (st.st_dev == dev && st.st_ino == ino)
		return NULL;
	return S_ISDIR(st.st_mode) ? "another directory" : "another file";
}

size_t rootcheck_settle(const struct resolved *r, rootcheck_fn *moved, void *ctx)
{
	size_t n = 0;
	for (size_t i = 0; i < r->nroots; i++) {
		const struct rpath *rt = &r->roots[i];
		const char *now = leads_elsewhere(rt->path, rt->dev, rt->ino);
		if (!now)
			continue;
		n++;
		fprintf(stderr,
			"cordon: writable root %s no longer leads to the directory the run started "
			"with (it now leads to %s): a directory on its path was renamed or replaced "
			"during the run, so the protected names cordon kept there were kept in the "
			"directory that moved, not at this path.  Check %s before a host tool acts "
			"on it.\n", rt->path, now, rt->path);
		if (moved) {
			struct rootcheck_moved m = { rt->path, now };
			moved(ctx, &m);
		}
	}
	return n;
}
