/* gitrefs.c: see gitrefs.h. */
#include "observe/gitrefs.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "hostpaths/gitmode.h"
#include "sys.h"
#include "termsafe.h"
#include "grow.h"

struct refs {
	struct gitrefs_ref *v;
	size_t n, cap;
	char gap[200];    /* the first reason the list is not complete, "" */
	size_t nmissed;   /* entries that could not be read */
};

/* Something git would read was not: the list is incomplete, and why. */
__attribute__((format(printf, 2, 3)))
static void missed(struct refs *r, const char *fmt, ...)
{
	if (r->nmissed++ == 0) {
		va_list ap;
		va_start(ap, fmt);
		(void)vsnprintf(r->gap, sizeof(r->gap), fmt, ap);
		va_end(ap);
	}
}

/* A hex object id of SHA-1 or SHA-256 length at the start of s (n bytes),
 * into id.  1 if there is one. */
static int take_id(const char *s, size_t n, char id[72])
{
	size_t len = 0;
	while (len < n && len < 64 && isxdigit((unsigned char)s[len]))
		len++;
	if ((len != 40 && len != 64) || (len < n && !isspace((unsigned char)s[len])))
		return 0;
	memcpy(id, s, len);
	id[len] = '\0';
	return 1;
}

/* Append (duplicates are settled by sort_refs). */
static int put(struct refs *r, const char *name, size_t nlen, const char id[72], int loose)
{
	if (r->n >= GITREFS_MAX) {
		missed(r, "more than %d refs", GITREFS_MAX);
		return 0;
	}
	if (grow_reserve(&r->v, &r->cap, r->n + 1, sizeof(*r->v)) < 0)
		return -ENOMEM;
	struct gitrefs_ref *f = &r->v[r->n];
	if (!(f->name = strndup(name, nlen)))
		return -ENOMEM;
	memcpy(f->id, id, 72);
	f->loose = loose;
	r->n++;
	return 0;
}

static int by_name(const void *a, const void *b)
{
	const struct gitrefs_ref *x = a, *y = b;
	int c = strcmp(x->name, y->name);
	return c ? c : x->loose - y->loose;
}

/* Sorted by name, one entry per name: a loose ref wins over packed-refs. */
static void sort_refs(struct refs *r)
{
	if (r->n == 0)
		return;
	qsort(r->v, r->n, sizeof(r->v[0]), by_name);
	size_t out = 0;
	for (size_t i = 0; i < r->n; i++) {
		if (i + 1 < r->n && strcmp(r->v[i].name, r->v[i + 1].name) == 0) {
			free(r->v[i].name); /* the later one (loose) is kept */
			continue;
		}
		r->v[out++] = r->v[i];
	}
	r->n = out;
}

/* The regular file git reads at dirfd/name: the file, or what a symbolic
 * link leads to (git follows it, unless links_are_symrefs and its target
 * is "refs/...", a symbolic ref whose target is listed itself).  A link is
 * resolved to an O_PATH descriptor first and opened through it only if
 * that is a regular file: opening a device or a FIFO the command pointed
 * it at could act on it.  1 with *fd (O_RDONLY) and *size; 0: nothing to
 * read; -1 when git would read something cordon cannot (r told why). */
static int open_ref_file(int dirfd, const char *name, const char *shown, int links_are_symrefs,
			 struct refs *r, int *fd, size_t *size)
{
	struct stat st;
	*fd = -1;
	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
		if (errno == ENOENT)
			return 0;
		missed(r, "%s: %s", shown, strerror(errno));
		return -1;
	}
	if (S_ISLNK(st.st_mode) && links_are_symrefs) {
		char target[8];
		ssize_t t = readlinkat(dirfd, name, target, sizeof(target));
		if (t >= 5 && memcmp(target, "refs/", 5) == 0)
			return 0;
	}
	if (!S_ISLNK(st.st_mode) && !S_ISREG(st.st_mode)) {
		missed(r, "%s: not a regular file", shown);
		return -1;
	}
	AUTO_FD p = openat(dirfd, name, O_PATH | O_CLOEXEC);
	if (p < 0 || fstat(p, &st) < 0 || !S_ISREG(st.st_mode)) {
		missed(r, "%s: %s", shown, p < 0 ? strerror(errno)
			: "a symbolic link that does not lead to a regular file");
		return -1;
	}
	char via[40];
	(void)snprintf(via, sizeof(via), "/proc/self/fd/%d", p);
	*fd = open(via, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (*fd < 0) {
		missed(r, "%s: cannot read it (%s)", shown, strerror(errno));
		return -1;
	}
	*size = (size_t)st.st_size;
	return 1;
}

