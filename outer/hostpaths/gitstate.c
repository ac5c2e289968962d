/* gitstate.c: see gitstate.h.  Belongs here: the git dirs of the run and
 * `since` (cordon's at the start, or the guardian's from cordon's
 * records), the order of the end's three looks, and the state files (the
 * verdict on their bytes is plan/gitdir.c's).  The walk is gitaudit.c's,
 * the submodule entries gitlinks.c's. */
#include "hostpaths/gitstate.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <unistd.h>
#include "hostpaths/gitaudit.h"
#include "hostpaths/gitmode.h"
#include "hostpaths/gitlinks.h"
#include "hostpaths/protect_quarantine.h"
#include "plan/gitaudit.h"
#include "path.h"
#include "plan/gitdir.h"
#include "plan/gitend.h"
#include "sys.h"
#include "wire_guardian.h"
#include "grow.h"

/* A todo list of a long rebase is a few hundred KiB at most; a larger one
 * cannot be judged in bounded memory and is moved aside. */
#define GITSTATE_MAX (4u << 20)

static int add_file(struct gitstate *g, const struct gitstate_spec *d, const struct gitdir_rule *r,
		    struct cordon_err *e)
{
	if (grow_reserve(&g->v, &g->cap, g->n + 1, sizeof(*g->v)) < 0)
		return err_set(e, ENOMEM, "out of memory");
	struct gitstate_file *f = &g->v[g->n];
	*f = (struct gitstate_file){ .gitfd = -1, .rel = r->path };
	f->kind = gitend_file_kind(r->path);
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
	if (grow_reserve(&g->dirs, &g->capdirs, g->ndirs + 1, sizeof(*g->dirs)) < 0)
		return err_set(e, ENOMEM, "out of memory");
	const struct gitstate_file *f = &g->v[first];
	char link[64];
	(void)snprintf(link, sizeof(link), "/proc/self/fd/%d", f->gitfd);
	int wd = inotify_add_watch(g->ifd, link, IN_CREATE | IN_MOVED_TO | IN_ONLYDIR);
	if (wd < 0) {
		g->no_hint = 1;
		return 0;
	}
	if (!(g->dirs[g->ndirs].path = strdup(path)))
		return err_set(e, ENOMEM, "out of memory");
	g->dirs[g->ndirs++].wd = wd;
	return 0;
}

static int changed(const struct gitstate *g, const struct stat *st)
{
	return gitaudit_changed(&st->st_ctim, &g->since);
}

int gitstate_load_links(struct gitstate *g, int fd)
{
	return g->nrepos ? gitlinks_load(&g->repos[g->nrepos - 1], fd) : -EINVAL;
}

/* A root's own .git, or a linked worktree's git dir outside the roots
 * (its checkout: the root): its index, at the end. */
static int add_repo(struct gitstate *g, const struct gitstate_spec *d, struct cordon_err *e)
{
	if (grow_reserve(&g->repos, &g->caprepos, g->nrepos + 1, sizeof(*g->repos)) < 0)
		return err_set(e, ENOMEM, "out of memory");
	struct gitstate_repo *r = &g->repos[g->nrepos++];
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
	if (grow_reserve(&g->tops, &g->captops, g->ntops + 1, sizeof(*g->tops)) < 0)
		return err_set(e, ENOMEM, "out of memory");
	struct gitstate_top *t = &g->tops[g->ntops++];
	*t = (struct gitstate_top){ fcntl(d->fd, F_DUPFD_CLOEXEC, 3), strdup(d->path) };
	if (t->fd < 0 || !t->path)
		return err_set(e, ENOMEM, "cannot keep a descriptor of %s", d->path);
	return 0;
}

int gitstate_add(struct gitstate *g, const struct gitstate_spec *s, struct cordon_err *e)
{
	int rc;
	/* The repository last: its checkout root is opened by path, and in
	 * the guardian one that is gone leaves the rest of this git dir
	 * (its walk, its state files) still to be done. */
	for (size_t j = 0; j < gitdir_nrules; j++)
		if (gitdir_rules[j].role == GITDIR_STATE && (rc = add_file(g, s, &gitdir_rules[j], e)) < 0)
			return rc;
	if ((s->flags & GITSTATE_TOP) && (rc = add_top(g, s, e)) < 0)
		return rc;
	if ((s->flags & GITSTATE_REPO) && (rc = add_repo(g, s, e)) < 0)
		return rc;
	return 0;
}

