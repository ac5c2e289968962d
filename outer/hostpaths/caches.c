/* caches.c: see caches.h.  Belongs here: every write cordon makes under
 * $XDG_CACHE_HOME/cordon, and the walks that size and remove it. */
#include "hostpaths/caches.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "hostpaths/privdir.h"
#include "path.h"
#include "plan/caches.h"
#include "sys.h"

extern char **environ;

#define WALK_MAX_DEPTH 128
#define ADVICE "set XDG_CACHE_HOME to a directory of yours, or pass --cache none"

static int locate(char *base, size_t len, size_t *must_exist, struct cordon_err *e)
{
	const char *home = NULL;
	const char *h = getenv("HOME");
	if (!h || h[0] != '/') {
		struct passwd *pw = getpwuid(geteuid());
		home = pw ? pw->pw_dir : NULL;
	}
	int r = caches_base(environ, home, base, len, must_exist);
	if (r == -ENOENT)
		return err_set(e, ENOENT, "cannot find the cache directory: HOME is not set and the "
			       "user has no home directory; " ADVICE);
	if (r < 0)
		return err_set(e, -r, "the cache directory's path is too long; " ADVICE);
	return 0;
}

/* One component, opened: the user's (or root's, above the directories
 * cordon owns), a directory, and writable by no one else (a sticky
 * directory like /tmp excepted, above them).  "/" itself is not looked at:
 * the components are (ctx: the index of the first of cordon's own). */
static int check_component(void *ctx, const char *shown, const struct stat *st, size_t idx,
			   size_t prefix, struct cordon_err *e)
{
	uid_t me = geteuid();
	int ours = idx >= *(const size_t *)ctx;
	(void)prefix;
	if (idx == 0)
		return 0;
	if (!S_ISDIR(st->st_mode))
		return err_set(e, ENOTDIR, "cache directory: %s is not a directory; " ADVICE, shown);
	if (ours ? st->st_uid != me : (st->st_uid != me && st->st_uid != 0))
		return err_set(e, EPERM, "cache directory: %s is owned by someone else; " ADVICE, shown);
	if (ours ? (st->st_mode & 022) != 0 : ((st->st_mode & S_IWOTH) && !(st->st_mode & S_ISVTX)))
		return err_set(e, EPERM, "cache directory: %s is writable by others; " ADVICE, shown);
	return 0;
}

/* path, opened (hostpaths/privdir.h): components past must_exist are
 * created when create is set; those from index `ours` on must be the
 * user's alone.  The descriptor, or -errno with *e filled (-ENOENT:
 * missing, create unset). */
static int open_chain(const char *path, size_t must_exist, size_t ours, int create,
		      struct cordon_err *e)
{
	struct privdir_walk w = {
		path, must_exist, create, "cache directory", ADVICE,
		"set XDG_CACHE_HOME to the path it leads to, or pass --cache none",
		check_component, &ours,
	};
	return privdir_open(&w, NULL, e);
}

int caches_path(const char *ws, char *out, size_t len, struct cordon_err *e)
{
	char base[PATH_MAX], name[CACHES_NAME_MAX];
	size_t must_exist;
	int rc = locate(base, sizeof(base), &must_exist, e);
	if (rc < 0)
		return rc;
	if (caches_dir_name(ws, name, sizeof(name)) < 0 || path_join(base, name, out, len) < 0)
		return err_set(e, ENAMETOOLONG, "cache directory %s: path too long; " ADVICE, base);
	return 0;
}

/* NAME.workspace beside the directory dirfd (NAME): its mtime to now (the
 * last use), or, the first time, the file itself with the workspace's path
 * (plan/caches.h).  Reached from the directory just opened and checked
 * (its ".."), never by path.  Best effort: without it the directory is
 * judged by its own mtime and kept while its workspace is unknown. */
