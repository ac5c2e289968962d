/* resolve.c: see resolve.h. */
#include "plan/resolve.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysinfo.h>
#include <unistd.h>
#include "path.h"
#include "plan/fstype.h"
#include "plan/gitlinked.h"
#include "plan/gitmeta.h"
#include "plan/pins.h"
#include "plan/walk.h"
#include "sys.h"
#include "grow.h"

void rpath_free(struct rpath *p)
{
	sys_close(&p->fd);
	free(p->path);
	p->path = NULL;
}

int rpath_push(struct rpath **v, size_t *n, size_t *cap, struct rpath *p)
{
	if (grow_reserve(v, cap, *n + 1, sizeof(**v)) < 0)
		return -ENOMEM;
	(*v)[(*n)++] = *p;
	*p = (struct rpath){ .fd = -1 };
	return 0;
}

/* resolve_open_at; with want NULL, whatever is there is taken. */
static int open_nofollow(int dirfd, const char *name, const char *path, const struct stat *want,
			 struct rpath *out)
{
	struct stat st;
	*out = (struct rpath){ .fd = -1 };
	out->fd = openat(dirfd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (out->fd < 0)
		return -errno;
	if (fstat(out->fd, &st) < 0 ||
	    (want && (st.st_dev != want->st_dev || st.st_ino != want->st_ino))) {
		sys_close(&out->fd);
		return -EAGAIN;
	}
	out->path = strdup(path);
	if (!out->path) {
		sys_close(&out->fd);
		return -ENOMEM;
	}
	out->dev = st.st_dev;
	out->ino = st.st_ino;
	out->is_dir = S_ISDIR(st.st_mode);
	return 0;
}

int resolve_open_at(int dirfd, const char *name, const char *path, dev_t dev, ino_t ino,
		    struct rpath *out)
{
	struct stat want = { .st_dev = dev, .st_ino = ino };
	return open_nofollow(dirfd, name, path, &want, out);
}

int resolve_open_created(int dirfd, const char *name, const char *path, struct rpath *out)
{
	return open_nofollow(dirfd, name, path, NULL, out);
}

/* Opened with the links trust allows (plan/walk.h). */
static int resolve_walk(const char *flag, const char *path, enum walk_trust trust,
			struct rpath *out, struct cordon_err *e)
{
	char link[64], canon[PATH_MAX];
	struct stat st;
	struct walk_link bad;
	*out = (struct rpath){ .fd = -1 };
	int fd = walk_open(path, trust, &bad);
	if (fd == -EPERM && bad.not_system)
		return err_set(e, EPERM,
			       "%s %s: goes through the symbolic link %s; a root caller's writable "
			       "roots follow only the system's own links (directly in /, /usr or "
			       "/var), since a sandbox run as root owns the links it plants: name "
			       "the target", flag, path, bad.path);
	if (fd == -EPERM)
		return err_set(e, EPERM,
			       "%s %s: goes through the symbolic link %s, owned by uid %u; cordon "
			       "follows only root's links (an earlier run may have planted it): "
			       "name the target", flag, path, bad.path, (unsigned)bad.owner);
	if (fd < 0)
		return err_sys(e, -fd, "%s %s", flag, path);
	(void)snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	ssize_t n = readlink(link, canon, sizeof(canon) - 1);
	if (n <= 0 || fstat(fd, &st) < 0) {
		int err = errno;
		sys_close(&fd);
		return err_sys(e, err, "%s %s: cannot read its canonical path (is /proc mounted?)",
			       flag, path);
	}
	canon[n] = '\0';
	if (canon[0] != '/') {
		sys_close(&fd);
		return err_set(e, EINVAL, "%s %s: not a path on a mounted filesystem", flag, path);
	}
	out->path = strdup(canon);
	if (!out->path) {
		sys_close(&fd);
		return err_set(e, ENOMEM, "out of memory");
	}
	out->fd = fd;
	out->dev = st.st_dev;
	out->ino = st.st_ino;
	out->is_dir = S_ISDIR(st.st_mode);
	return 0;
}

int resolve_path(const char *flag, const char *path, struct rpath *out, struct cordon_err *e)
{
	return resolve_walk(flag, path, WALK_ROOT_LINKS, out, e);
}

static int under_any(const char *path, const struct rpath *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (path_is_under(path, v[i].path))
			return 1;
	return 0;
}

/* A writable root on a pseudo filesystem would hand the command the kernel's
 * knobs (fstype.h); decided on the descriptor that will be bound. */
static int check_root_fstype(const struct fstype_mounts *m, const char *flag, const char *path,
			     int fd, struct cordon_err *e)
{
	int err;
	const char *point;
	const char *fs = fstype_pseudo(fd, m, &err);
	if (err < 0)
		return err_sys(e, -err, "%s %s: cannot tell its filesystem", flag, path);
	if (fs)
		return err_set(e, EPERM,
			       "%s %s: lies on a %s filesystem, whose files act on the kernel; "
			       "cordon makes no such path writable", flag, path, fs);
	if ((fs = fstype_pseudo_below(m, path, &point)) != NULL)
		return err_set(e, EPERM,
			       "%s %s: holds a %s filesystem at %s, whose files act on the kernel; "
			       "choose a directory below it", flag, path, fs, point);
	return 0;
}

static int add_root(struct resolved *r, const struct fstype_mounts *m, const char *flag,
		    const char *path, struct cordon_err *e)
{
	struct rpath p;
	int rc = resolve_walk(flag, path, geteuid() == 0 ? WALK_SYSTEM_LINKS : WALK_ROOT_LINKS,
			      &p, e);
	if (rc < 0)
		return rc;
	if ((rc = check_root_fstype(m, flag, p.path, p.fd, e)) < 0) {
		rpath_free(&p);
		return rc;
	}
	for (size_t i = 0; i < r->nroots; i++) {
		if (r->roots[i].dev == p.dev && r->roots[i].ino == p.ino) {
			rpath_free(&p);
			return 0;
		}
	}
	if (rpath_push(&r->roots, &r->nroots, &r->caproots, &p) < 0) {
		rpath_free(&p);
		return err_set(e, ENOMEM, "out of memory");
	}
	return 0;
}

int resolve_note(struct resolved *r, struct cordon_err *e, const char *fmt, ...)
{
	char line[1024];
	va_list ap;
	va_start(ap, fmt);
	(void)vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (grow_reserve(&r->notes, &r->capnotes, r->nnotes + 1, sizeof(*r->notes)) < 0)
		return err_set(e, ENOMEM, "out of memory");
	if (!(r->notes[r->nnotes] = strdup(line)))
		return err_set(e, ENOMEM, "out of memory");
	r->nnotes++;
	return 0;
}

/* A --deny-read path that does not exist hides nothing.  Outside every
 * writable root nothing the command does can create it (policies list such
 * paths for other machines): silent.  Inside one, an earlier run may have
 * renamed the file away, so the user hears of it. */
static int note_missing_deny(struct resolved *r, const char *pattern, const char *path,
			     struct cordon_err *e)
{
	char abs[PATH_MAX], clean[PATH_MAX];
	if (path[0] != '/') {
		char here[PATH_MAX];
		if (!getcwd(here, sizeof(here)) ||
		    snprintf(abs, sizeof(abs), "%s/%s", here, path) >= (int)sizeof(abs))
			return 0;
		path = abs;
	}
	if (path_clean(path, clean, sizeof(clean)) < 0)
		return 0;
	for (size_t i = 0; i < r->nroots; i++)
		if (path_is_under(clean, r->roots[i].path))
			return resolve_note(r, e,
					"--deny-read %s: nothing there, so nothing is hidden; it lies in the "
					"writable root %s, where a file can be moved (a denial there is by "
					"path): check the file is not elsewhere", pattern,
					r->roots[i].path);
	return 0;
}

static int add_mask(struct resolved *r, const char *path, struct cordon_err *e)
{
	struct rpath p;
	int rc = resolve_path("--deny-read", path, &p, e);
	if (rc == -ENOENT)
		return note_missing_deny(r, path, path, e);
	if (rc < 0 || !p.path)
		return rc < 0 ? rc : -EINVAL;
	if (strcmp(p.path, "/") == 0) {
		rpath_free(&p);
		return err_set(e, EINVAL, "--deny-read %s: cannot hide the root directory", path);
	}
	if (!p.is_dir) {
		/* bwrap copies this descriptor's data (none) into the mask file. */
		sys_close(&p.fd);
		p.fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
		if (p.fd < 0) {
			rpath_free(&p);
			return err_sys(e, errno, "opening /dev/null for --deny-read %s", path);
		}
	} else {
		sys_close(&p.fd);
	}
	if (rpath_push(&r->masks, &r->nmasks, &r->capmasks, &p) < 0) {
		rpath_free(&p);
		return err_set(e, ENOMEM, "out of memory");
	}
	return 0;
}

/* A host socket the command may connect to: the file there now, through
 * no link an earlier run could have planted (it would choose the socket),
 * and a socket.  Whoever reaches a root-owned one, or
 * a container engine's, acts as root on this machine: said, not refused
 * (the user named it). */
static int add_socket(struct resolved *r, const char *path, struct cordon_err *e)
{
	struct rpath p;
	struct stat st;
	/* cordon-inner's supervisor holds UNIXSUP_HOST_MAX (inner/unixsup.h). */
	if (r->nsockets >= 32)
		return err_set(e, E2BIG, "--allow-unix-socket %s: at most 32 sockets may be allowed "
			       "by path", path);
	/* As for a writable root: a root caller's earlier runs own root's
	 * links, so only the system's are followed then. */
	int rc = resolve_walk("--allow-unix-socket", path,
			      geteuid() == 0 ? WALK_SYSTEM_LINKS : WALK_ROOT_LINKS, &p, e);
	if (rc < 0 || !p.path)
		return rc < 0 ? rc : -EINVAL;
	if (fstat(p.fd, &st) < 0 || !S_ISSOCK(st.st_mode)) {
		rc = strcmp(path, p.path)
			     ? err_set(e, EINVAL, "--allow-unix-socket %s: not a socket (it leads to "
				       "%s)", path, p.path)
			     : err_set(e, EINVAL, "--allow-unix-socket %s: not a socket", path);
		rpath_free(&p);
		return rc;
	}
	const char *base = path_base(p.path);
	if ((st.st_uid == 0 && geteuid() != 0) || strcmp(base, "docker.sock") == 0 ||
	    strcmp(base, "podman.sock") == 0 || strcmp(base, "containerd.sock") == 0)
		rc = resolve_note(r, e, "--allow-unix-socket %s: %s: whatever the command sends it "
				  "runs with that power on this machine", p.path,
				  st.st_uid == 0 && geteuid() != 0 ? "a socket of root's"
								     : "a container engine's socket");
	if (rc < 0 || rpath_push(&r->sockets, &r->nsockets, &r->capsockets, &p) < 0) {
		rpath_free(&p);
		return rc < 0 ? rc : err_set(e, ENOMEM, "out of memory");
	}
	return 0;
}

static int add_deny(struct resolved *r, const char *pattern, struct cordon_err *e)
{
	if (!strpbrk(pattern, "*?["))
		return add_mask(r, pattern, e);
	/* A glob must be anchored below a real directory: a bare slash-star or star would
	 * hide whole trees by accident. */
	const char *meta = strpbrk(pattern, "*?[");
	const char *slash = meta;
	while (slash > pattern && *slash != '/')
		slash--;
	if (pattern[0] != '/' || slash <= pattern)
		return err_set(e, EINVAL,
			       "--deny-read %s: a glob needs an absolute directory prefix, like /home/me/app/*.pem",
			       pattern);
	glob_t g;
	int gr = glob(pattern, GLOB_NOSORT, NULL, &g);
	if (gr == GLOB_NOMATCH) {
		char dir[PATH_MAX];
		(void)snprintf(dir, sizeof(dir), "%.*s", (int)(slash - pattern), pattern);
		return note_missing_deny(r, pattern, dir, e);
	}
	if (gr != 0)
		return err_set(e, EIO, "--deny-read %s: cannot expand the glob", pattern);
	int rc = 0;
	for (size_t i = 0; i < g.gl_pathc && rc == 0; i++)
		rc = add_mask(r, g.gl_pathv[i], e);
	globfree(&g);
	return rc;
}

static int resolve_cwd(const struct config *c, struct resolved *r, struct cordon_err *e)
{
	char here[PATH_MAX];
	const char *want = c->cwd;
	if (!want) {
		if (!getcwd(here, sizeof(here)))
			return err_sys(e, errno, "cannot read the current directory; pass -C DIR");
		want = here;
	}
	int rc = resolve_path(c->cwd ? "--cwd" : "current directory", want, &r->cwd, e);
	if (rc < 0)
		return rc;
	if (!r->cwd.is_dir)
		return err_set(e, ENOTDIR, "--cwd %s: not a directory", want);
	for (size_t i = 0; i < r->nmasks; i++)
		if (r->masks[i].is_dir && path_is_under(r->cwd.path, r->masks[i].path))
			return err_set(e, EACCES, "working directory %s is hidden by --deny-read %s",
				       r->cwd.path, r->masks[i].path);
	if (c->tmp == TMP_PRIVATE && path_is_under(r->cwd.path, "/tmp") &&
	    !under_any(r->cwd.path, r->roots, r->nroots))
		return err_set(e, ENOENT,
			       "working directory %s is hidden by the private /tmp; "
			       "make it writable with -w, pass --tmp host, or choose another -C",
			       r->cwd.path);
	return 0;
}

unsigned long long resolve_tmpfs_default(unsigned long long ram)
{
	/* Large enough for a build's scratch files and a test suite's fixtures;
	 * small enough that two runs on a small machine leave it memory (tmpfs
	 * pages are charged to the host and, without swap, cannot be paged
	 * out). */
	const unsigned long long gib = 1ULL << 30;
	if (ram && ram / 4 < gib)
		return ram / 4 > (16ULL << 20) ? ram / 4 : 16ULL << 20;
	return gib;
}

static void resolve_tmpfs_size(const struct config *c, struct resolved *r)
{
	struct sysinfo si;
	unsigned long long ram = 0;
	if (sysinfo(&si) == 0)
		ram = (unsigned long long)si.totalram * si.mem_unit;
	r->tmpfs_size = c->tmp_size ? c->tmp_size : resolve_tmpfs_default(ram);
}

/* Which of the /proc entries to cover exist: a missing one is skipped, since
 * bwrap cannot create a mount point inside procfs. */
static void resolve_proc(struct resolved *r)
{
	for (size_t i = 0; i < MOUNT_PLAN_NPROC; i++) {
		struct stat st;
		if (lstat(mount_plan_proc_rules[i].path, &st) < 0)
			r->proc[i] = PROC_ABSENT;
		else
			r->proc[i] = S_ISDIR(st.st_mode) ? PROC_DIR : PROC_FILE;
	}
}

static int protects_git(const struct config *c)
{
	if (config_default_protects(c, ".git"))
		return 1;
	for (size_t i = 0; i < c->protect.n; i++)
		if (strcmp(c->protect.v[i], ".git") == 0)
			return 1;
	return 0;
}

/* A git path named inside a writable root must reach its directory without
 * a symbolic link: such a link lies in the writable root too (whoever owns
 * it, root's included), so the command could point it at a directory of its
 * own, and the host's git, which follows the name, would run the hooks found
 * there.  The canonical path differs from the lexical one exactly when a
 * link was followed.  Frees *p on refusal. */
static int check_git_extra_linkless(const char *root, const char *why, const char *named,
				    struct rpath *p, struct cordon_err *e)
{
	if (p->path && strcmp(p->path, named) == 0)
		return 0;
	int rc = err_set(e, ELOOP,
			 "%s/.git: %s %s goes through a symbolic link inside a writable root, "
			 "which the command could point elsewhere to plant hooks; name %s instead",
			 root, why, named, p->path ? p->path : "its target");
	rpath_free(p);
	return rc;
}

/* A path of a hook's (target: canonical; named: the link's text joined to
 * its directory and lexically cleaned) that lies in a writable root: bound
 * read-only for the run like a git directory (r->gitdirs), its directories
 * pinned.  Refused when it does not exist yet (the command could create
 * it) or is reached through another symbolic link (which the command
 * could point elsewhere). */
static int keep_hook_target(struct resolved *r, const char *root, const char *hook,
			    const char *named, const char *target, struct cordon_err *e)
{
	if (!under_any(named, r->roots, r->nroots) &&
	    !(target && under_any(target, r->roots, r->nroots)))
		return 0;
	if (!target)
		return err_set(e, ENOENT, "%s/.git: hook %s is a symbolic link to %s, which does not "
			       "exist inside a writable root; the command could create it and your "
			       "next git command would run it: remove the link or create its target",
			       root, hook, named);
	if (strcmp(target, named) != 0)
		return err_set(e, ELOOP, "%s/.git: hook %s leads into a writable root through "
			       "another symbolic link (%s), which the command could point elsewhere; "
			       "make the hook a link to %s", root, hook, named, target);
	char flag[PATH_MAX + 32];
	struct rpath p;
	(void)snprintf(flag, sizeof(flag), "the target of hook %s:", hook);
	int rc = resolve_path(flag, target, &p, e);
	if (rc < 0)
		return rc;
	if (rpath_push(&r->gitdirs, &r->ngitdirs, &r->capgitdirs, &p) < 0) {
		rpath_free(&p);
		return err_set(e, ENOMEM, "out of memory");
	}
	return resolve_note(r, e, "hook %s runs %s, inside a writable root: read-only for this run",
			    hook, target);
}

/* The hooks of dir that are symbolic links (git follows them): each
 * target inside a writable root is kept read-only (keep_hook_target).  A
 * hook that is a script stays a script: what it reads or runs of the
 * worktree is the command's to write (README, "Outside the boundary"). */
static int keep_hook_links(struct resolved *r, const char *root, const char *dir,
			   struct cordon_err *e)
{
	DIR *d = opendir(dir);
	if (!d)
		return 0; /* no hooks directory: nothing to run */
	struct dirent *de;
	int rc = 0;
	while (rc == 0 && (de = readdir(d))) {
		char hook[PATH_MAX], text[PATH_MAX], named[PATH_MAX], real[PATH_MAX];
		struct stat st;
		if (path_join(dir, de->d_name, hook, sizeof(hook)) < 0 ||
		    fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISLNK(st.st_mode))
			continue;
		ssize_t n = readlinkat(dirfd(d), de->d_name, text, sizeof(text) - 1);
		if (n <= 0)
			continue;
		text[n] = '\0';
		if (text[0] == '/' ? path_clean(text, named, sizeof(named)) < 0
				   : path_join(dir, text, real, sizeof(real)) < 0 ||
					     path_clean(real, named, sizeof(named)) < 0)
			continue;
		rc = keep_hook_target(r, root, hook, named, realpath(hook, real) ? real : NULL, e);
	}
	(void)closedir(d);
	return rc;
}

/* husky (v9) sets core.hooksPath to .husky/_, whose scripts each run
 * .husky/HOOK, a plain file of the worktree: with .husky/_ read-only but
 * .husky writable, the command would write what the user's next commit
 * runs.  Its parent is kept read-only too. */
static int keep_husky(struct resolved *r, const char *hooks, struct cordon_err *e)
{
	char parent[PATH_MAX];
	if (strcmp(path_base(hooks), "_") != 0 || !under_any(hooks, r->roots, r->nroots))
		return 0;
	(void)snprintf(parent, sizeof(parent), "%.*s", (int)(path_base(hooks) - hooks - 1), hooks);
	if (!parent[0] || !under_any(parent, r->roots, r->nroots))
		return 0;
	struct rpath p;
	int rc = resolve_path("the directory of core.hooksPath:", parent, &p, e);
	if (rc == -ENOENT)
		return 0;
	if (rc < 0)
		return rc;
	if (!p.path || strcmp(p.path, parent) != 0) {
		rpath_free(&p);
		return err_set(e, ELOOP, "core.hooksPath %s: its directory %s goes through a "
			       "symbolic link inside a writable root; name the real path", hooks,
			       parent);
	}
	if (rpath_push(&r->gitdirs, &r->ngitdirs, &r->capgitdirs, &p) < 0) {
		rpath_free(&p);
		return err_set(e, ENOMEM, "out of memory");
	}
	return resolve_note(r, e, "core.hooksPath %s runs the scripts of %s (husky): both "
			    "read-only for this run; change hooks outside cordon", hooks, parent);
}

/* The git directories a root's repository names besides its .git
 * (gitmeta.h), bound read-only like a protected name when they lie inside a
 * writable root: a hook planted there runs on the user's next commit. */
static int add_git_extras(struct resolved *r, size_t root, struct cordon_err *e)
{
	char paths[GITMETA_MAX_PATHS][4096], flag[64];
	const char *why[GITMETA_MAX_PATHS];
	size_t n;
	const struct rpath *rt = &r->roots[root];
	int rc = gitmeta_find(rt->fd, rt->path, getenv("HOME"), paths, why, &n);
	if (rc < 0)
		return err_sys(e, -rc, "cannot read the git metadata of %s/.git", rt->path);
	for (size_t i = 0; i < n; i++) {
		struct rpath p;
		if (!under_any(paths[i], r->roots, r->nroots)) {
			char real[PATH_MAX];
			/* Read-only already, unless a link leads it into a root. */
			if (!realpath(paths[i], real) || !under_any(real, r->roots, r->nroots))
				continue;
			return err_set(e, ELOOP, "%s/.git: %s %s leads into a writable root through "
				       "a symbolic link; name %s instead", rt->path, why[i], paths[i], real);
		}
		(void)snprintf(flag, sizeof(flag), "%s of %s/.git:", why[i], rt->path);
		rc = resolve_path(flag, paths[i], &p, e);
		if (rc == -ENOENT)
			return err_set(e, ENOENT,
				       "%s/.git names %s %s, which does not exist inside a writable root; "
				       "the command could create it and plant hooks: create it or fix %s",
				       rt->path, why[i], paths[i], why[i]);
		if (rc < 0)
			return rc;
		if ((rc = check_git_extra_linkless(rt->path, why[i], paths[i], &p, e)) < 0)
			return rc;
		if (!under_any(p.path, r->roots, r->nroots)) {
			rpath_free(&p);
			continue;
		}
		if (rpath_push(&r->gitdirs, &r->ngitdirs, &r->capgitdirs, &p) < 0) {
			rpath_free(&p);
			return err_set(e, ENOMEM, "out of memory");
		}
	}
	/* The hooks git runs: core.hooksPath, else the common dir's hooks/. */
	char hooks[PATH_MAX];
	int have = 0;
	(void)snprintf(hooks, sizeof(hooks), "%s/.git/hooks", rt->path);
	for (size_t i = 0; i < n; i++)
		if (strcmp(why[i], "core.hooksPath") == 0) {
			(void)snprintf(hooks, sizeof(hooks), "%s", paths[i]);
			have = 1;
		} else if (!have) {
			(void)snprintf(hooks, sizeof(hooks), "%s/hooks", paths[i]);
		}
	if (have && (rc = keep_husky(r, hooks, e)) < 0)
		return rc;
	return keep_hook_links(r, rt->path, hooks, e);
}

/* With --full-write "/" is the writable root above a path outside every
 * root, except under the private /tmp: that tmpfs hides the host's /tmp,
 * and a pin there (a bind of the host's directory onto itself) would bring
 * the host's /tmp back, writable, over it. */
static int top_writable(const struct config *c, const char *path)
{
	return c->full_write && !(c->tmp == TMP_PRIVATE && path_is_under(path, "/tmp"));
}

/* The directories above each read-only path deeper than a writable root's
 * top level stay in place (pins.h): the path keeps protecting what it named.
 * So do those between a writable root and a root nested in it: a root is a
 * mount point, but renaming a directory above it inside the outer root
 * carries the mount (and its protected names, bound in it) along, and the
 * nested root's path becomes an ordinary, unwatched directory of the outer
 * root, where the command could plant a .git.  Protected names sit directly
 * in a root, so pinning the roots covers them. */
static int pin_read_only_paths(const struct config *c, struct resolved *r, struct cordon_err *e)
{
	size_t nroots = r->nroots, ncarves = r->ncarves, ngit = r->ngitdirs;
	for (size_t i = 0; i < nroots + ncarves + ngit; i++) {
		const struct rpath *p = i < nroots ? &r->roots[i]
				      : i < nroots + ncarves ? &r->carves[i - nroots]
							     : &r->gitdirs[i - nroots - ncarves];
		int rc = p->pin ? 0 : pins_add_above(r, p->path, top_writable(c, p->path), e);
		if (rc < 0)
			return rc;
	}
	return 0;
}

/* The topmost pseudo filesystems outside /proc and /dev (which the sandbox
 * replaces): with --full-write each is bound read-only over the writable /. */
static int collect_kernel_mounts(struct resolved *r, const struct fstype_mounts *m,
				 struct cordon_err *e)
{
	for (size_t i = 0; i < m->n; i++) {
		const char *point = m->v[i].point;
		int covered = point[0] != '/' || path_is_under(point, "/proc") ||
			      path_is_under(point, "/dev");
		for (size_t j = 0; !covered && j < r->nkernel_ro; j++)
			covered = path_is_under(point, r->kernel_ro[j]);
		if (covered)
			continue;
		if (grow_reserve(&r->kernel_ro, &r->capkernel_ro, r->nkernel_ro + 1,
				 sizeof(*r->kernel_ro)) < 0)
			return err_set(e, ENOMEM, "out of memory");
		if (!(r->kernel_ro[r->nkernel_ro] = strdup(point)))
			return err_set(e, ENOMEM, "out of memory");
		r->nkernel_ro++;
	}
	return 0;
}

/* A writable root that holds the caller's home directory (or is /) makes
 * every dotfile and credential there writable: legitimate with care, but
 * never what a relative path in a policy should mean by accident (srt's
 * allowWrite ["."] read from ~ once did).  Said, with where it came from;
 * the run goes on. */
static int note_home_root(struct resolved *r, const struct config *c, size_t i, const char *root,
			  struct cordon_err *e)
{
	char home[PATH_MAX];
	const char *h = getenv("HOME");
	int holds_home = h && h[0] == '/' && realpath(h, home) && path_is_under(home, root);
	if (!holds_home && strcmp(root, "/") != 0)
		return 0;
	char from[PATH_MAX + 16];
	if (i < c->write.nfile && i < c->write_from.n)
		(void)snprintf(from, sizeof(from), "from %s", c->write_from.v[i]);
	else
		(void)snprintf(from, sizeof(from), "from the flag -w %s", c->write.v[i]);
	return resolve_note(r, e, "warning: %s is writable (%s), and it holds %s: every file there, "
			"dotfiles and credentials included, can be changed", root, from,
			strcmp(root, "/") == 0 ? "the whole filesystem" : "your home directory");
}

/* The writable roots, checked against the host's pseudo filesystems (one
 * read of the mount table for all of them). */
static int resolve_roots(const struct config *c, struct resolved *r, struct cordon_err *e)
{
	struct fstype_mounts m;
	int rc = 0;
	if (!c->write.n && c->tmp != TMP_HOST && !c->full_write)
		return 0;
	if ((rc = fstype_mounts_load(&m)) < 0)
		return err_sys(e, -rc, "cannot read /proc/self/mountinfo to check the filesystems "
			       "of the writable roots (is /proc mounted?)");
	if (c->full_write)
		rc = collect_kernel_mounts(r, &m, e);
	for (size_t i = 0; rc == 0 && i < c->write.n; i++) {
		size_t before = r->nroots;
		rc = add_root(r, &m, "--write", c->write.v[i], e);
		if (rc == 0 && r->nroots > before)
			rc = note_home_root(r, c, i, r->roots[r->nroots - 1].path, e);
	}
	if (rc == 0 && c->tmp == TMP_HOST)
		rc = add_root(r, &m, "--tmp host:", "/tmp", e);
	fstype_mounts_free(&m);
	return rc;
}

int resolve_config(const struct config *c, struct resolved *r, struct cordon_err *e)
{
	int rc;
	memset(r, 0, sizeof(*r));
	r->cwd.fd = -1;
	resolve_proc(r);
	resolve_tmpfs_size(c, r);
	if ((rc = resolve_roots(c, r, e)) < 0)
		return rc;

	for (size_t i = 0; i < c->read_only.n; i++) {
		struct rpath p;
		if ((rc = resolve_path("--read-only", c->read_only.v[i], &p, e)) < 0)
			return rc;
		/* Outside every writable root the path is read-only already. */
		if (!c->full_write && !under_any(p.path, r->roots, r->nroots)) {
			rpath_free(&p);
			continue;
		}
		if (rpath_push(&r->carves, &r->ncarves, &r->capcarves, &p) < 0) {
			rpath_free(&p);
			return err_set(e, ENOMEM, "out of memory");
		}
	}

	for (size_t i = 0; i < r->nroots; i++) {
		if (!r->roots[i].is_dir)
			continue;
		if (protects_git(c) && (rc = add_git_extras(r, i, e)) < 0)
			return rc;
		/* --full-write: the main repository is writable already */
		if (protects_git(c) && c->git == GIT_COMMIT && !c->full_write &&
		    (rc = gitlinked_find(r, i, e)) < 0)
			return rc;
	}

	if ((rc = pin_read_only_paths(c, r, e)) < 0)
		return rc;

	for (size_t i = 0; i < c->deny_read.n; i++)
		if ((rc = add_deny(r, c->deny_read.v[i], e)) < 0)
			return rc;

	for (size_t i = 0; i < c->allow_unix_socket.n; i++)
		if ((rc = add_socket(r, c->allow_unix_socket.v[i], e)) < 0)
			return rc;

	return resolve_cwd(c, r, e);
}

void resolved_close(struct resolved *r)
{
	struct { struct rpath *v; size_t n; } lists[] = {
		{ r->roots, r->nroots }, { r->carves, r->ncarves },
		{ r->gitdirs, r->ngitdirs }, { r->masks, r->nmasks }, { r->sockets, r->nsockets },
	};
	for (size_t l = 0; l < sizeof(lists) / sizeof(lists[0]); l++)
		for (size_t i = 0; i < lists[l].n; i++)
			sys_close(&lists[l].v[i].fd);
	for (size_t i = 0; i < r->nlinked; i++)
		sys_close(&r->linked[i].common.fd);
	sys_close(&r->cwd.fd);
}

void resolved_free(struct resolved *r)
{
	struct { struct rpath *v; size_t n; } lists[] = {
		{ r->roots, r->nroots }, { r->carves, r->ncarves },
		{ r->gitdirs, r->ngitdirs }, { r->masks, r->nmasks }, { r->sockets, r->nsockets },
	};
	for (size_t l = 0; l < sizeof(lists) / sizeof(lists[0]); l++) {
		for (size_t i = 0; i < lists[l].n; i++)
			rpath_free(&lists[l].v[i]);
		free(lists[l].v);
	}
	for (size_t i = 0; i < r->nlinked; i++) {
		rpath_free(&r->linked[i].common);
		free(r->linked[i].gitdir);
	}
	free(r->linked);
	for (size_t i = 0; i < r->nkernel_ro; i++)
		free(r->kernel_ro[i]);
	free(r->kernel_ro);
	for (size_t i = 0; i < r->nnotes; i++)
		free(r->notes[i]);
	free(r->notes);
	rpath_free(&r->cwd);
	memset(r, 0, sizeof(*r));
	r->cwd.fd = -1;
}