/* d is not inside another git dir of gm: the walk of that one would cover it. */
static int is_top(const struct gitmode *gm, const struct gitmode_dir *d)
{
	for (size_t j = 0; j < gm->ndirs; j++) {
		const struct gitmode_dir *o = &gm->dirs[j];
		if (o != d && o->is_gitdir && gitend_inside(d->path, o->path))
			return 0;
	}
	return 1;
}

static int keep_spec(struct gitstate *g, const struct gitstate_spec *s, struct cordon_err *e)
{
	if (grow_reserve(&g->specs, &g->capspecs, g->nspecs + 1, sizeof(*g->specs)) < 0)
		return err_set(e, ENOMEM, "out of memory");
	g->specs[g->nspecs++] = *s;
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

int gitstate_start(struct gitstate *g, const struct gitmode *gm, struct cordon_err *e)
{
	static const struct gitmode none = { .dirs = NULL };
	if (!gm)
		gm = &none;
	struct timespec now;
	/* The clock the kernel stamps ctimes with; before the command runs. */
	if (clock_gettime(CLOCK_REALTIME_COARSE, &now) < 0)
		return err_sys(e, errno, "cannot read the clock");
	int coarse = 0;
	for (size_t i = 0; i < gm->ndirs; i++)
		coarse |= gm->dirs[i].is_gitdir && whole_seconds(gm->dirs[i].fd);
	g->since = gitaudit_since(&now, coarse);
	for (size_t i = 0; i < gm->ndirs; i++) {
		const struct gitmode_dir *d = &gm->dirs[i];
		if (!d->is_gitdir)
			continue;
		struct stat st = { 0 };
		struct gitstate_spec s = { d->fd, d->path, d->checkout, 0, 0, 0 };
		if (is_top(gm, d))
			s.flags |= GITSTATE_TOP;
		if (strcmp(path_base(d->path), ".git") == 0 || d->checkout)
			s.flags |= GITSTATE_REPO;
		if (d->checkout && stat(d->checkout, &st) < 0)
			return err_sys(e, errno, "cannot inspect %s", d->checkout);
		if (d->checkout) {
			s.root_dev = st.st_dev;
			s.root_ino = st.st_ino;
		}
		size_t first = g->n, nrepos = g->nrepos;
		int rc;
		if ((rc = gitstate_add(g, &s, e)) < 0 || (rc = keep_spec(g, &s, e)) < 0 ||
		    (rc = watch_dir(g, d->path, first, e)) < 0)
			return rc;
		if (g->nrepos > nrepos && (rc = gitlinks_note(&g->repos[nrepos])) < 0)
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
		int mfd = gitlinks_memfd(&g->repos[repo - 1]);
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
	FILE *out;
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
		fprintf(c->out, "cordon: git tried to write %s/%.*s, which --git commit "
			"keeps read-only (git reads programs to run from it); commands "
			"that change git's configuration (git config, git remote add, "
			"git branch -u, git submodule init) fail inside: run them "
			"outside cordon\n", g->dirs[d].path,
			(int)(strlen(ev->name) - 5), ev->name);
	}
}

/* The lock files git made during the run beside a read-only config. */
static void say_config_writes(struct gitstate *g, FILE *out)
{
	struct config_writes c = { g, out, { 0 } };
	sys_inotify_drain(g->ifd, say_config_write, &c);
}

/* Why f's current content must go, or NULL.  fd: it, opened. */
static const char *verdict(const struct gitstate_file *f, int fd, const struct stat *st)
{
	static char buf[GITSTATE_MAX];
	const char *why = gitend_state_unreadable(st->st_mode, st->st_size, sizeof(buf));
	if (why)
		return why;
	return gitend_state_content(f->kind, buf, sys_read_full(fd, buf, sizeof(buf)), sizeof(buf));
}

/* Move victim (in movefd; what: its path, for messages) aside, say so
 * and pass it to found; the last resort where it cannot be moved.  1. */
static size_t set_aside(int movefd, const char *victim, const char *what, const char *why,
			gitstate_found_fn *found, void *ctx)
{
	char moved[NAME_MAX + 1], where[PATH_MAX + NAME_MAX + 2];
	int r = protect_quarantine_move(movefd, victim, moved, sizeof(moved));
	if (r == -ENOENT)
		return 0; /* moved already (the guardian redoing cordon's end) */
	(void)snprintf(where, sizeof(where), "%.*s/%s", (int)(path_base(what) - what - 1), what, moved);
	/* The last resort (hostpaths/protect_quarantine.h): left in place,
	 * unreadable to host tools running as the caller. */
	int disarmed = r < 0 && protect_quarantine_disarm(movefd, victim) == 0;
	char said[256];
	(void)snprintf(said, sizeof(said), "%s%s", why,
		       disarmed ? "; NOT moved aside: left in place, made mode 000" :
		       r < 0 ? "; NOT moved aside: left in place" : "");
	if (r == 0)
		fprintf(stderr, "cordon: %s was written during the run and %s: moved aside, not "
			"deleted, to %s (--git commit)\n", what, why, where);
	else
		fprintf(stderr, "cordon: %s was written during the run and %s, and it could NOT be "
			"moved aside (%s)%s: remove it before running git there on the host\n",
			what, why, strerror(-r), disarmed ? "; cordon made it mode 000 instead" : "");
	if (found)
		found(ctx, what, r == 0 ? where : NULL, said);
	return 1;
}

static size_t settle_one(const struct gitstate *g, struct gitstate_file *f,
			 gitstate_found_fn *found, void *ctx)
{
	char dir[PATH_MAX];
	const char *base = path_base(f->rel), *why = NULL;
	struct stat st;
	struct gitend_state_seen seen = { GITEND_DIR_OPENED, 0, GITEND_FILE_SEEN, 0, GITEND_OPEN_OK };
	(void)snprintf(dir, sizeof(dir), "%.*s", (int)(base - f->rel - 1), f->rel);
	AUTO_FD dfd = openat(f->gitfd, dir, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	AUTO_FD fd = -1;
	if (dfd < 0) {
		if (fstatat(f->gitfd, dir, &st, AT_SYMLINK_NOFOLLOW) < 0)
			seen.dir = GITEND_DIR_MISSING;
		else if (S_ISDIR(st.st_mode))
			seen.dir = GITEND_DIR_DIR;
		else
			seen = (struct gitend_state_seen){ .dir = GITEND_DIR_OTHER,
							   .dir_changed = changed(g, &st) };
	} else if (fstatat(dfd, base, &st, AT_SYMLINK_NOFOLLOW) < 0) {
		seen.file = errno == ENOENT ? GITEND_FILE_MISSING : GITEND_FILE_HIDDEN;
	} else if ((seen.file_changed = changed(g, &st))) {
		fd = openat(dfd, base, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
		if (fd < 0 && errno == ELOOP)
			seen.open = GITEND_OPEN_LINK;
		else if (fd < 0 || fstat(fd, &st) < 0)
			seen.open = GITEND_OPEN_FAILED;
	}
	switch (gitend_state_look(&seen, &why)) {
	case GITEND_KEEP:
		return 0;
	case GITEND_READ:
		if (!(why = verdict(f, fd, &st)))
			return 0;
		break;
	case GITEND_MOVE_DIR:
	case GITEND_MOVE_FILE:
		break;
	}
	int movefd = seen.dir == GITEND_DIR_OPENED ? dfd : f->gitfd;
	const char *victim = seen.dir == GITEND_DIR_OPENED ? base : dir;
	/* f->path is GITDIR/dir/base: the victim's path, and where it went */
	char what[PATH_MAX];
	int gitlen = (int)(strlen(f->path) - strlen(f->rel) - 1);
	(void)snprintf(what, sizeof(what), "%.*s/%s", gitlen, f->path, victim == dir ? dir : f->rel);
	return set_aside(movefd, victim, what, why, found, ctx);
}

/* rerere's recorded resolutions (rr-cache/HASH/{preimage,postimage}): a
 * later host `git merge` whose conflict hashes to HASH writes postimage
 * into the worktree in silence ("Resolved 'f' using previous resolution"),
 * and the directory's mere existence turns rerere on.  So a resolution the
 * run recorded or changed is content the command chose for a merge the
 * user has not made yet: moved aside (git looks entries up by their exact
 * hash name, so HASH.cordon-quarantine-X is never applied, and rerere gc
 * skips names that are not a hash).  A directory changes when an entry is
 * added to it; a file rewritten in place changes only itself: both are
 * looked at, one level deep (rerere writes no deeper). */
static int rrcache_entry_changed(const struct gitstate *g, int dirfd, const char *name,
				 const struct stat *st)
{
	switch (gitend_rrcache_entry(changed(g, st), S_ISDIR(st->st_mode))) {
	case GITEND_RR_CHANGED:
		return 1;
	case GITEND_RR_KEPT:
		return 0;
	case GITEND_RR_INSIDE:
		break;
	}
	int fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return 1; /* unchanged but unreadable to us: not ours to vouch for */
	DIR *d = fdopendir(fd);
	if (!d) {
		(void)close(fd);
		return 1;
	}
	int res = 0;
	struct dirent *de;
	struct stat fst;
	while (!res && (de = readdir(d)))
		if (strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0)
			res = fstatat(fd, de->d_name, &fst, AT_SYMLINK_NOFOLLOW) < 0 ||
			      changed(g, &fst);
	(void)closedir(d);
	return res;
}

static size_t settle_rrcache(const struct gitstate *g, struct gitstate_file *f,
			     gitstate_found_fn *found, void *ctx)
{
	struct stat st;
	if (fstatat(f->gitfd, f->rel, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISDIR(st.st_mode))
		return 0; /* none, or not a directory git would use (the walk said a link) */
	int fd = openat(f->gitfd, f->rel, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return changed(g, &st) ? set_aside(f->gitfd, f->rel, f->path,
						   "it cannot be looked at", found, ctx) : 0;
	DIR *d = fdopendir(fd);
	if (!d) {
		(void)close(fd);
		return 0;
	}
	size_t n = 0;
	struct dirent *de;
	while ((de = readdir(d))) {
		struct stat est;
		if (gitend_rrcache_skip(de->d_name) ||
		    fstatat(fd, de->d_name, &est, AT_SYMLINK_NOFOLLOW) < 0 ||
		    !rrcache_entry_changed(g, fd, de->d_name, &est))
			continue;
		char what[PATH_MAX + NAME_MAX + 2];
		(void)snprintf(what, sizeof(what), "%s/%s", f->path, de->d_name);
		n += set_aside(fd, de->d_name, what,
			       "it is a merge resolution a later host git merge would apply "
			       "to the worktree (rerere)", found, ctx);
	}
	(void)closedir(d);
	return n;
}

size_t gitstate_settle(struct gitstate *g, gitstate_found_fn *found, void *ctx)
{
	size_t n = 0;
	/* The kinds first: what follows reads the git dirs, and must not open
	 * a link or a FIFO the command left there (plan/gitend.h). */
	for (size_t l = 0; l < gitend_nlooks; l++)
		switch (gitend_looks[l]) {
		case GITEND_LOOK_KINDS:
			for (size_t i = 0; i < g->ntops; i++)
				n += gitaudit_walk(g->tops[i].fd, g->tops[i].path, &g->since,
						   geteuid(), found, ctx);
			break;
		case GITEND_LOOK_STATE:
			for (size_t i = 0; i < g->n; i++)
				n += g->v[i].kind == GITEND_RRCACHE
					     ? settle_rrcache(g, &g->v[i], found, ctx)
					     : settle_one(g, &g->v[i], found, ctx);
			break;
		case GITEND_LOOK_LINKS:
			for (size_t i = 0; i < g->nrepos; i++)
				n += gitlinks_settle(&g->since, &g->repos[i], found, ctx);
			break;
		}
	return n;
}

void gitstate_say_config(struct gitstate *g, FILE *out)
{
	if (g->ifd >= 0)
		say_config_writes(g, out);
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
		gitlinks_free(&g->repos[i]);
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
