/* gitstate.c: see gitstate.h.  Belongs here: reading the state files after
 * the run and moving aside the ones that would run a command (the verdict
 * on their bytes is plan/gitdir.c's). */
#include "hostpaths/gitstate.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <stdint.h>
#include <sys/inotify.h>
#include <sys/mman.h>
#include <unistd.h>
#include "hostpaths/gitaudit.h"
#include "hostpaths/protect_quarantine.h"
#include "plan/gitaudit.h"
#include "path.h"
#include "plan/gitdir.h"
#include "sys.h"
#include "wire_guardian.h"

/* A todo list of a long rebase is a few hundred KiB at most; a larger one
 * cannot be judged in bounded memory and is moved aside. */
#define GITSTATE_MAX (4u << 20)
/* An index of a million files is some 100 MiB. */
#define GITSTATE_MAX_INDEX (512u << 20)

static int add_file(struct gitstate *g, const struct gitstate_spec *d, const struct gitdir_rule *r,
		    struct cordon_err *e)
{
	struct gitstate_file *v = realloc(g->v, (g->n + 1) * sizeof(*v));
	if (!v)
		return err_set(e, ENOMEM, "out of memory");
	g->v = v;
	struct gitstate_file *f = &v[g->n];
	*f = (struct gitstate_file){ .gitfd = -1, .rel = r->path };
	f->todo = strstr(r->path, "todo") != NULL;
	f->opts = strcmp(path_base(r->path), "opts") == 0;
	size_t len = strlen(d->path) + strlen(r->path) + 2;
	if (!(f->path = malloc(len)))
		return err_set(e, ENOMEM, "out of memory");
	(void)snprintf(f->path, len, "%s/%s", d->path, r->path);
	g->n++;
	if ((f->gitfd = fcntl(d->fd, F_DUPFD_CLOEXEC, 3)) < 0)
		return err_sys(e, errno, "cannot keep a descriptor of %s", d->path);
	return 0;
}

/* Watch the git dir d (g->v[first] holds a descriptor of it) for created
 * entries. */
static int watch_dir(struct gitstate *g, const char *path, size_t first,
		     struct cordon_err *e)
{
	/* The watch only names, at the end, a write git tried on a read-only
	 * part; what protects those parts are the mounts.  Without an inotify
	 * instance or watch to spare (the caller's budget, README "Many runs
	 * at once") the run goes on without that line, never refused for it. */
	if (g->no_hint)
		return 0;
	if (g->ifd < 0 && (g->ifd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC)) < 0) {
		g->no_hint = 1;
		return 0;
	}
	struct gitstate_dir *v = realloc(g->dirs, (g->ndirs + 1) * sizeof(*v));
	if (!v)
		return err_set(e, ENOMEM, "out of memory");
	g->dirs = v;
	const struct gitstate_file *f = &g->v[first];
	char link[64];
	(void)snprintf(link, sizeof(link), "/proc/self/fd/%d", f->gitfd);
	int wd = inotify_add_watch(g->ifd, link, IN_CREATE | IN_MOVED_TO | IN_ONLYDIR);
	if (wd < 0) {
		g->no_hint = 1;
		return 0;
	}
	if (!(v[g->ndirs].path = strdup(path)))
		return err_set(e, ENOMEM, "out of memory");
	v[g->ndirs++].wd = wd;
	return 0;
}

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

