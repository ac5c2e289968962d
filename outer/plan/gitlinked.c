/* gitlinked.c: see gitlinked.h.  Belongs here: reading what a linked
 * worktree's .git file, its git dir and its common dir say (bounded, never
 * following a link) and keeping C for protect; the verdict is gitdir.c's
 * (gitdir_linked_refusal). */
#include "plan/gitlinked.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "path.h"
#include "plan/gitdir.h"
#include "plan/gitmeta.h"
#include "sys.h"
#include "grow.h"

/* What the look at each entry found: a link, another owner. */
struct look {
	uid_t uid;
	int link, foreign;
};

/* lstat name in dirfd ("." the directory itself), noting a link or another
 * owner.  1 if it exists (*is_dir set when is_dir is given), else 0. */
static int seen(struct look *l, int dirfd, const char *name, int *is_dir)
{
	struct stat st;
	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return 0;
	l->link |= S_ISLNK(st.st_mode);
	l->foreign |= st.st_uid != l->uid;
	if (is_dir)
		*is_dir = S_ISDIR(st.st_mode);
	return 1;
}

/* name in dirfd (gitmeta_read_small), trailing blanks dropped; a file
 * over GITMETA_MAX_FILE is refused, never read in part: an include past
 * the part read would go unseen.  buf: GITMETA_MAX_FILE + 2 bytes. */
static int slurp(int dirfd, const char *name, char *buf, size_t *n)
{
	int rc = gitmeta_read_small(dirfd, name, buf, GITMETA_MAX_FILE + 2, n);
	if (rc < 0)
		return rc;
	if (*n > GITMETA_MAX_FILE)
		return -EFBIG;
	while (*n > 0 && isspace((unsigned char)buf[*n - 1]))
		buf[--*n] = '\0';
	return 0;
}

/* A path git reads from one line of name in dirfd (commondir, gitdir),
 * joined to base and cleaned, into out; NULL when there is none. */
static const char *named(struct look *l, int dirfd, const char *name, const char *base, char *out)
{
	static char buf[GITMETA_MAX_FILE + 2];
	size_t n = 0;
	if (!seen(l, dirfd, name, NULL) || slurp(dirfd, name, buf, &n) < 0 || n == 0 ||
	    memchr(buf, '\n', n) || gitmeta_join(base, buf, NULL, out, PATH_MAX) < 0)
		return NULL;
	return out;
}

static int contains_nocase(const char *s, size_t n, const char *word)
{
	size_t w = strlen(word);
	for (size_t i = 0; i + w <= n; i++) {
		size_t k = 0;
		while (k < w && tolower((unsigned char)s[i + k]) == word[k])
			k++;
		if (k == w)
			return 1;
	}
	return 0;
}

/* 1 if the config name in dirfd makes git read a file cordon does not
 * follow: an include (include.path, includeIf: the word is enough, a
 * stricter reading never a looser one), or a core.hooksPath inside C. */
static int config_paths(struct look *l, int dirfd, const char *name, const char *root,
			const char *common)
{
	static char buf[GITMETA_MAX_FILE + 2];
	char hooks[PATH_MAX], found[PATH_MAX];
	size_t n = 0;
	if (!seen(l, dirfd, name, NULL))
		return 0;
	if (slurp(dirfd, name, buf, &n) < 0)
		return 1;
	if (contains_nocase(buf, n, "include"))
		return 1;
	int rc = gitmeta_parse_hookspath(buf, n, found, sizeof(found));
	if (rc < 0)
		return 1;
	return rc > 0 && (gitmeta_join(root, found, getenv("HOME"), hooks, sizeof(hooks)) < 0 ||
			  path_is_under(hooks, common));
}

static int under_root(const struct resolved *r, const char *path)
{
	for (size_t i = 0; i < r->nroots; i++)
		if (path_is_under(path, r->roots[i].path))
			return 1;
	return 0;
}

