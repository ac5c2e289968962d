/* protect_git.c: see protect.h (protect_git_gather).  Belongs here: the
 * walk of plan/gitdir.h's table over each protected .git directory, lstat
 * and open, nothing decided.  Reads only: what it finds becomes protected
 * names (pinned, read-only or watched) that protect_decide handles like
 * the others, and pinned directories kept in p->git (gitmode.h). */
#include "hostpaths/protect.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "hostpaths/gitmode.h"
#include "path.h"
#include "plan/gitdir.h"
#include "plan/gitend.h"
#include "sys.h"
#include "grow.h"

/* The pinned directories of one git dir, by their path relative to it. */
#define HOLDERS_MAX 8
struct holders {
	const char *rel[HOLDERS_MAX];
	int fd[HOLDERS_MAX];     /* borrowed from p->git */
	size_t n;
};

static int holder_fd(const struct holders *h, const char *rel, size_t len)
{
	for (size_t i = 0; i < h->n; i++)
		if (strlen(h->rel[i]) == len && strncmp(h->rel[i], rel, len) == 0)
			return h->fd[i];
	return -1;
}

static struct protect_name *add_name(struct protect_run *p, size_t root, const char *path,
				     const char *why, struct cordon_err *e)
{
	if (grow_reserve(&p->names, &p->capnames, p->nnames + 1, sizeof(*p->names)) < 0) {
		err_set(e, ENOMEM, "out of memory");
		return NULL;
	}
	struct protect_name *n = &p->names[p->nnames];
	*n = (struct protect_name){ .root = root, .fd = -1, .watch_only = 1, .why = why,
				    .dirfd = -1 };
	if (!(n->path = strdup(path))) {
		err_set(e, ENOMEM, "out of memory");
		return NULL;
	}
	p->nnames++;
	return n;
}

/* The descriptor of the directory gitmode_add kept last. */
static int last_fd(const struct protect_run *p)
{
	return p->git->dirs[p->git->ndirs - 1].fd;
}

static int refuse(const char *path, struct cordon_err *e)
{
	return err_set(e, EPERM, "--git commit: %s is a symbolic link (or not a directory where "
		       "git keeps one), which cordon cannot keep in place inside a writable git "
		       "directory; replace it with what it points to, or run with --git read-only",
		       path);
}

/* Open name in dirfd as the object st describes, not following it. */
static int open_entry(int dirfd, const char *name, const char *path, const struct stat *st,
		      int *fd, struct cordon_err *e)
{
	struct rpath o;
	int rc = resolve_open_at(dirfd, name, path, st->st_dev, st->st_ino, &o);
	if (rc == -EAGAIN || rc == -ENOENT || rc == -ELOOP)
		return err_set(e, EAGAIN, "%s changed while cordon looked at it; run again", path);
	if (rc < 0)
		return err_sys(e, -rc, "cannot open %s", path);
	*fd = o.fd;
	o.fd = -1;
	rpath_free(&o);
	return 0;
}

static int walk_gitdir(struct protect_run *p, size_t root, int fd, const char *path,
		       unsigned scope, int depth, struct cordon_err *e);

/* A pinned directory: a name bound writable onto itself, its descriptor
 * kept as a directory of the run (the dirfd of what is watched in it). */
static int pin(struct protect_run *p, size_t root, int dirfd, const char *name, const char *path,
	       const struct stat *st, const char *why, int is_gitdir, int *out,
	       struct cordon_err *e)
{
	int fd = -1, rc;
	if ((rc = open_entry(dirfd, name, path, st, &fd, e)) < 0)
		return rc;
	struct protect_name *n = add_name(p, root, path, why, e);
	if (!n) {
		sys_close(&fd);
		return -ENOMEM;
	}
	*n = (struct protect_name){ .root = root, .path = n->path, .exists = 1, .is_dir = 1,
				    .dev = st->st_dev, .ino = st->st_ino, .fd = -1, .watch_only = 1,
				    .pin = 1, .why = why, .dirfd = -1 };
	if ((n->fd = fcntl(fd, F_DUPFD_CLOEXEC, 3)) < 0) {
		sys_close(&fd);
		return err_sys(e, errno, "cannot keep a descriptor of %s", path);
	}
	if ((rc = gitmode_add(p->git, path, fd, is_gitdir, e)) < 0)
		return rc;
	*out = last_fd(p);
	return 0;
}

/* Each subdirectory of dirfd (worktrees/, modules/): a git dir of its own,
 * or under modules/ without a HEAD a level of a name with a slash. */
