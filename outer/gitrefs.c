/* gitrefs.c: see gitrefs.h. */
#include "gitrefs.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "sys.h"

struct refs {
	struct gitrefs_ref *v;
	size_t n;
};

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

static int put(struct refs *r, const char *name, size_t nlen, const char id[72])
{
	for (size_t i = 0; i < r->n; i++)
		if (strlen(r->v[i].name) == nlen && memcmp(r->v[i].name, name, nlen) == 0) {
			memcpy(r->v[i].id, id, 72); /* a loose ref wins over packed-refs */
			return 0;
		}
	if (r->n >= GITREFS_MAX)
		return -E2BIG;
	struct gitrefs_ref *v = realloc(r->v, (r->n + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	r->v = v;
	if (!(v[r->n].name = strndup(name, nlen)))
		return -ENOMEM;
	memcpy(v[r->n].id, id, 72);
	r->n++;
	return 0;
}

/* A small regular file at dirfd/name, not followed: into buf. */
static ssize_t slurp(int dirfd, const char *name, char *buf, size_t len)
{
	AUTO_FD fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))
		return -1;
	return sys_read_full(fd, buf, len);
}

static int read_packed(int gitfd, struct refs *r)
{
	static char buf[8 << 20];
	ssize_t n = slurp(gitfd, "packed-refs", buf, sizeof(buf));
	for (ssize_t i = 0; i < n;) {
		ssize_t end = i;
		char id[72];
		while (end < n && buf[end] != '\n')
			end++;
		if (buf[i] != '#' && buf[i] != '^' && take_id(buf + i, (size_t)(end - i), id)) {
			const char *name = buf + i + strlen(id) + 1;
			if (name < buf + end && put(r, name, (size_t)(buf + end - name), id) < 0)
				return -1;
		}
		i = end + 1;
	}
	return 0;
}

static int read_loose(int dirfd, char *prefix, size_t plen, int depth, struct refs *r)
{
	if (depth > 16)
		return 0;
	int rd = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d = rd >= 0 ? fdopendir(rd) : NULL;
	if (!d) {
		sys_close(&rd);
		return 0;
	}
	struct dirent *de;
	int rc = 0;
	while (rc == 0 && (de = readdir(d))) {
		size_t l = strlen(de->d_name);
		if (de->d_name[0] == '.' || plen + l + 2 > PATH_MAX ||
		    (l > 5 && strcmp(de->d_name + l - 5, ".lock") == 0))
			continue;
		memcpy(prefix + plen, de->d_name, l + 1);
		struct stat st;
		if (fstatat(dirfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
			continue;
		if (S_ISDIR(st.st_mode)) {
			AUTO_FD sub = openat(dirfd, de->d_name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			prefix[plen + l] = '/';
			prefix[plen + l + 1] = '\0';
			if (sub >= 0)
				rc = read_loose(sub, prefix, plen + l + 1, depth + 1, r);
			continue;
		}
		char buf[128], id[72];
		ssize_t n = slurp(dirfd, de->d_name, buf, sizeof(buf));
		if (n > 0 && take_id(buf, (size_t)n, id))
			rc = put(r, prefix, plen + l, id);
	}
	(void)closedir(d);
	return rc;
}

static int snapshot(int gitfd, struct refs *r)
{
	char prefix[PATH_MAX] = "refs/", buf[128], id[72];
	if (read_packed(gitfd, r) < 0)
		return -1;
	AUTO_FD refs = openat(gitfd, "refs", O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (refs >= 0 && read_loose(refs, prefix, 5, 0, r) < 0)
		return -1;
	ssize_t n = slurp(gitfd, "HEAD", buf, sizeof(buf));
	if (n > 0 && take_id(buf, (size_t)n, id) && put(r, "HEAD", 4, id) < 0)
		return -1;
	return 0;
}

static void refs_free(struct gitrefs_ref *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i].name);
	free(v);
}

int gitrefs_start(struct gitrefs *g, const struct protect_run *p, const struct rpath *roots,
		  size_t nroots)
{
	for (size_t i = 0; i < p->ngitdirs; i++) {
		const struct protect_gitdir *d = &p->gitdirs[i];
		struct stat st;
		/* a repository's git dir (.git, modules/X): its own refs/ */
		if (!d->is_gitdir || fstatat(d->fd, "refs", &st, AT_SYMLINK_NOFOLLOW) < 0)
			continue;
		struct gitrefs_repo *v = realloc(g->v, (g->n + 1) * sizeof(*v));
		if (!v)
			return -ENOMEM;
		g->v = v;
		struct gitrefs_repo *r = &v[g->n];
		*r = (struct gitrefs_repo){ strdup(d->path), fcntl(d->fd, F_DUPFD_CLOEXEC, 3), NULL, 0 };
		g->n++;
		struct refs s = { NULL, 0 };
		if (!r->path || r->fd < 0 || snapshot(r->fd, &s) < 0) {
			refs_free(s.v, s.n);
			sys_close(&r->fd); /* left out */
			continue;
		}
		r->before = s.v;
		r->nbefore = s.n;
	}
	if (g->n)
		gitcount_open(&g->count, roots, nroots);
	return 0;
}

static const char *find(const struct gitrefs_ref *v, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(v[i].name, name) == 0)
			return v[i].id;
	return NULL;
}

static void say(size_t *nsaid, const char *repo, const char *name, const char *old,
		const char *new, long commits)
{
	fprintf(stderr, "%s%s %s %.12s..%.12s", (*nsaid)++ ? ", " : "cordon: refs changed (--git commit): ",
		repo, name, old ? old : "(new)", new ? new : "(deleted)");
	if (commits >= 0)
		fprintf(stderr, " (+%ld commit%s)", commits, commits == 1 ? "" : "s");
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

size_t gitrefs_settle(struct gitrefs *g, struct report *rep)
{
	size_t nsaid = 0, ncounted = 0;
	long long deadline = sys_now_ms() + GITREFS_COUNT_MS;
	for (size_t i = 0; i < g->n; i++) {
		struct gitrefs_repo *r = &g->v[i];
		struct refs now = { NULL, 0 };
		if (r->fd < 0 || snapshot(r->fd, &now) < 0) {
			refs_free(now.v, now.n);
			continue;
		}
		for (size_t j = 0; j < now.n; j++) {
			const char *old = find(r->before, r->nbefore, now.v[j].name);
			if (old && strcmp(old, now.v[j].id) == 0)
				continue;
			long commits = count_new(g, r, now.v[j].id, &ncounted, deadline);
			say(&nsaid, r->path, now.v[j].name, old, now.v[j].id, commits);
			report_add_ref(rep, r->path, now.v[j].name, old, now.v[j].id, commits);
		}
		for (size_t j = 0; j < r->nbefore; j++)
			if (!find(now.v, now.n, r->before[j].name)) {
				say(&nsaid, r->path, r->before[j].name, r->before[j].id, NULL, -1);
				report_add_ref(rep, r->path, r->before[j].name, r->before[j].id, NULL, -1);
			}
		refs_free(now.v, now.n);
	}
	if (nsaid)
		fputc('\n', stderr);
	return nsaid;
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