static int keep(struct resolved *r, size_t root, const char *c, const char *g, int *cfd,
		struct cordon_err *e)
{
	struct stat st;
	if (fstat(*cfd, &st) < 0)
		return err_sys(e, errno, "cannot inspect %s", c);
	if (grow_reserve(&r->linked, &r->caplinked, r->nlinked + 1, sizeof(*r->linked)) < 0)
		return err_set(e, ENOMEM, "out of memory");
	struct resolved_linked *k = &r->linked[r->nlinked];
	*k = (struct resolved_linked){ .common = { .path = strdup(c), .fd = *cfd, .dev = st.st_dev,
						   .ino = st.st_ino, .is_dir = 1 },
				       .root = root, .gitdir = strdup(g) };
	*cfd = -1;
	r->nlinked++;
	if (!k->common.path || !k->gitdir)
		return err_set(e, ENOMEM, "out of memory");
	return 0;
}

int gitlinked_find(struct resolved *r, size_t root, struct cordon_err *e)
{
	static char buf[GITMETA_MAX_FILE + 2];
	char found[PATH_MAX], g[PATH_MAX], c[PATH_MAX], back[PATH_MAX], gitfile[PATH_MAX],
		greal[PATH_MAX], creal[PATH_MAX];
	const struct rpath *rt = &r->roots[root];
	struct look l = { geteuid(), 0, 0 };
	struct gitdir_linked f = { .gitfile = gitfile, .gitdir = g };
	struct stat st;
	size_t n = 0;
	if (fstatat(rt->fd, ".git", &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISREG(st.st_mode))
		return 0;
	/* Not a gitfile git would take: resolve's add_git_extras has its say. */
	if (slurp(rt->fd, ".git", buf, &n) < 0 ||
	    gitmeta_parse_gitfile(buf, n, found, sizeof(found)) < 0 ||
	    gitmeta_join(rt->path, found, getenv("HOME"), g, sizeof(g)) < 0 ||
	    path_join(rt->path, ".git", gitfile, sizeof(gitfile)) < 0)
		return 0;
	/* Inside a root: bound read-only as a whole (add_git_extras). */
	if (under_root(r, g))
		return 0;
	l.foreign |= st.st_uid != l.uid;
	f.gitdir_real = realpath(g, greal);
	AUTO_FD gfd = f.gitdir_real ? open(g, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC) : -1;
	AUTO_FD cfd = -1;
	if (gfd >= 0)
		(void)seen(&l, gfd, ".", NULL);
	f.common = gfd >= 0 ? named(&l, gfd, "commondir", g, c) : NULL;
	f.back = gfd >= 0 ? named(&l, gfd, "gitdir", g, back) : NULL;
	if (f.common && under_root(r, c))
		return 0; /* a common dir in a root: the root's own rule */
	if (f.common && (f.common_real = realpath(c, creal)))
		cfd = open(c, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (cfd >= 0) {
		int od = 0, rd = 0, hd = 0;
		(void)seen(&l, cfd, ".", NULL);
		f.repo = seen(&l, cfd, "objects", &od) && od && seen(&l, cfd, "refs", &rd) && rd &&
			 seen(&l, cfd, "HEAD", &hd) && !hd;
		(void)seen(&l, cfd, "worktrees", NULL);
		f.config_paths = config_paths(&l, cfd, "config", rt->path, c) ||
				 config_paths(&l, cfd, "config.worktree", rt->path, c) ||
				 config_paths(&l, gfd, "config.worktree", rt->path, c);
	}
	for (size_t i = 0; f.common && i < r->nroots; i++)
		f.root_inside |= path_is_under(r->roots[i].path, c);
	f.link = l.link;
	f.foreign = l.foreign;
	const char *why = gitdir_linked_refusal(&f);
	if (why)
		return resolve_note(r, e, "--git commit: %s names the git dir %s outside every "
				    "writable root, which stays read-only (a commit there fails): "
				    "%s; commit from a run whose --write holds the main repository", gitfile, g, why);
	return keep(r, root, c, g, &cfd, e);
}