/* A loose ref (or HEAD) into buf: the bytes read, 0 for none, -1. */
static ssize_t read_ref_file(int dirfd, const char *name, const char *shown, char *buf,
			     size_t len, struct refs *r)
{
	int fd;
	size_t size;
	int rc = open_ref_file(dirfd, name, shown, 1, r, &fd, &size);
	if (rc <= 0)
		return rc;
	ssize_t n = sys_read_full(fd, buf, len);
	sys_close(&fd);
	if (n < 0)
		missed(r, "%s: cannot read it", shown);
	return n;
}

static int read_packed(int gitfd, struct refs *r)
{
	int fd;
	size_t size;
	if (open_ref_file(gitfd, "packed-refs", "packed-refs", 0, r, &fd, &size) <= 0)
		return 0;
	if (size > GITREFS_PACKED_MAX) {
		sys_close(&fd);
		missed(r, "packed-refs: larger than %u MiB", GITREFS_PACKED_MAX >> 20);
		return 0;
	}
	char *buf = malloc(size + 1);
	if (!buf) {
		sys_close(&fd);
		return -ENOMEM;
	}
	ssize_t n = sys_read_full(fd, buf, size);
	sys_close(&fd);
	int rc = 0;
	if (n < 0)
		missed(r, "packed-refs: cannot read it");
	for (ssize_t i = 0; rc == 0 && i < n;) {
		ssize_t end = i;
		char id[72];
		while (end < n && buf[end] != '\n')
			end++;
		if (buf[i] != '#' && buf[i] != '^' && take_id(buf + i, (size_t)(end - i), id)) {
			const char *name = buf + i + strlen(id) + 1;
			if (name < buf + end)
				rc = put(r, name, (size_t)(buf + end - name), id, 0);
		}
		i = end + 1;
	}
	free(buf);
	return rc;
}

