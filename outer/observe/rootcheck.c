/* rootcheck.c: see rootcheck.h. */
#include "observe/rootcheck.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <stdlib.h>
#include "observe/findings.h"
#include "path.h"
#include "sys.h"

/* What path leads to now, without following links: 0 and *now NULL if
 * it is still the object (dev, ino), 0 and *now what it leads to instead,
 * or -errno when cordon could not look (EMFILE, ENOMEM, EACCES: an
 * internal error, never a finding).  Only a missing component (ENOENT,
 * ENOTDIR) says that the path leads elsewhere. */
static int leads_elsewhere(const char *path, dev_t dev, ino_t ino, const char **now)
{
	char comp[NAME_MAX + 1];
	struct stat st;
	*now = NULL;
	AUTO_FD at = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (at < 0)
		return -errno;
	const char *p = path;
	size_t len;
	for (const char *s; (s = path_next(&p, &len)) && len > 0;) {
		if (len > NAME_MAX)
			return -ENAMETOOLONG;
		memcpy(comp, s, len);
		comp[len] = '\0';
		int fd = openat(at, comp, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0 && (errno == ENOENT || errno == ENOTDIR)) {
			*now = "nothing";
			return 0;
		}
		if (fd < 0)
			return -errno;
		sys_close(&at);
		at = fd;
		if (fstat(at, &st) < 0)
			return -errno;
		if (S_ISLNK(st.st_mode)) {
			*now = "a symbolic link on the way";
			return 0;
		}
	}
	if (fstat(at, &st) < 0)
		return -errno;
	if (st.st_dev != dev || st.st_ino != ino)
		*now = S_ISDIR(st.st_mode) ? "another directory" : "another file";
	return 0;
}

static void say_moved(FILE *out, const void *arg)
{
	const struct rootcheck_moved *m = arg;
	(void)fprintf(out,
		       "cordon: writable root %s no longer leads to the directory the run started "
		       "with (it now leads to %s): a directory on its path was renamed or replaced "
		       "during the run, so the protected names cordon kept there were kept in the "
		       "directory that moved, not at this path.  Check %s before a host tool acts "
		       "on it.\n", m->path, m->now, m->path);
}

int rootcheck_settle(const struct resolved *r, rootcheck_fn *moved, void *ctx,
		     struct cordon_err *e)
{
	int n = 0, failed = 0;
	for (size_t i = 0; i < r->nroots; i++) {
		const struct rpath *rt = &r->roots[i];
		const char *now;
		int rc = leads_elsewhere(rt->path, rt->dev, rt->ino, &now);
		if (rc < 0 && !failed) {
			failed = rc;
			(void)err_sys(e, -rc, "cannot check that the writable root %s still leads to "
				      "the directory the run started with, so the run cannot be "
				      "called clean; check %s before a host tool acts on it",
				      rt->path, rt->path);
		}
		if (rc < 0 || !now)
			continue;
		n++;
		struct rootcheck_moved mv = { rt->path, now, NULL };
		char *say = moved ? findings_compose(say_moved, &mv) : NULL;
		if (!say)
			say_moved(stderr, &mv);
		mv.say = say;
		if (moved)
			moved(ctx, &mv);
		free(say);
	}
	return failed ? failed : n;
}