static void note_use(int dirfd, const char *name, const char *ws)
{
	char rec[CACHES_NAME_MAX + sizeof(CACHES_RECORD_SUFFIX)];
	(void)snprintf(rec, sizeof(rec), "%s%s", name, CACHES_RECORD_SUFFIX);
	AUTO_FD base = openat(dirfd, "..", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (base < 0 || utimensat(base, rec, NULL, AT_SYMLINK_NOFOLLOW) == 0 || errno != ENOENT)
		return;
	AUTO_FD fd = openat(base, rec, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd >= 0 && (sys_write_all(fd, ws, strlen(ws)) < 0 || sys_write_all(fd, "\n", 1) < 0))
		(void)unlinkat(base, rec, 0); /* a half record is no record */
}

int caches_open(const char *ws, struct rpath *out, struct cordon_err *e)
{
	char base[PATH_MAX], name[CACHES_NAME_MAX], full[PATH_MAX];
	size_t must_exist;
	int rc;
	*out = (struct rpath){ .fd = -1 };
	if ((rc = locate(base, sizeof(base), &must_exist, e)) < 0)
		return rc;
	if (caches_dir_name(ws, name, sizeof(name)) < 0 || path_join(base, name, full, sizeof(full)) < 0)
		return err_set(e, ENAMETOOLONG, "cache directory %s: path too long; " ADVICE, base);
	int fd = open_chain(full, must_exist, path_depth(base), 1, e);
	if (fd < 0)
		return fd;
	struct stat st;
	if (fstat(fd, &st) < 0 || !(out->path = strdup(full))) {
		int err = errno;
		sys_close(&fd);
		return err_sys(e, err, "cache directory %s", full);
	}
	out->fd = fd;
	out->dev = st.st_dev;
	out->ino = st.st_ino;
	out->is_dir = 1;
	note_use(fd, name, ws);
	return 0;
}

int caches_unavailable(int err)
{
	return err == -ENOENT || err == -EACCES || err == -EROFS || err == -ENOSPC ||
	       err == -EDQUOT;
}

int caches_read_goenv(char *buf, size_t len)
{
	char path[PATH_MAX];
	buf[0] = '\0';
	if (caches_goenv_path(environ, path, sizeof(path)) < 0)
		return -ENOENT;
	AUTO_FD fd = open(path, O_RDONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	struct stat st;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))
		return -EINVAL;
	ssize_t n = sys_read_full(fd, buf, len - 1);
	if (n < 0)
		return (int)n;
	buf[n] = '\0';
	return 0;
}

/* The subdirectory name of dirfd, which fstatat saw as *seen, opened for
 * reading; made 0700 first when removing (Go leaves its module cache
 * read-only).  chmod goes through the O_PATH descriptor's /proc link: the
 * very directory opened without following, never a path. */