static int changed(const struct gitstate *g, const struct stat *st)
{
	return gitaudit_changed(&st->st_ctim, &g->since);
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
static int link_changed(const struct gitstate *g, int rootfd, const char *path,
			const struct gitstate_link *was)
{
	AUTO_FD d = open_under(rootfd, path);
	struct stat st;
	if (d < 0 || fstatat(d, ".git", &st, AT_SYMLINK_NOFOLLOW) < 0)
		return 0;
	if (!was || !was->existed || st.st_dev != was->dev || st.st_ino != was->ino ||
	    (st.st_mode & S_IFMT) != (was->mode & S_IFMT))
		return 1;
	if (!S_ISDIR(st.st_mode))
		return changed(g, &st);
	AUTO_FD git = openat(d, ".git", O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (git < 0)
		return 1; /* swapped since the lstat: the run's doing */
	for (size_t i = 0; i < gitdir_nrules; i++) {
		const struct gitdir_rule *r = &gitdir_rules[i];
		char rel[PATH_MAX];
		if (r->role != GITDIR_CODE && r->role != GITDIR_EACH_MODULE &&
		    r->role != GITDIR_EACH_WORKTREE)
			continue;
		(void)snprintf(rel, sizeof(rel), "%.*s", (int)strcspn(r->path, "*"), r->path);
		size_t l = strlen(rel);
		if (l && rel[l - 1] == '/')
			rel[l - 1] = '\0';
		if (fstatat(git, rel, &st, AT_SYMLINK_NOFOLLOW) < 0)
			continue;
		if (changed(g, &st))
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
			      changed(g, &st);
		(void)closedir(dir);
		if (hit)
			return 1;
	}
	return 0;
}

struct links {
	struct gitstate_link *v;
	size_t n;
	int rootfd;                 /* >= 0: note what PATH/.git is now */
};

static int collect_link(void *ctx, const char *path, size_t len)
{
	struct links *l = ctx;
	struct gitstate_link *v = realloc(l->v, (l->n + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	l->v = v;
	struct gitstate_link *k = &v[l->n];
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
	l->n = 0;
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
static int note_links(struct gitstate_repo *r)
{
	struct links l = { NULL, 0, r->rootfd };
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

static int links_memfd(const struct gitstate_repo *r)
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

int gitstate_load_links(struct gitstate *g, int fd)
{
	struct gitstate_repo *r = g->nrepos ? &g->repos[g->nrepos - 1] : NULL;
	struct stat st;
	if (!r || fstat(fd, &st) < 0 || st.st_size < 0 || (size_t)st.st_size > LINKS_MAX_BYTES)
		return -EINVAL;
	char *buf = malloc((size_t)st.st_size + 1);
	if (!buf)
		return -ENOMEM;
	ssize_t n = pread(fd, buf, (size_t)st.st_size, 0);
	struct links l = { NULL, 0, -1 };
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

/* A root's own .git, or a linked worktree's git dir outside the roots
 * (its checkout: the root): its index, at the end. */
static int add_repo(struct gitstate *g, const struct gitstate_spec *d, struct cordon_err *e)
{
	struct gitstate_repo *v = realloc(g->repos, (g->nrepos + 1) * sizeof(*v));
	if (!v)
		return err_set(e, ENOMEM, "out of memory");
	g->repos = v;
	struct gitstate_repo *r = &v[g->nrepos++];
	*r = (struct gitstate_repo){ .gitfd = fcntl(d->fd, F_DUPFD_CLOEXEC, 3), .rootfd = -1 };
	r->root = d->checkout ? strdup(d->checkout)
			      : strndup(d->path, (size_t)(path_base(d->path) - d->path - 1));
	if (!r->root || r->gitfd < 0)
		return err_set(e, ENOMEM, "cannot keep a descriptor of %s", d->path);
	r->rootfd = d->checkout ? open(d->checkout, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
				: openat(r->gitfd, "..", O_PATH | O_DIRECTORY | O_CLOEXEC);
	struct stat st;
	/* In the guardian the root is opened by path long after: it must
	 * still be the directory cordon named. */
	if (r->rootfd >= 0 && d->checkout && d->root_ino &&
	    (fstat(r->rootfd, &st) < 0 || st.st_dev != d->root_dev || st.st_ino != d->root_ino))
		sys_close(&r->rootfd);
	if (r->rootfd < 0)
		return err_sys(e, errno ? errno : ESTALE, "cannot open the directory of %s", d->path);
	return 0;
}

static int add_top(struct gitstate *g, const struct gitstate_spec *d, struct cordon_err *e)
{
	struct gitstate_top *v = realloc(g->tops, (g->ntops + 1) * sizeof(*v));
	if (!v)
		return err_set(e, ENOMEM, "out of memory");
	g->tops = v;
	struct gitstate_top *t = &v[g->ntops++];
	*t = (struct gitstate_top){ fcntl(d->fd, F_DUPFD_CLOEXEC, 3), strdup(d->path) };
	if (t->fd < 0 || !t->path)
		return err_set(e, ENOMEM, "cannot keep a descriptor of %s", d->path);
	return 0;
}

int gitstate_add(struct gitstate *g, const struct gitstate_spec *s, struct cordon_err *e)
{
	int rc;
	if ((s->flags & GITSTATE_TOP) && (rc = add_top(g, s, e)) < 0)
		return rc;
	if ((s->flags & GITSTATE_REPO) && (rc = add_repo(g, s, e)) < 0)
		return rc;
	for (size_t j = 0; j < gitdir_nrules; j++)
		if (gitdir_rules[j].role == GITDIR_STATE && (rc = add_file(g, s, &gitdir_rules[j], e)) < 0)
			return rc;
	return 0;
}

/* d is not inside another git dir of p: the walk of that one would cover it. */
static int is_top(const struct protect_run *p, const struct protect_gitdir *d)
{
	for (size_t j = 0; j < p->ngitdirs; j++) {
		const struct protect_gitdir *o = &p->gitdirs[j];
		size_t l = strlen(o->path);
		if (o != d && o->is_gitdir && strncmp(d->path, o->path, l) == 0 && d->path[l] == '/')
			return 0;
	}
	return 1;
}

static int keep_spec(struct gitstate *g, const struct gitstate_spec *s, struct cordon_err *e)
{
	struct gitstate_spec *v = realloc(g->specs, (g->nspecs + 1) * sizeof(*v));
	if (!v)
		return err_set(e, ENOMEM, "out of memory");
	g->specs = v;
	v[g->nspecs++] = *s;
	return 0;
}

/* 1 if the filesystem of the git dir fd looks like one that keeps whole
 * seconds: the dir's ctime and its HEAD's both on a second (by chance
 * about once in 10^18 elsewhere). */
static int whole_seconds(int fd)
{
	struct stat a, b;
	return fstat(fd, &a) == 0 && fstatat(fd, "HEAD", &b, AT_SYMLINK_NOFOLLOW) == 0 &&
	       a.st_ctim.tv_nsec == 0 && b.st_ctim.tv_nsec == 0;
}

int gitstate_start(struct gitstate *g, const struct protect_run *p, struct cordon_err *e)
{
	struct timespec now;
	/* The clock the kernel stamps ctimes with; before the command runs. */
	if (clock_gettime(CLOCK_REALTIME_COARSE, &now) < 0)
		return err_sys(e, errno, "cannot read the clock");
	int coarse = 0;
	for (size_t i = 0; i < p->ngitdirs; i++)
		coarse |= p->gitdirs[i].is_gitdir && whole_seconds(p->gitdirs[i].fd);
	g->since = gitaudit_since(&now, coarse);
	for (size_t i = 0; i < p->ngitdirs; i++) {
		const struct protect_gitdir *d = &p->gitdirs[i];
		if (!d->is_gitdir)
			continue;
		struct stat st = { 0 };
		struct gitstate_spec s = { d->fd, d->path, d->checkout, 0, 0, 0 };
		if (is_top(p, d))
			s.flags |= GITSTATE_TOP;
		if (strcmp(path_base(d->path), ".git") == 0 || d->checkout)
			s.flags |= GITSTATE_REPO;
		if (d->checkout && stat(d->checkout, &st) == 0) {
			s.root_dev = st.st_dev;
			s.root_ino = st.st_ino;
		}
		size_t first = g->n, nrepos = g->nrepos;
		int rc;
		if ((rc = gitstate_add(g, &s, e)) < 0 || (rc = keep_spec(g, &s, e)) < 0 ||
		    (rc = watch_dir(g, d->path, first, e)) < 0)
			return rc;
		if (g->nrepos > nrepos && (rc = note_links(&g->repos[nrepos])) < 0)
			return err_set(e, -rc, "out of memory");
	}
	return 0;
}

int gitstate_tell(const struct gitstate *g, struct guardian *gd, struct cordon_err *e)
{
	/* Fail closed: a git dir the guardian would not redo is one whose
	 * planted exec line survives a kill of cordon. */
	if (g->nspecs > GWIRE_GITDIR_MAX)
		return err_set(e, E2BIG, "--git commit: %zu git directories, more than the %d "
			       "cordon's guardian checks if cordon is killed; run with --git read-only",
			       g->nspecs, GWIRE_GITDIR_MAX);
	size_t repo = 0;
	for (size_t i = 0; i < g->nspecs; i++) {
		const struct gitstate_spec *s = &g->specs[i];
		unsigned flags = ((s->flags & GITSTATE_TOP) ? GWIRE_GITDIR_TOP : 0) |
				 ((s->flags & GITSTATE_REPO) ? GWIRE_GITDIR_REPO : 0);
		int rc = guardian_watch_gitdir(gd, s->fd, s->path, s->checkout, flags, s->root_dev,
					       s->root_ino, &g->since, e);
		if (rc < 0)
			return rc;
		if (!(s->flags & GITSTATE_REPO) || !g->repos[repo++].have_links)
			continue;
		int mfd = links_memfd(&g->repos[repo - 1]);
		if (mfd < 0)
			return err_sys(e, -mfd, "cannot hand the submodule entries of %s to the "
				       "guardian", s->path);
		rc = guardian_watch_gitlinks(gd, mfd, e);
		sys_close(&mfd);
		if (rc < 0)
			return rc;
	}
	return 0;
}

struct config_writes {
	const struct gitstate *g;
	unsigned char said[64];
};

static void say_config_write(void *ctx, const struct inotify_event *ev)
{
	struct config_writes *c = ctx;
	const struct gitstate *g = c->g;
	if (ev->len == 0 || (strcmp(ev->name, "config.lock") != 0 &&
			     strcmp(ev->name, "config.worktree.lock") != 0))
		return;
	for (size_t d = 0; d < g->ndirs; d++) {
		int bit = strcmp(ev->name, "config.lock") == 0 ? 1 : 2;
		if (g->dirs[d].wd != ev->wd || (d < sizeof(c->said) && (c->said[d] & bit)))
			continue;
		if (d < sizeof(c->said))
			c->said[d] |= (unsigned char)bit;
		fprintf(stderr, "cordon: git tried to write %s/%.*s, which --git commit "
			"keeps read-only (git reads programs to run from it); commands "
			"that change git's configuration (git config, git remote add, "
			"git branch -u, git submodule init) fail inside: run them "
			"outside cordon\n", g->dirs[d].path,
			(int)(strlen(ev->name) - 5), ev->name);
	}
}

/* The lock files git made during the run beside a read-only config. */
static void say_config_writes(struct gitstate *g)
{
	struct config_writes c = { g, { 0 } };
	sys_inotify_drain(g->ifd, say_config_write, &c);
}

/* Why f's current content must go, or NULL.  fd: it, opened. */
static const char *verdict(const struct gitstate_file *f, int fd, const struct stat *st)
{
	static char buf[GITSTATE_MAX];
	if (!S_ISREG(st->st_mode))
		return "it is not a regular file";
	if (st->st_size < 0 || (size_t)st->st_size >= sizeof(buf))
		return "it is too large to check";
	ssize_t n = sys_read_full(fd, buf, sizeof(buf));
	if (n < 0)
		return "it cannot be read";
	if ((size_t)n >= sizeof(buf))
		return "it is too large to check";
	if (f->todo)
		return gitdir_todo_runs(buf, (size_t)n)
			? "it holds an exec line, which a later --continue on the host would run "
			  "outside the sandbox" : NULL;
	return gitdir_strategy_runs(buf, (size_t)n, f->opts)
		? "it names a merge strategy that is not built in (git would run git-merge-NAME)"
		: NULL;
}
static size_t settle_one(const struct gitstate *g, struct gitstate_file *f,
			 gitstate_found_fn *found, void *ctx)
{
	char dir[PATH_MAX], moved[NAME_MAX + 1], where[PATH_MAX + NAME_MAX + 2];
	const char *base = path_base(f->rel), *why = NULL;
	struct stat st;
	(void)snprintf(dir, sizeof(dir), "%.*s", (int)(base - f->rel - 1), f->rel);
	AUTO_FD dfd = openat(f->gitfd, dir, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	int movefd = dfd, r;
	const char *victim = base;
	if (dfd < 0) {
		/* rebase-merge turned into a link or a file: git would follow
		 * a link to a todo list elsewhere. */
		if (fstatat(f->gitfd, dir, &st, AT_SYMLINK_NOFOLLOW) < 0 || S_ISDIR(st.st_mode) ||
		    !changed(g, &st))
			return 0;
		movefd = f->gitfd;
		victim = dir;
		why = "it is not a directory";
	} else {
		if (fstatat(dfd, base, &st, AT_SYMLINK_NOFOLLOW) < 0)
			return 0;
		if (!changed(g, &st))
			return 0; /* the user's own, from before the run */
		AUTO_FD fd = openat(dfd, base, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
		if (fd < 0 && errno == ELOOP)
			why = "it is a symbolic link";
		else if (fd < 0 || fstat(fd, &st) < 0)
			why = "it cannot be read";
		else
			why = verdict(f, fd, &st);
		if (!why)
			return 0;
	}
	/* f->path is GITDIR/dir/base: the victim's path, and where it went */
	char what[PATH_MAX];
	int gitlen = (int)(strlen(f->path) - strlen(f->rel) - 1);
	(void)snprintf(what, sizeof(what), "%.*s/%s", gitlen, f->path, victim == dir ? dir : f->rel);
	r = protect_quarantine_move(movefd, victim, moved, sizeof(moved));
	if (r == -ENOENT)
		return 0; /* moved already (the guardian redoing cordon's end) */
	(void)snprintf(where, sizeof(where), "%.*s/%s", (int)(path_base(what) - what - 1), what, moved);
	if (r == 0)
		fprintf(stderr, "cordon: %s was written during the run and %s: moved aside, not "
			"deleted, to %s (--git commit)\n", what, why, where);
	else
		fprintf(stderr, "cordon: %s was written during the run and %s, and it could not be "
			"moved aside (%s): remove it before running git there on the host\n",
			what, why, strerror(-r));
	if (found)
		found(ctx, what, r == 0 ? where : NULL, why);
	return 1;
}

/* Each gitlink of the index now whose checkout's .git the run made or
 * changed: moved aside, so that a host git status does not run git (and
 * that repository's config) there. */
static size_t settle_links(const struct gitstate *g, struct gitstate_repo *r,
			   gitstate_found_fn *found, void *ctx)
{
	struct links now = { NULL, 0, -1 };
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
		if (!link_changed(g, r->rootfd, now.v[i].path, was))
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

size_t gitstate_settle(struct gitstate *g, gitstate_found_fn *found, void *ctx)
{
	size_t n = 0;
	/* First: what follows reads the git dirs, and must not open a link
	 * or a FIFO the command left there. */
	for (size_t i = 0; i < g->ntops; i++)
		n += gitaudit_walk(g->tops[i].fd, g->tops[i].path, &g->since, geteuid(), found, ctx);
	for (size_t i = 0; i < g->n; i++)
		n += settle_one(g, &g->v[i], found, ctx);
	for (size_t i = 0; i < g->nrepos; i++)
		n += settle_links(g, &g->repos[i], found, ctx);
	return n;
}

void gitstate_say_config(struct gitstate *g)
{
	if (g->ifd >= 0)
		say_config_writes(g);
}

void gitstate_free(struct gitstate *g)
{
	for (size_t i = 0; i < g->n; i++) {
		sys_close(&g->v[i].gitfd);
		free(g->v[i].path);
	}
	free(g->v);
	for (size_t i = 0; i < g->ndirs; i++)
		free(g->dirs[i].path);
	for (size_t i = 0; i < g->nrepos; i++) {
		struct links l = { g->repos[i].links, g->repos[i].nlinks, -1 };
		links_free(&l);
		sys_close(&g->repos[i].gitfd);
		sys_close(&g->repos[i].rootfd);
		free(g->repos[i].root);
	}
	for (size_t i = 0; i < g->ntops; i++) {
		sys_close(&g->tops[i].fd);
		free(g->tops[i].path);
	}
	free(g->tops);
	free(g->specs);
	free(g->repos);
	free(g->dirs);
	sys_close(&g->ifd);
	*g = (struct gitstate)GITSTATE_INIT;
}