static int expand(struct protect_run *p, size_t root, int dirfd, const char *path,
		  enum gitdir_role role, int depth, const char *why, struct cordon_err *e)
{
	if (depth >= GITDIR_MAX_DEPTH)
		return err_set(e, ELOOP, "--git commit: %s nests git directories deeper than %d "
			       "levels; run with --git read-only", path, GITDIR_MAX_DEPTH);
	int rd = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (rd < 0)
		return err_sys(e, errno, "cannot list %s", path);
	DIR *d = fdopendir(rd);
	if (!d) {
		int err = errno;
		sys_close(&rd);
		return err_sys(e, err, "cannot list %s", path);
	}
	int rc = 0;
	struct dirent *de;
	while (rc == 0 && (errno = 0, de = readdir(d))) {
		char sub[PATH_MAX];
		struct stat st, head;
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		if (path_join(path, de->d_name, sub, sizeof(sub)) < 0) {
			rc = err_set(e, ENAMETOOLONG, "%s/%s: path too long", path, de->d_name);
			break;
		}
		if (fstatat(dirfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
			rc = err_sys(e, errno, "cannot inspect %s", sub);
			break;
		}
		if (S_ISLNK(st.st_mode)) {
			rc = refuse(sub, e);
			break;
		}
		if (!S_ISDIR(st.st_mode))
			continue; /* git looks only at directories here */
		int fd = -1, is_git = 1;
		if (role == GITDIR_EACH_MODULE) {
			char rel[NAME_MAX + 8];
			(void)snprintf(rel, sizeof(rel), "%s/HEAD", de->d_name);
			is_git = fstatat(dirfd, rel, &head, AT_SYMLINK_NOFOLLOW) == 0;
		}
		if ((rc = pin(p, root, dirfd, de->d_name, sub, &st, why, is_git, &fd, e)) < 0)
			break;
		if (!is_git)
			rc = expand(p, root, fd, sub, role, depth + 1, why, e);
		else
			rc = walk_gitdir(p, root, fd, sub,
					 role == GITDIR_EACH_WORKTREE ? GITDIR_WORKTREE : GITDIR_REPO,
					 depth + 1, e);
	}
	if (rc == 0 && errno != 0)
		rc = err_sys(e, errno, "cannot list %s", path);
	(void)closedir(d);
	return rc;
}

/* One rule's entry in the git dir at path (fd: pinned already). */
static int walk_rule(struct protect_run *p, size_t root, const struct gitdir_rule *r,
		     struct holders *h, const char *path, int depth, struct cordon_err *e)
{
	size_t plen;
	const char *base;
	gitend_rule_split(r, &plen, &base);
	int each = r->role == GITDIR_EACH_WORKTREE || r->role == GITDIR_EACH_MODULE;
	int parent = holder_fd(h, r->path, plen);
	char full[PATH_MAX];
	struct stat st;
	struct gitdir_seen seen = { 0 };
	int fd = -1, rc;
	if (parent < 0)
		return 0; /* its directory is missing (or watched): nothing below it */
	if (each) {
		/* worktrees/X: what is there is the holder itself, pinned */
		char dir[PATH_MAX];
		(void)snprintf(dir, sizeof(dir), "%s/%.*s", path, (int)plen, r->path);
		return expand(p, root, parent, dir, r->role, depth, r->why, e);
	}
	if (snprintf(full, sizeof(full), "%s/%s", path, r->path) >= (int)sizeof(full))
		return err_set(e, ENAMETOOLONG, "%s/%s: path too long", path, r->path);
	if (fstatat(parent, base, &st, AT_SYMLINK_NOFOLLOW) == 0)
		seen = (struct gitdir_seen){ 1, S_ISDIR(st.st_mode), S_ISLNK(st.st_mode) };
	else if (errno != ENOENT)
		return err_sys(e, errno, "cannot inspect %s", full);
	struct protect_name *n;
	switch (gitdir_decide(r, &seen)) {
	case GITDIR_ACT_NONE:
	case GITDIR_ACT_EXPAND:
		return 0;
	case GITDIR_ACT_REFUSE:
		return refuse(full, e);
	case GITDIR_ACT_PIN:
		if (h->n >= HOLDERS_MAX)
			return err_set(e, E2BIG, "internal: too many pinned directories in %s", path);
		if ((rc = pin(p, root, parent, base, full, &st, r->why, 0, &fd, e)) < 0)
			return rc;
		h->rel[h->n] = r->path;
		h->fd[h->n++] = fd;
		return 0;
	case GITDIR_ACT_READ_ONLY:
		if (!(n = add_name(p, root, full, r->why, e)))
			return -ENOMEM;
		*n = (struct protect_name){ .root = root, .path = n->path, .exists = 1,
					    .is_dir = seen.is_dir, .dev = st.st_dev, .ino = st.st_ino,
					    .fd = -1, .watch_only = 1, .why = r->why, .dirfd = -1 };
		return open_entry(parent, base, full, &st, &n->fd, e);
	case GITDIR_ACT_WATCH:
		if (!(n = add_name(p, root, full, r->why, e)))
			return -ENOMEM;
		n->dirfd = parent;
		return 0;
	}
	return 0;
}

static int walk_gitdir(struct protect_run *p, size_t root, int fd, const char *path,
		       unsigned scope, int depth, struct cordon_err *e)
{
	struct holders h = { .rel = { "" }, .fd = { fd }, .n = 1 };
	for (size_t i = 0; i < gitdir_nrules; i++) {
		const struct gitdir_rule *r = &gitdir_rules[i];
		if (!(r->scopes & scope) || r->path[0] == '\0' || r->role == GITDIR_DATA ||
		    r->role == GITDIR_STATE)
			continue;
		int rc = walk_rule(p, root, r, &h, path, depth, e);
		if (rc < 0)
			return rc;
	}
	return 0;
}

/* A .git directory git would take for a repository: it has a HEAD.  An
 * empty one (another run's mount point, --protect-missing mount) stays
 * read-only as a whole. */
static int is_repository(int fd)
{
	struct stat st;
	return fstatat(fd, "HEAD", &st, AT_SYMLINK_NOFOLLOW) == 0;
}

int protect_git_gather(struct protect_run *p, struct cordon_err *e)
{
	size_t n0 = p->nnames;
	for (size_t i = 0; i < n0; i++) {
		struct protect_name *n = &p->names[i];
		if (!n->exists || !n->is_dir || n->is_symlink || n->why || n->via ||
		    strcmp(path_base(n->path), ".git") != 0)
			continue;
		int fd = -1, rc;
		if ((fd = fcntl(n->fd, F_DUPFD_CLOEXEC, 3)) < 0)
			return err_sys(e, errno, "cannot keep a descriptor of %s", n->path);
		if (!is_repository(fd)) {
			sys_close(&fd);
			continue;
		}
		n->pin = 1;
		n->why = gitdir_rules[0].why;
		char *path = strdup(n->path);
		size_t root = n->root;
		if (!path) {
			sys_close(&fd);
			return err_set(e, ENOMEM, "out of memory");
		}
		if ((rc = gitmode_add(p->git, path, fd, 1, e)) == 0)
			rc = walk_gitdir(p, root, last_fd(p), path, GITDIR_REPO, 0, e);
		free(path);
		if (rc < 0)
			return rc;
	}
	return 0;
}

int protect_git_linked(const struct resolved *r, struct protect_run *p, struct cordon_err *e)
{
	static const char why[] = "the common dir of a linked worktree in a writable root";
	for (size_t i = 0; i < r->nlinked; i++) {
		const struct resolved_linked *l = &r->linked[i];
		size_t j = 0;
		while (j < i && strcmp(r->linked[j].common.path, l->common.path) != 0)
			j++;
		int rc;
		if (j < i) { /* two worktrees of one repository: split once */
			if ((rc = gitmode_mark_checkout(p->git, l->gitdir, r->roots[l->root].path,
							e)) < 0)
				return rc;
			continue;
		}
		struct protect_name *n = add_name(p, l->root, l->common.path, why, e);
		int fd = -1;
		if (!n)
			return -ENOMEM;
		*n = (struct protect_name){ .root = l->root, .path = n->path, .exists = 1,
					    .is_dir = 1, .dev = l->common.dev, .ino = l->common.ino,
					    .fd = -1, .watch_only = 1, .pin = 1, .why = why,
					    .dirfd = -1, .outside = 1 };
		if ((n->fd = fcntl(l->common.fd, F_DUPFD_CLOEXEC, 3)) < 0 ||
		    (fd = fcntl(l->common.fd, F_DUPFD_CLOEXEC, 3)) < 0)
			return err_sys(e, errno, "cannot keep a descriptor of %s", l->common.path);
		if ((rc = gitmode_add(p->git, l->common.path, fd, 1, e)) < 0 ||
		    (rc = walk_gitdir(p, l->root, last_fd(p), l->common.path, GITDIR_REPO, 0,
				      e)) < 0 ||
		    (rc = gitmode_mark_checkout(p->git, l->gitdir, r->roots[l->root].path, e)) < 0)
			return rc;
	}
	return 0;
}
