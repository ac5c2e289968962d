/* linkwalk.c: see linkwalk.h.  Belongs here: the walk and its rules; the
 * filesystem only through the callbacks. */
#include "plan/linkwalk.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "path.h"
#include "grow.h"

/* Room for every link's text and what is left of the path after it. */
#define TODO_MAX ((size_t)(LINKWALK_HOPS + 2) * PATH_MAX)

struct walk {
	const struct linkwalk_in *in;
	const struct linkwalk_fs *fs;
	struct linkwalk *out;
	char cur[PATH_MAX];        /* the directory lookups happen in, canonical */
	struct stat cur_st;
	int cur_known;             /* cur_st is cur's */
	char *todo, *spare;        /* what is left to follow; TODO_MAX each */
	char text[PATH_MAX];
	/* The directory looked up last, not yet known to be the end. */
	char pend[PATH_MAX];
	struct stat pend_st, pend_dir;
	int pending, pend_change;
};

static int in_a_root(const struct linkwalk_in *in, const char *path)
{
	for (size_t i = 0; i < in->nroots; i++)
		if (path_is_under(path, in->roots[i]))
			return 1;
	return 0;
}

static int in_space(const struct linkwalk_in *in, const char *path)
{
	if (in_a_root(in, path))
		return 1;
	if (!in->full_write)
		return 0;
	for (size_t i = 0; i < in->noutside; i++)
		if (path_is_under(path, in->outside[i]))
			return 0;
	return 1;
}

static int is_root(const struct linkwalk_in *in, const char *path)
{
	for (size_t i = 0; i < in->nroots; i++)
		if (strcmp(path, in->roots[i]) == 0)
			return 1;
	return 0;
}

/* Above a writable root, and inside none: what the command can write there
 * lies under the root's own path only (linkwalk.h).  Inside another root,
 * all of it is the command's to write (and a root beneath it is read-only
 * with it). */
static int above_root(const struct linkwalk_in *in, const char *path)
{
	if (in_a_root(in, path))
		return 0;
	for (size_t i = 0; i < in->nroots; i++)
		if (strcmp(path, in->roots[i]) != 0 && path_is_under(in->roots[i], path))
			return 1;
	return in->full_write && strcmp(path, "/") == 0;
}

static int push(struct walk *w, enum linkwalk_kind kind, const char *path, const struct stat *st,
		const struct stat *dir)
{
	struct linkwalk *o = w->out;
	for (size_t i = 0; i < o->n; i++)
		if (strcmp(o->v[i].path, path) == 0 && o->v[i].kind == kind)
			return 0;
	if (o->n >= LINKWALK_STEPS_MAX)
		return -E2BIG;
	if (grow_reserve(&o->v, &o->cap, o->n + 1, sizeof(*o->v)) < 0)
		return -ENOMEM;
	o->v[o->n] = (struct linkwalk_step){ .kind = kind, .dir_dev = (uint64_t)dir->st_dev,
					  .dir_ino = (uint64_t)dir->st_ino };
	if (st) {
		o->v[o->n].dev = (uint64_t)st->st_dev;
		o->v[o->n].ino = (uint64_t)st->st_ino;
		o->v[o->n].is_dir = S_ISDIR(st->st_mode);
	}
	if (!(o->v[o->n].path = strdup(path)))
		return -ENOMEM;
	o->n++;
	return 0;
}

/* Could the command rename, remove or replace the entry st in cur? */
static int changeable(struct walk *w, const struct stat *st)
{
	const struct stat *d = &w->cur_st;
	uid_t uid = w->in->uid;
	return in_space(w->in, w->cur) && w->fs->writable(w->fs->ctx, w->cur) &&
	       (!(d->st_mode & S_ISVTX) || st->st_uid == uid || d->st_uid == uid || uid == 0);
}

static int know_cur(struct walk *w)
{
	if (w->cur_known)
		return 0;
	int rc = w->fs->lstat(w->fs->ctx, w->cur, &w->cur_st);
	if (rc < 0)
		return rc;
	if (!S_ISDIR(w->cur_st.st_mode))
		return -EAGAIN; /* a directory a moment ago */
	w->cur_known = 1;
	return 0;
}

static int flush_pending(struct walk *w)
{
	int rc = 0;
	if (w->pending && w->pend_change)
		rc = push(w, LINKWALK_ON_THE_WAY, w->pend, &w->pend_st, &w->pend_dir);
	w->pending = 0;
	return rc;
}

/* The end of the way: path, whose directory is dir; change: the command
 * could replace it there. */
static int at_end(struct walk *w, const char *path, const struct stat *st,
		  const struct stat *dir, int change)
{
	if (above_root(w->in, path) || !in_space(w->in, path))
		return 0;
	if (S_ISDIR(st->st_mode) || S_ISREG(st->st_mode) || is_root(w->in, path))
		return push(w, LINKWALK_TARGET, path, st, dir);
	return change ? push(w, LINKWALK_ON_THE_WAY, path, st, dir) : 0;
}

/* cur, its last component dropped (".." of a canonical path). */
static void up(struct walk *w)
{
	char *s = strrchr(w->cur, '/');
	if (s)
		s[s == w->cur ? 1 : 0] = '\0';
	w->cur_known = 0;
}