static int read_loose(int dirfd, char *prefix, size_t plen, int depth, struct refs *r)
{
	if (depth > GITREFS_DEPTH) {
		missed(r, "%s: more than %d directories deep", prefix, GITREFS_DEPTH);
		return 0;
	}
	int rd = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d = rd >= 0 ? fdopendir(rd) : NULL;
	if (!d) {
		missed(r, "%s: cannot open it (%s)", prefix, strerror(errno));
		sys_close(&rd);
		return 0;
	}
	struct dirent *de;
	int rc = 0;
	while (rc == 0 && (de = readdir(d))) {
		size_t l = strlen(de->d_name);
		/* git's names: no component starting with a dot, no .lock */
		if (de->d_name[0] == '.' || (l > 5 && strcmp(de->d_name + l - 5, ".lock") == 0))
			continue;
		if (plen + l + 2 > PATH_MAX) {
			missed(r, "a ref name longer than %d bytes", PATH_MAX);
			continue;
		}
		memcpy(prefix + plen, de->d_name, l + 1);
		struct stat st;
		if (fstatat(dirfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
			if (errno != ENOENT)
				missed(r, "%s: %s", prefix, strerror(errno));
			continue;
		}
		if (S_ISDIR(st.st_mode)) {
			AUTO_FD sub = openat(dirfd, de->d_name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			prefix[plen + l] = '/';
			prefix[plen + l + 1] = '\0';
			if (sub >= 0)
				rc = read_loose(sub, prefix, plen + l + 1, depth + 1, r);
			else
				missed(r, "%s: cannot open it (%s)", prefix, strerror(errno));
			continue;
		}
		char buf[128], id[72];
		ssize_t n = read_ref_file(dirfd, de->d_name, prefix, buf, sizeof(buf), r);
		if (n > 0 && take_id(buf, (size_t)n, id))
			rc = put(r, prefix, plen + l, id, 1);
	}
	(void)closedir(d);
	return rc;
}

/* The refs of the git dir gitfd, sorted.  0 (r->gap says what was not
 * read), or -ENOMEM. */
static int snapshot(int gitfd, struct refs *r)
{
	char buf[128], id[72];
	int rc = read_packed(gitfd, r);
	struct stat st;
	if (rc < 0)
		return rc;
	AUTO_FD refs = openat(gitfd, "refs", O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (refs >= 0) {
		char prefix[PATH_MAX] = "refs/";
		rc = read_loose(refs, prefix, 5, 0, r);
	}
	else if (fstatat(gitfd, "refs", &st, AT_SYMLINK_NOFOLLOW) == 0 || errno != ENOENT)
		missed(r, "refs: not a directory cordon can open");
	if (rc < 0)
		return rc;
	ssize_t n = read_ref_file(gitfd, "HEAD", "HEAD", buf, sizeof(buf), r);
	if (n > 0 && take_id(buf, (size_t)n, id) && (rc = put(r, "HEAD", 4, id, 1)) < 0)
		return rc;
	sort_refs(r);
	return 0;
}

static void refs_free(struct gitrefs_ref *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i].name);
	free(v);
}

int gitrefs_start(struct gitrefs *g, const struct gitmode *gm, const struct rpath *roots,
		  size_t nroots)
{
	for (size_t i = 0; gm && i < gm->ndirs; i++) {
		const struct gitmode_dir *d = &gm->dirs[i];
		struct stat st;
		/* a repository's git dir (.git, modules/X): its own refs/ */
		if (!d->is_gitdir || fstatat(d->fd, "refs", &st, AT_SYMLINK_NOFOLLOW) < 0)
			continue;
		if (grow_reserve(&g->v, &g->cap, g->n + 1, sizeof(*g->v)) < 0)
			return -ENOMEM;
		struct gitrefs_repo *r = &g->v[g->n];
		*r = (struct gitrefs_repo){ strdup(d->path), fcntl(d->fd, F_DUPFD_CLOEXEC, 3), NULL, 0,
					    "" };
		if (!r->path)
			return -ENOMEM;
		g->n++;
		struct refs s = { NULL, 0, 0, "", 0 };
		int rc = r->fd < 0 ? -errno : snapshot(r->fd, &s);
		if (rc < 0) {
			refs_free(s.v, s.n);
			(void)snprintf(r->gap, sizeof(r->gap), "not read before the run: %s",
				       strerror(-rc));
			sys_close(&r->fd);
			continue;
		}
		r->before = s.v;
		r->nbefore = s.n;
		if (s.nmissed)
			(void)snprintf(r->gap, sizeof(r->gap), "before the run, %zu not read: %s",
				       s.nmissed, s.gap);
	}
	if (g->n)
		gitcount_open(&g->count, roots, nroots);
	return 0;
}

static void say(FILE *out, size_t *nsaid, const char *repo, const char *name, const char *old,
		const char *new, long commits)
{
	fputs((*nsaid)++ ? ", " : "cordon: refs changed (--git commit): ", out);
	termsafe_fputs(out, repo);
	fputc(' ', out);
	termsafe_fputs(out, name);
	fprintf(out, " %.12s..%.12s", old ? old : "(new)", new ? new : "(deleted)");
	if (commits >= 0)
		fprintf(out, " (+%ld commit%s)", commits, commits == 1 ? "" : "s");
}

/* A repository whose refs were not all read: its own line, after the refs
 * line, so that the list is never taken for complete. */
static void say_gap(FILE *out, const char *repo, const char *gap)
{
	fputs("cordon: the refs changed in ", out);
	termsafe_fputs(out, repo);
	fputs(" may be more than listed: cordon could not read them all (", out);
	termsafe_fputs(out, gap);
	fputs("); check with git log --all there\n", out);
}

/* What a ref that now points at new_id gained: see gitrefs.h. */
static long count_new(struct gitrefs *g, const struct gitrefs_repo *r, const char *new_id,
		      size_t *ncounted, long long deadline_ms)
{
	if (*ncounted >= GITREFS_COUNT_MAX)
		return -1;
	(*ncounted)++;
	const char **old = malloc((r->nbefore + 1) * sizeof(*old));
	if (!old)
		return -1;
	for (size_t i = 0; i < r->nbefore; i++)
		old[i] = r->before[i].id;
	long n = gitcount_new(&g->count, r->fd, new_id, old, r->nbefore, deadline_ms);
	free(old);
	return n;
}

/* One ref whose value is not what it was (old or new NULL: created,
 * deleted). */
static void changed(struct gitrefs *g, struct gitrefs_repo *r, struct findings *found,
		    const char *name, const char *old, const char *new, size_t *nsaid,
		    size_t *ncounted, long long deadline)
{
	long commits = new ? count_new(g, r, new, ncounted, deadline) : -1;
	(*nsaid)++;
	struct finding f = { .kind = FINDING_GIT_REF, .path = r->path, .name = (char *)name,
			     .commits = commits };
	(void)snprintf(f.old_id, sizeof(f.old_id), "%s", old ? old : "");
	(void)snprintf(f.new_id, sizeof(f.new_id), "%s", new ? new : "");
	findings_add(found, &f);
}

/* Both lists sorted by name: one merge. */
static void compare(struct gitrefs *g, struct gitrefs_repo *r, const struct refs *now,
		    struct findings *found, size_t *nsaid, size_t *ncounted, long long deadline)
{
	size_t i = 0, j = 0;
	while (i < r->nbefore || j < now->n) {
		int c = i == r->nbefore ? 1 : j == now->n ? -1
			: strcmp(r->before[i].name, now->v[j].name);
		if (c < 0) {
			changed(g, r, found, r->before[i].name, r->before[i].id, NULL, nsaid, ncounted,
				deadline);
			i++;
		} else if (c > 0) {
			changed(g, r, found, now->v[j].name, NULL, now->v[j].id, nsaid, ncounted,
				deadline);
			j++;
		} else {
			if (strcmp(r->before[i].id, now->v[j].id) != 0)
				changed(g, r, found, now->v[j].name, r->before[i].id, now->v[j].id,
					nsaid, ncounted, deadline);
			i++;
			j++;
		}
	}
}

/* The refs line, then a line per repository not read whole, from the
 * findings gitrefs_settle added (found->v[from..]). */
struct gitrefs_said {
	const struct findings *found;
	size_t from;
};

static void say_all(FILE *out, const void *arg)
{
	const struct gitrefs_said *s = arg;
	size_t nsaid = 0;
	for (size_t i = s->from; i < s->found->n; i++) {
		const struct finding *f = &s->found->v[i];
		if (f->kind == FINDING_GIT_REF)
			say(out, &nsaid, f->path, f->name, f->old_id[0] ? f->old_id : NULL,
			    f->new_id[0] ? f->new_id : NULL, f->commits);
	}
	if (nsaid)
		fputc('\n', out);
	for (size_t i = s->from; i < s->found->n; i++)
		if (s->found->v[i].kind == FINDING_GIT_REFS_GAP)
			say_gap(out, s->found->v[i].path, s->found->v[i].detail);
}

static void end_refs(struct gitrefs *g, struct findings *found);

size_t gitrefs_settle(struct gitrefs *g, struct findings *found)
{
	struct gitrefs_said s = { found, found->n };
	end_refs(g, found);
	size_t n = 0;
	for (size_t i = s.from; i < found->n; i++)
		n += found->v[i].kind == FINDING_GIT_REF;
	if (s.from == found->n)
		return n;
	char *text = findings_compose(say_all, &s);
	if (!text) {
		say_all(stderr, &s);
		return n;
	}
	struct finding f = { .kind = FINDING_NOTE, .say = text };
	findings_add(found, &f);
	free(text);
	return n;
}

static void end_refs(struct gitrefs *g, struct findings *found)
{
	size_t nsaid = 0, ncounted = 0, ngaps = 0;
	long long deadline = sys_now_ms() + GITREFS_COUNT_MS;
	for (size_t i = 0; i < g->n; i++) {
		struct gitrefs_repo *r = &g->v[i];
		struct refs now = { NULL, 0, 0, "", 0 };
		int rc = r->fd < 0 ? 0 : snapshot(r->fd, &now);
		if (rc < 0 && !r->gap[0])
			(void)snprintf(r->gap, sizeof(r->gap), "not read after the run: %s",
				       strerror(-rc));
		else if (now.nmissed && !r->gap[0])
			(void)snprintf(r->gap, sizeof(r->gap), "after the run, %zu not read: %s",
				       now.nmissed, now.gap);
		if (r->fd >= 0 && rc == 0)
			compare(g, r, &now, found, &nsaid, &ncounted, deadline);
		refs_free(now.v, now.n);
		ngaps += r->gap[0] != '\0';
	}
	for (size_t i = 0; ngaps && i < g->n; i++)
		if (g->v[i].gap[0]) {
			struct finding f = { .kind = FINDING_GIT_REFS_GAP, .path = g->v[i].path,
					     .detail = g->v[i].gap };
			findings_add(found, &f);
		}
}

void gitrefs_free(struct gitrefs *g)
{
	for (size_t i = 0; i < g->n; i++) {
		free(g->v[i].path);
		sys_close(&g->v[i].fd);
		refs_free(g->v[i].before, g->v[i].nbefore);
	}
	free(g->v);
	gitcount_close(&g->count);
	*g = (struct gitrefs)GITREFS_INIT;
}
