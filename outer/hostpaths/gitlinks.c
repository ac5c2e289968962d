/* gitlinks.c: see gitlinks.h.  Belongs here: the submodule entries of a
 * repository's index, what each checkout's .git was at the start, and
 * moving aside the ones the run made, replaced or reconfigured. */
#include "hostpaths/gitlinks.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "hostpaths/protect_quarantine.h"
#include "plan/gitaudit.h"
#include "plan/gitdir.h"
#include "plan/gitend.h"
#include "sys.h"
#include "grow.h"

/* An index of a million files is some 100 MiB. */
#define GITSTATE_MAX_INDEX (512u << 20)

/* The directory path (relative to rootfd) opened without following a link
 * at any step; -1 when it cannot be. */
static int open_under(int rootfd, const char *path)
{
	char buf[PATH_MAX];
	(void)snprintf(buf, sizeof(buf), "%s", path);
	int fd = fcntl(rootfd, F_DUPFD_CLOEXEC, 3);
	for (char *save = NULL, *c = strtok_r(buf, "/", &save); c && fd >= 0;
	     c = strtok_r(NULL, "/", &save)) {
		int next = strcmp(c, "..") == 0 ? -1
			   : openat(fd, c, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		sys_close(&fd);
		fd = next;
	}
	return fd;
}

static int changed(const struct timespec *since, const struct stat *st)
{
	return gitaudit_changed(&st->st_ctim, since);
}

static const struct gitstate_link *link_at(const struct gitstate_repo *r, const char *path)
{
	for (size_t i = 0; i < r->nlinks; i++)
		if (strcmp(r->links[i].path, path) == 0)
			return &r->links[i];
	return NULL;
}

/* 1 if PATH/.git under rootfd (a gitlink's checkout) was made or changed
 * during the run, was: what it was when the run started (NULL: not a
 * gitlink then, or not known).  A .git that is not the one of the start
 * (made, renamed into place, or its directory renamed into place: another
 * inode), a .git file written, or, for a directory (an embedded
 * repository), an entry git reads as configuration or code (the rule's
 * GITDIR_CODE paths, modules/ and worktrees/) or one level inside them (a
 * hook, info/attributes) made or changed in place.  Its data (objects,
 * refs, the index) may change: a commit inside the submodule is the work,
 * and the directory's own ctime moves with it. */
static int link_changed(const struct timespec *since, int rootfd, const char *path,
			const struct gitstate_link *was)
{
	AUTO_FD d = open_under(rootfd, path);
	struct stat st;
	if (d < 0 || fstatat(d, ".git", &st, AT_SYMLINK_NOFOLLOW) < 0)
		return 0;
	struct gitend_link_seen now = { 1, st.st_dev, st.st_ino, st.st_mode }, then;
	if (was)
		then = (struct gitend_link_seen){ was->existed, was->dev, was->ino, was->mode };
	switch (gitend_link_look(was ? &then : NULL, &now, changed(since, &st))) {
	case GITEND_LINK_MOVE:
		return 1;
	case GITEND_LINK_KEEP:
		return 0;
	case GITEND_LINK_INSIDE:
		break;
	}
	AUTO_FD git = openat(d, ".git", O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (git < 0)
		return 1; /* swapped since the lstat: the run's doing */
	for (size_t i = 0; i < gitdir_nrules; i++) {
		char rel[PATH_MAX];
		if (!gitend_link_code(&gitdir_rules[i], rel, sizeof(rel)))
			continue;
		if (fstatat(git, rel, &st, AT_SYMLINK_NOFOLLOW) < 0)
			continue;
		if (changed(since, &st))
			return 1;
		if (!S_ISDIR(st.st_mode))
			continue;
		int rd = openat(git, rel, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		DIR *dir = rd >= 0 ? fdopendir(rd) : NULL;
		if (!dir) {
			sys_close(&rd);
			return 1;
		}
		struct dirent *de;
		int hit = 0;
		while (!hit && (de = readdir(dir)))
			hit = strcmp(de->d_name, "..") != 0 &&
			      fstatat(dirfd(dir), de->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
			      changed(since, &st);
		(void)closedir(dir);
		if (hit)
			return 1;
	}
	return 0;
}

struct links {
	struct gitstate_link *v;
	size_t n, cap;
	int rootfd;                 /* >= 0: note what PATH/.git is now */
};

static int collect_link(void *ctx, const char *path, size_t len)
{
	struct links *l = ctx;
	if (grow_reserve(&l->v, &l->cap, l->n + 1, sizeof(*l->v)) < 0)
		return -ENOMEM;
	struct gitstate_link *k = &l->v[l->n];
	*k = (struct gitstate_link){ strndup(path, len), 0, 0, 0, 0 };
	if (!k->path)
		return -ENOMEM;
	l->n++;
	struct stat st;
	AUTO_FD d = l->rootfd >= 0 ? open_under(l->rootfd, k->path) : -1;
	if (d >= 0 && fstatat(d, ".git", &st, AT_SYMLINK_NOFOLLOW) == 0)
		*k = (struct gitstate_link){ k->path, 1, st.st_dev, st.st_ino, st.st_mode };
	return 0;
}

static void links_free(struct links *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i].path);
	free(l->v);
	l->v = NULL;
	l->n = l->cap = 0;
}

/* The gitlinks of the index file name in gitfd (SHA-1, else SHA-256 ids),
 * every entry when w->all.  0, or -errno (an index too large or unreadable
 * is -EFBIG / -EIO; none at all is 0). */
static int read_links(int gitfd, const char *name, struct gitdir_index_walk *w, struct links *l)
{
	AUTO_FD fd = openat(gitfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	struct stat st;
	if (fd < 0)
		return errno == ENOENT ? 0 : -EIO;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))
		return -EIO;
	if (st.st_size > (off_t)GITSTATE_MAX_INDEX)
		return -EFBIG;
	unsigned char *buf = malloc((size_t)st.st_size + 1);
	if (!buf)
		return -ENOMEM;
	ssize_t n = sys_read_full(fd, buf, (size_t)st.st_size);
	size_t had = l->n;
	struct gitdir_index_walk w0 = *w;
	int rc = n < 0 ? -EIO : gitdir_index_gitlinks(buf, (size_t)n, 20, w, collect_link, l);
	if (rc == -EINVAL) {
		while (l->n > had)
			free(l->v[--l->n].path);
		*w = w0;
		rc = gitdir_index_gitlinks(buf, (size_t)n, 32, w, collect_link, l);
	}
	free(buf);
	return rc == -EINVAL ? -EIO : rc;
}

/* The index, and each shared part of a split index (sharedindex.*: git
 * keeps a few).  The main index names the one it uses by its id, in an
 * extension; reading them all instead is a superset, and never depends on
 * that extension being read right.  An entry of the main index that
 * replaces one of the shared part has no name: when one such is a gitlink,
 * every path of the shared parts counts as one. */
static int read_all_links(int gitfd, struct links *l)
{
	struct gitdir_index_walk w = { 0, 0, 0 };
	int rc = read_links(gitfd, "index", &w, l);
	if (rc < 0)
		return rc;
	int rd = openat(gitfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d = rd >= 0 ? fdopendir(rd) : NULL;
	if (!d) {
		sys_close(&rd);
		return -EIO;
	}
	struct gitdir_index_walk sw = { w.stripped > 0, 0, 0 };
	struct dirent *de;
	while (rc == 0 && (de = readdir(d)))
		if (strncmp(de->d_name, "sharedindex.", 12) == 0)
			rc = read_links(gitfd, de->d_name, &sw, l);
	(void)closedir(d);
	return rc;
}

/* The gitlinks of r's index now, before the command starts, and what each
 * PATH/.git is.  An index that cannot be read leaves have_links 0: every
 * gitlink then counts as new at the end.  0 or -ENOMEM. */
int gitlinks_note(struct gitstate_repo *r)
{
	struct links l = { .rootfd = r->rootfd };
	int rc = read_all_links(r->gitfd, &l);
	if (rc == -ENOMEM) {
		links_free(&l);
		return rc;
	}
	r->have_links = rc == 0;
	r->links = l.v;
	r->nlinks = l.n;
	return 0;
}

/* The gitlinks at the start, for the guardian: a sealed memfd of records
 * (dev, ino, mode, existed, path length) each followed by its path. */
struct link_rec {
	uint64_t dev, ino;
	uint32_t mode, existed, len, zero;
};
#define LINKS_MAX_BYTES (64u << 20)

int gitlinks_memfd(const struct gitstate_repo *r)
{
	int fd = memfd_create("cordon-gitlinks", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (fd < 0)
		return -errno;
	for (size_t i = 0; i < r->nlinks; i++) {
		const struct gitstate_link *k = &r->links[i];
		struct link_rec rec = { (uint64_t)k->dev, (uint64_t)k->ino, (uint32_t)k->mode,
					(uint32_t)k->existed, (uint32_t)strlen(k->path), 0 };
		if (sys_write_all(fd, &rec, sizeof(rec)) < 0 ||
		    sys_write_all(fd, k->path, rec.len) < 0) {
			int err = errno ? errno : EIO;
			sys_close(&fd);
			return -err;
		}
	}
	/* Read by the guardian alone, from its start: nothing may change it. */
	if (fcntl(fd, F_ADD_SEALS, F_SEAL_WRITE | F_SEAL_GROW | F_SEAL_SHRINK | F_SEAL_SEAL) < 0 ||
	    lseek(fd, 0, SEEK_SET) < 0) {
		int err = errno;
		sys_close(&fd);
		return -err;
	}
	return fd;
}

int gitlinks_load(struct gitstate_repo *r, int fd)
{
	struct stat st;
	if (fstat(fd, &st) < 0 || st.st_size < 0 || (size_t)st.st_size > LINKS_MAX_BYTES)
		return -EINVAL;
	char *buf = malloc((size_t)st.st_size + 1);
	if (!buf)
		return -ENOMEM;
	ssize_t n = pread(fd, buf, (size_t)st.st_size, 0);
	struct links l = { .rootfd = -1 };
	size_t off = 0;
	int rc = n == (ssize_t)st.st_size ? 0 : -EIO;
	while (rc == 0 && off < (size_t)n) {
		struct link_rec rec;
		if ((size_t)n - off < sizeof(rec)) {
			rc = -EINVAL;
			break;
		}
		memcpy(&rec, buf + off, sizeof(rec));
		off += sizeof(rec);
		if (rec.zero || rec.len > (size_t)n - off || !gitdir_index_name_ok(buf + off, rec.len)) {
			rc = -EINVAL;
			break;
		}
		if ((rc = collect_link(&l, buf + off, rec.len)) == 0)
			l.v[l.n - 1] = (struct gitstate_link){ l.v[l.n - 1].path, rec.existed != 0,
							      (dev_t)rec.dev, (ino_t)rec.ino,
							      (mode_t)rec.mode };
		off += rec.len;
	}
	free(buf);
	if (rc < 0) {
		links_free(&l);
		return rc;
	}
	r->links = l.v;
	r->nlinks = l.n;
	r->have_links = 1;
	return 0;
}

/* Each gitlink of the index now whose checkout's .git the run made or
 * changed: moved aside, so that a host git status does not run git (and
 * that repository's config) there. */
size_t gitlinks_settle(const struct timespec *since, struct gitstate_repo *r,
		       gitstate_found_fn *found, void *ctx)
{
	struct links now = { .rootfd = -1 };
	size_t moved_n = 0;
	if (r->rootfd < 0)
		return 0;
	int rc = read_all_links(r->gitfd, &now);
	if (rc < 0)
		fprintf(stderr, "cordon: %s/.git/index cannot be checked for submodule entries "
			"(%s): before running git status there on the host, check that no "
			"submodule was added during the run (git ls-files -s | grep ^160000)\n",
			r->root, rc == -EFBIG ? "too large" : rc == -ENOMEM ? "out of memory"
							      : "unreadable");
	for (size_t i = 0; i < now.n; i++) {
		const struct gitstate_link *was = r->have_links ? link_at(r, now.v[i].path) : NULL;
		if (!link_changed(since, r->rootfd, now.v[i].path, was))
			continue;
		char what[PATH_MAX], moved[NAME_MAX + 1], where[PATH_MAX + NAME_MAX + 2];
		(void)snprintf(what, sizeof(what), "%s/%s/.git", r->root, now.v[i].path);
		AUTO_FD d = open_under(r->rootfd, now.v[i].path);
		int m = d >= 0 ? protect_quarantine_move(d, ".git", moved, sizeof(moved)) : -ENOENT;
		if (m == -ENOENT)
			continue;
		(void)snprintf(where, sizeof(where), "%s/%s/%s", r->root, now.v[i].path, moved);
		const char *why = "the index holds a submodule entry for it, and a host git status "
				  "would run git there, with that repository's config";
		if (m == 0)
			fprintf(stderr, "cordon: %s was made or changed during the run and %s: moved "
				"aside, not deleted, to %s (--git commit)\n", what, why, where);
		else
			fprintf(stderr, "cordon: %s was made or changed during the run and %s, and it "
				"could not be moved aside (%s): remove it before running git status "
				"on the host\n", what, why, strerror(-m));
		if (found)
			found(ctx, what, m == 0 ? where : NULL, why);
		moved_n++;
	}
	links_free(&now);
	return moved_n;
}

void gitlinks_free(struct gitstate_repo *r)
{
	struct links l = { .v = r->links, .n = r->nlinks, .rootfd = -1 };
	links_free(&l);
	r->links = NULL;
	r->nlinks = 0;
}