/* Follow the link at path (st: its lstat in cur): its text, then the rest. */
static int follow(struct walk *w, const char *path, const char *rest)
{
	ssize_t n = w->fs->readlink(w->fs->ctx, path, w->text, sizeof(w->text));
	if (n < 0)
		return n == -EINVAL || n == -ENOENT ? -EAGAIN : (int)n;
	if (n == 0 || (size_t)n >= sizeof(w->text))
		return n == 0 ? -EAGAIN : -ENAMETOOLONG;
	size_t rl = strlen(rest);
	if ((size_t)n + 1 + rl + 1 > TODO_MAX)
		return -ENAMETOOLONG; /* cannot be: each hop adds one text */
	memcpy(w->spare, w->text, (size_t)n);
	w->spare[n] = '/';
	memcpy(w->spare + n + 1, rest, rl + 1);
	char *t = w->todo;
	w->todo = w->spare;
	w->spare = t;
	if (w->text[0] == '/') {
		(void)snprintf(w->cur, sizeof(w->cur), "/");
		w->cur_known = 0;
	}
	return 0;
}

static int only_dots(const char *p)
{
	size_t len;
	const char *s;
	while ((s = path_next(&p, &len)) && len > 0)
		if (!(len == 1 && s[0] == '.'))
			return 0;
	return 1;
}

static int walk_all(struct walk *w)
{
	int hops = 1, rc;
	for (;;) {
		const char *p = w->todo;
		size_t len;
		const char *s = path_next(&p, &len);
		if (len == 0)
			break;
		if (len == 1 && s[0] == '.') {
			memmove(w->todo, p, strlen(p) + 1);
			continue;
		}
		if ((rc = flush_pending(w)) < 0)
			return rc;
		if (len == 2 && s[0] == '.' && s[1] == '.') {
			up(w);
			memmove(w->todo, p, strlen(p) + 1);
			continue;
		}
		char path[PATH_MAX];
		if (snprintf(path, sizeof(path), "%s%s%.*s", w->cur, strcmp(w->cur, "/") ? "/" : "",
			     (int)len, s) >= (int)sizeof(path))
			return -ENAMETOOLONG;
		if ((rc = know_cur(w)) < 0)
			return rc;
		struct stat st;
		rc = w->fs->lstat(w->fs->ctx, path, &st);
		if (rc == -ENOENT)
			return in_space(w->in, w->cur) && w->fs->writable(w->fs->ctx, w->cur) ?
				       push(w, LINKWALK_MISSING, path, NULL, &w->cur_st) : 0;
		if (rc == -EACCES)
			return 0; /* the caller cannot look there, so neither can its command */
		if (rc < 0)
			return rc == -ENOTDIR ? -EAGAIN : rc;
		int change = changeable(w, &st);
		if (S_ISLNK(st.st_mode)) {
			if (change && (rc = push(w, LINKWALK_ON_THE_WAY, path, &st, &w->cur_st)) < 0)
				return rc;
			if (++hops > LINKWALK_HOPS)
				return 0; /* ELOOP for everyone, and every swappable link watched */
			if ((rc = follow(w, path, p)) < 0)
				return rc;
			continue;
		}
		if (S_ISDIR(st.st_mode)) {
			memcpy(w->pend, path, sizeof(path));
			w->pend_st = st;
			w->pend_dir = w->cur_st;
			w->pend_change = change;
			w->pending = 1;
			memcpy(w->cur, path, sizeof(path));
			w->cur_st = st;
			w->cur_known = 1;
			memmove(w->todo, p, strlen(p) + 1);
			continue;
		}
		/* Not a directory: the end, or ENOTDIR for the rest. */
		if (!only_dots(p))
			return change ? push(w, LINKWALK_ON_THE_WAY, path, &st, &w->cur_st) : 0;
		return at_end(w, path, &st, &w->cur_st, change);
	}
	if (w->pending) {
		w->pending = 0;
		return at_end(w, w->pend, &w->pend_st, &w->pend_dir, w->pend_change);
	}
	/* Ended on the directory the link is in, `/`, or after "..". */
	if ((rc = know_cur(w)) < 0)
		return rc;
	return at_end(w, w->cur, &w->cur_st, &w->cur_st, 0);
}

int linkwalk(const struct linkwalk_in *in, const struct linkwalk_fs *fs, struct linkwalk *out)
{
	struct walk *w = calloc(1, sizeof(*w));
	int rc;
	if (!w)
		return -ENOMEM;
	*w = (struct walk){ .in = in, .fs = fs, .out = out };
	w->todo = malloc(TODO_MAX);
	w->spare = malloc(TODO_MAX);
	const char *slash = strrchr(in->link, '/');
	if (!w->todo || !w->spare)
		rc = -ENOMEM;
	else if (!slash || in->link[0] != '/')
		rc = -EINVAL;
	else if (snprintf(w->cur, sizeof(w->cur), "%.*s", slash == in->link ? 1 :
			  (int)(slash - in->link), in->link) >= (int)sizeof(w->cur))
		rc = -ENAMETOOLONG;
	else {
		w->todo[0] = '\0';
		rc = follow(w, in->link, "");
		if (rc == 0)
			rc = walk_all(w);
	}
	free(w->todo);
	free(w->spare);
	free(w);
	return rc;
}

void linkwalk_free(struct linkwalk *w)
{
	for (size_t i = 0; i < w->n; i++)
		free(w->v[i].path);
	free(w->v);
	w->v = NULL;
	w->n = w->cap = 0;
}
