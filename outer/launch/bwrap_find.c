/* bwrap_find.c: see bwrap_find.h. */
#include "launch/bwrap_find.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "path.h"
#include "sys.h"

static const char *const bwrap_trusted[] = {
	"/usr/bin/bwrap", "/usr/local/bin/bwrap", "/bin/bwrap", NULL,
};

int bwrap_judge(const struct bwrap_facts *f, char *why, size_t whylen)
{
	if (!S_ISREG(f->file.st_mode) || !(f->file.st_mode & S_IXUSR)) {
		(void)snprintf(why, whylen, "not an executable file");
		return -EPERM;
	}
	if ((f->file.st_mode & S_ISUID) && f->file.st_uid == 0) {
		(void)snprintf(why, whylen, "setuid root (cordon needs an unprivileged bwrap)");
		return -EPERM;
	}
	for (size_t i = 0; i < f->nroots; i++) {
		if (path_is_under(f->path, f->roots[i].path)) {
			(void)snprintf(why, whylen, "inside the writable root %s", f->roots[i].path);
			return -EPERM;
		}
	}
	if (f->file.st_uid != 0 || (f->file.st_mode & (S_IWGRP | S_IWOTH))) {
		(void)snprintf(why, whylen, "the file is not owned by root or is writable by others");
		return -EPERM;
	}
	for (size_t i = 0; i < f->ndirs; i++) {
		if (f->dirs[i].st_uid != 0 || (f->dirs[i].st_mode & (S_IWGRP | S_IWOTH))) {
			(void)snprintf(why, whylen,
				       "a directory above it is not owned by root or is writable by others");
			return -EPERM;
		}
	}
	return 0;
}

/* Open one candidate and judge it.  1: accepted into *out; 0: refused, the
 * reason appended to report. */
static int try_candidate(const char *cand, const struct rpath *roots, size_t nroots,
			 struct bwrap_bin *out, char *report, size_t replen)
{
	char why[160] = "";
	char canon[PATH_MAX];
	char link[64];
	struct stat dirs[64];
	size_t ndirs = 0;
	int fd = open(cand, O_PATH | O_CLOEXEC);
	if (fd < 0) {
		(void)snprintf(why, sizeof(why), "%s", strerror(errno));
		goto refuse;
	}
	(void)snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	ssize_t n = readlink(link, canon, sizeof(canon) - 1);
	struct stat st;
	if (n <= 0 || fstat(fd, &st) < 0) {
		(void)snprintf(why, sizeof(why), "cannot inspect it: %s", strerror(errno));
		goto refuse;
	}
	canon[n] = '\0';

	/* Every ancestor of the canonical path, "/" included. */
	char dir[PATH_MAX];
	memcpy(dir, canon, (size_t)n + 1);
	for (;;) {
		char *slash = strrchr(dir, '/');
		if (!slash)
			break;
		if (slash == dir)
			slash[1] = '\0';
		else
			*slash = '\0';
		if (ndirs >= sizeof(dirs) / sizeof(dirs[0]) || lstat(dir, &dirs[ndirs]) < 0) {
			(void)snprintf(why, sizeof(why), "cannot inspect %.100s", dir);
			goto refuse;
		}
		ndirs++;
		if (strcmp(dir, "/") == 0)
			break;
	}
	struct bwrap_facts f = { canon, st, dirs, ndirs, roots, nroots };
	if (bwrap_judge(&f, why, sizeof(why)) < 0)
		goto refuse;
	out->fd = fd;
	memcpy(out->path, canon, (size_t)n + 1);
	out->st = st;
	return 1;
refuse:
	sys_close(&fd);
	size_t used = strlen(report);
	(void)snprintf(report + used, replen - used, "%s%s (%s)", used ? "; " : "", cand, why);
	return 0;
}

/* The directories already searched, by identity: on a merged /usr, /bin is
 * /usr/bin, and PATH repeats the trusted ones; each is named once. */
struct searched {
	struct { dev_t dev; ino_t ino; } v[32];
	size_t n;
};

/* 1 if cand's directory was searched already (or cannot be told apart);
 * else it is noted as searched. */
static int searched_before(struct searched *s, const char *cand)
{
	char dir[PATH_MAX];
	struct stat st;
	(void)snprintf(dir, sizeof(dir), "%s", cand);
	char *slash = strrchr(dir, '/');
	if (!slash)
		return 0;
	slash[slash == dir] = '\0';
	if (stat(dir, &st) < 0)
		return 0;
	for (size_t i = 0; i < s->n; i++)
		if (s->v[i].dev == st.st_dev && s->v[i].ino == st.st_ino)
			return 1;
	if (s->n < sizeof(s->v) / sizeof(s->v[0])) {
		s->v[s->n].dev = st.st_dev;
		s->v[s->n++].ino = st.st_ino;
	}
	return 0;
}

int bwrap_find(const struct rpath *roots, size_t nroots, struct bwrap_bin *out,
	       struct cordon_err *e)
{
	char report[ERR_MSG_MAX] = "";
	const char *env = getenv("CORDON_BWRAP");
	if (env && env[0]) {
		if (env[0] != '/')
			return err_set(e, EINVAL, "CORDON_BWRAP=%s: give an absolute path", env);
		if (try_candidate(env, roots, nroots, out, report, sizeof(report)))
			return 0;
		return err_set(e, EPERM, "CORDON_BWRAP refused: %s", report);
	}
	struct searched seen = { .n = 0 };
	for (const char *const *c = bwrap_trusted; *c; c++)
		if (!searched_before(&seen, *c) &&
		    try_candidate(*c, roots, nroots, out, report, sizeof(report)))
			return 0;
	const char *path = getenv("PATH");
	if (path) {
		char *copy = strdup(path);
		if (!copy)
			return err_set(e, ENOMEM, "out of memory");
		char *save = NULL;
		for (char *d = strtok_r(copy, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
			char cand[PATH_MAX];
			if (d[0] != '/' || path_join(d, "bwrap", cand, sizeof(cand)) < 0)
				continue;
			if (access(cand, F_OK) < 0 || searched_before(&seen, cand))
				continue;
			if (try_candidate(cand, roots, nroots, out, report, sizeof(report))) {
				free(copy);
				return 0;
			}
		}
		free(copy);
	}
	return err_set(e, ENOENT,
		       "no usable bwrap: %s; install Debian's bubblewrap package (apt-get install bubblewrap)",
		       report[0] ? report : "none found");
}

int bwrap_find_tool(const char *name, const struct rpath *roots, size_t nroots,
		    struct bwrap_bin *out, struct cordon_err *e)
{
	static const char *const dirs[] = { "/usr/bin", "/usr/local/bin", "/bin", NULL };
	char report[ERR_MSG_MAX] = "";
	struct searched seen = { .n = 0 };
	for (const char *const *d = dirs; *d; d++) {
		char cand[PATH_MAX];
		if (path_join(*d, name, cand, sizeof(cand)) < 0)
			continue;
		if (access(cand, F_OK) == 0 && !searched_before(&seen, cand) &&
		    try_candidate(cand, roots, nroots, out, report, sizeof(report)))
			return 0;
	}
	return err_set(e, ENOENT, "no %s cordon can trust: %s", name,
		       report[0] ? report : "none in /usr/bin, /usr/local/bin, /bin");
}