static int open_subdir(int dirfd, const char *name, const struct stat *seen, int removing)
{
	AUTO_FD p = openat(dirfd, name, O_PATH | O_NOFOLLOW | O_DIRECTORY | O_CLOEXEC);
	struct stat st;
	if (p < 0)
		return -errno;
	if (fstat(p, &st) < 0)
		return -errno;
	if (st.st_dev != seen->st_dev || st.st_ino != seen->st_ino)
		return -EAGAIN;
	if (removing && (st.st_mode & 0700) != 0700) {
		char link[64];
		(void)snprintf(link, sizeof(link), "/proc/self/fd/%d", p);
		if (chmod(link, 0700) < 0)
			return -errno;
	}
	int fd = openat(p, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

/* Add up (and with removing, remove) what lies in dirfd, on device dev
 * only.  0, or the first -errno met (the walk goes on past it). */
static int walk(int dirfd, dev_t dev, int depth, int removing, unsigned long long *bytes)
{
	if (depth > WALK_MAX_DEPTH)
		return -ELOOP;
	int dup = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d = dup >= 0 ? fdopendir(dup) : NULL;
	if (!d) {
		int err = errno;
		if (dup >= 0)
			sys_close(&dup);
		return -err;
	}
	int rc = 0;
	for (struct dirent *de; (de = readdir(d));) {
		const char *n = de->d_name;
		struct stat st;
		if (strcmp(n, ".") == 0 || strcmp(n, "..") == 0)
			continue;
		if (fstatat(dirfd, n, &st, AT_SYMLINK_NOFOLLOW) < 0) {
			if (errno != ENOENT && rc == 0)
				rc = -errno;
			continue;
		}
		*bytes += (unsigned long long)st.st_blocks * 512;
		int r = 0;
		if (S_ISDIR(st.st_mode) && st.st_dev != dev) {
			r = removing ? -EXDEV : 0; /* a mount: never walked into */
		} else if (S_ISDIR(st.st_mode)) {
			int sub = open_subdir(dirfd, n, &st, removing);
			r = sub < 0 ? sub : walk(sub, dev, depth + 1, removing, bytes);
			if (sub >= 0)
				sys_close(&sub);
			if (r == 0 && removing && unlinkat(dirfd, n, AT_REMOVEDIR) < 0)
				r = -errno;
		} else if (removing && unlinkat(dirfd, n, 0) < 0) {
			r = -errno;
		}
		if (r < 0 && r != -ENOENT && rc == 0)
			rc = r;
	}
	(void)closedir(d);
	return rc;
}

/* The base directory, opened for reading; *missing: it does not exist. */
static int open_base(char *base, size_t len, int *missing, struct cordon_err *e)
{
	size_t must_exist;
	*missing = 0;
	int rc = locate(base, len, &must_exist, e);
	if (rc < 0)
		return rc;
	AUTO_FD p = open_chain(base, must_exist, path_depth(base), 0, e);
	*missing = p == -ENOENT;
	if (p < 0)
		return p;
	int fd = openat(p, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	return fd < 0 ? err_sys(e, errno, "cache directory %s", base) : fd;
}

/* "12.3 MiB", or KiB below one MiB. */
static const char *human(unsigned long long bytes, char *buf, size_t len)
{
	if (bytes < 1024ULL * 1024)
		(void)snprintf(buf, len, "%.1f KiB", (double)bytes / 1024.0);
	else
		(void)snprintf(buf, len, "%.1f MiB", (double)bytes / (1024.0 * 1024.0));
	return buf;
}

/* The number of workspaces' directories directly in dirfd. */
static size_t count_entries(int dirfd)
{
	size_t n = 0;
	int dup = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d = dup >= 0 ? fdopendir(dup) : NULL;
	if (!d) {
		if (dup >= 0)
			sys_close(&dup);
		return 0;
	}
	for (struct dirent *de; (de = readdir(d));)
		if (caches_name_is_ours(de->d_name))
			n++;
	(void)closedir(d);
	return n;
}

int caches_describe(char *msg, size_t len)
{
	char base[PATH_MAX], size[32];
	struct cordon_err e;
	unsigned long long bytes = 0;
	int missing;
	AUTO_FD fd = open_base(base, sizeof(base), &missing, &e);
	if (missing) {
		/* The first run creates it: that needs the nearest directory
		 * that exists to be writable (a container's --read-only root
		 * is not, and every run would be refused). */
		char up[PATH_MAX];
		(void)snprintf(up, sizeof(up), "%s", base);
		char *slash;
		while ((slash = strrchr(up, '/')) && slash != up && access(up, F_OK) < 0)
			*slash = '\0';
		if (slash == up)
			up[1] = '\0';
		if (access(up, W_OK) < 0) {
			(void)snprintf(msg, len, "%s cannot be created: %s is not writable (%s), so "
				       "with --cache private (the default) every run keeps the tools' "
				       "caches read-only and says so; " ADVICE, base, up, strerror(errno));
			return 0;
		}
		(void)snprintf(msg, len, "%s, not created yet (--cache private makes one directory "
			       "per workspace there)", base);
		return 1;
	}
	if (fd < 0) {
		(void)snprintf(msg, len, "%s", e.msg);
		return 0;
	}
	struct stat st;
	int r = fstat(fd, &st) < 0 ? -errno : walk(fd, st.st_dev, 0, 0, &bytes);
	size_t n = count_entries(fd);
	char last[64] = "never";
	struct stat ps;
	struct tm tm;
	if (fstatat(fd, CACHES_PRUNED_STAMP, &ps, AT_SYMLINK_NOFOLLOW) == 0 &&
	    gmtime_r(&ps.st_mtime, &tm))
		(void)strftime(last, sizeof(last), "%Y-%m-%d %H:%M UTC", &tm);
	(void)snprintf(msg, len, "%s, %s%s in %zu workspace cache%s; a run removes those of "
		       "workspaces gone or unused for %lld days, once a day (last: %s); cordon "
		       "reclaim --caches removes them all", base, human(bytes, size, sizeof(size)),
		       r < 0 ? " or more (some could not be read)" : "", n, n == 1 ? "" : "s",
		       CACHES_UNUSED_S / (24LL * 3600), last);
	return 1;
}

int caches_reclaim(FILE *out, struct cordon_err *e)
{
	char base[PATH_MAX];
	unsigned long long bytes = 0;
	int missing;
	AUTO_FD fd = open_base(base, sizeof(base), &missing, e);
	if (missing) {
		fprintf(out, "caches: none to remove (%s does not exist)\n", base);
		return 0;
	}
	if (fd < 0)
		return fd;
	struct stat st;
	if (fstat(fd, &st) < 0)
		return err_sys(e, errno, "cache directory %s", base);
	char size[32];
	int r = walk(fd, st.st_dev, 0, 1, &bytes);
	if (r < 0)
		return err_sys(e, -r, "could not remove everything in %s (a run still using it?); "
			       "%s freed", base, human(bytes, size, sizeof(size)));
	fprintf(out, "caches: removed everything in %s, %s freed\n", base,
		human(bytes, size, sizeof(size)));
	return 0;
}

int caches_prune_due(void)
{
	char base[PATH_MAX], stamp[PATH_MAX];
	size_t must_exist;
	struct cordon_err ignored;
	struct stat st;
	if (locate(base, sizeof(base), &must_exist, &ignored) < 0 ||
	    path_join(base, CACHES_PRUNED_STAMP, stamp, sizeof(stamp)) < 0)
		return 0;
	/* Only a look, by path: the prune itself opens the base checked. */
	if (lstat(stamp, &st) < 0)
		return errno == ENOENT;
	return caches_prune_due_after((long long)(time(NULL) - st.st_mtime));
}

/* Seconds since the entry rec of dirfd was changed, -1 if it is not there. */
static long long age_of(int dirfd, const char *rec, time_t now)
{
	struct stat st;
	if (fstatat(dirfd, rec, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return -1;
	return (long long)(now - st.st_mtime);
}

/* What prune knows of the entry name of base (plan/caches.h). */
static struct caches_entry gather(int base, const char *name, const struct stat *st, time_t now)
{
	struct caches_entry f = { 0, 0, CACHES_WS_UNKNOWN };
	char rec[CACHES_NAME_MAX + sizeof(CACHES_RECORD_SUFFIX)], text[PATH_MAX + 1], ws[PATH_MAX];
	/* Only what cordon made: a directory (never a link), the user's, by
	 * the name caches_dir_name gives. */
	f.ours = S_ISDIR(st->st_mode) && st->st_uid == geteuid() && caches_name_is_ours(name);
	f.unused_s = (long long)(now - st->st_mtime);
	(void)snprintf(rec, sizeof(rec), "%s%s", name, CACHES_RECORD_SUFFIX);
	long long used = age_of(base, rec, now);
	if (used >= 0)
		f.unused_s = used;
	AUTO_FD fd = openat(base, rec, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	struct stat rs;
	if (fd < 0 || fstat(fd, &rs) < 0 || !S_ISREG(rs.st_mode))
		return f;
	ssize_t n = sys_read_full(fd, text, sizeof(text) - 1);
	struct stat ws_st;
	if (n > 0 && caches_record_matches(name, text, (size_t)n, ws, sizeof(ws)))
		f.ws = stat(ws, &ws_st) < 0 && (errno == ENOENT || errno == ENOTDIR)
			       ? CACHES_WS_GONE : CACHES_WS_PRESENT;
	return f;
}

/* Remove the directory name of base (seen as *st) and its record. */
static void remove_one(int base, const char *name, const struct stat *st)
{
	unsigned long long bytes = 0;
	int sub = open_subdir(base, name, st, 1);
	if (sub < 0)
		return;
	int r = walk(sub, st->st_dev, 0, 1, &bytes);
	sys_close(&sub);
	if (r == 0 && unlinkat(base, name, AT_REMOVEDIR) == 0) {
		char rec[CACHES_NAME_MAX + sizeof(CACHES_RECORD_SUFFIX)];
		(void)snprintf(rec, sizeof(rec), "%s%s", name, CACHES_RECORD_SUFFIX);
		(void)unlinkat(base, rec, 0);
	}
}

/* A record whose directory is gone (reclaimed by hand): removed too. */
static void remove_orphan_record(int base, const char *name)
{
	size_t n = strlen(name), sl = sizeof(CACHES_RECORD_SUFFIX) - 1;
	char dir[CACHES_NAME_MAX];
	struct stat st;
	if (n <= sl || n - sl >= sizeof(dir) || strcmp(name + n - sl, CACHES_RECORD_SUFFIX) != 0)
		return;
	memcpy(dir, name, n - sl);
	dir[n - sl] = '\0';
	if (caches_name_is_ours(dir) && fstatat(base, dir, &st, AT_SYMLINK_NOFOLLOW) < 0 &&
	    errno == ENOENT)
		(void)unlinkat(base, name, 0);
}

size_t caches_prune(void)
{
	char base[PATH_MAX];
	struct cordon_err ignored;
	int missing;
	size_t removed = 0;
	AUTO_FD fd = open_base(base, sizeof(base), &missing, &ignored);
	if (fd < 0)
		return 0;
	/* One prune at a time, at most once a day: the stamp is locked, looked
	 * at again under the lock (another run may just have pruned), and set
	 * before the work, so that a prune that dies half-way is not retried
	 * by every run of the day. */
	int created = 0;
	AUTO_FD stamp = openat(fd, CACHES_PRUNED_STAMP, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (stamp < 0 && errno == ENOENT) {
		stamp = openat(fd, CACHES_PRUNED_STAMP,
			       O_RDONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
		created = stamp >= 0;
	}
	struct stat st;
	time_t now = time(NULL);
	if (stamp < 0 || flock(stamp, LOCK_EX | LOCK_NB) < 0 || fstat(stamp, &st) < 0 ||
	    !S_ISREG(st.st_mode) || st.st_uid != geteuid())
		return 0;
	if (!created && !caches_prune_due_after((long long)(now - st.st_mtime)))
		return 0;
	if (futimens(stamp, NULL) < 0)
		return 0;
	int dup = openat(fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d = dup >= 0 ? fdopendir(dup) : NULL;
	if (!d) {
		if (dup >= 0)
			sys_close(&dup);
		return 0;
	}
	for (struct dirent *de; (de = readdir(d));) {
		struct stat es;
		if (fstatat(fd, de->d_name, &es, AT_SYMLINK_NOFOLLOW) < 0)
			continue;
		if (!S_ISDIR(es.st_mode)) {
			remove_orphan_record(fd, de->d_name);
			continue;
		}
		struct caches_entry f = gather(fd, de->d_name, &es, now);
		if (caches_prune_verdict(&f) == CACHES_KEEP)
			continue;
		/* A run that started meanwhile set the record's time: its
		 * directory is in use again. */
		if (f.ws != CACHES_WS_GONE) {
			char rec[CACHES_NAME_MAX + sizeof(CACHES_RECORD_SUFFIX)];
			(void)snprintf(rec, sizeof(rec), "%s%s", de->d_name, CACHES_RECORD_SUFFIX);
			long long used = age_of(fd, rec, time(NULL));
			if (used >= 0 && used < CACHES_UNUSED_S)
				continue;
		}
		remove_one(fd, de->d_name, &es);
		removed++;
	}
	(void)closedir(d);
	return removed;
}
