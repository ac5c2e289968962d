/* registry.c: see registry.h.  Belongs here: finding, checking, opening and
 * locking the registry directory, and the facts about this boot that every
 * judgement of a record needs.  Record files: registry_io.c; the sweep:
 * registry_sweep.c. */
#include "hostpaths/registry.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>
#include "hostpaths/privdir.h"
#include "path.h"
#include "sys.h"

#define LOCK_NAME "lock"

/* --- locating and opening ------------------------------------------------ */

/* The registry path, and how many of its leading components must already
 * exist (the home directory, or the parent of $XDG_STATE_HOME): cordon
 * creates the state directories below them, never a home directory. */
static int registry_locate(char *out, size_t outlen, size_t *must_exist, struct cordon_err *e)
{
	char base[PATH_MAX], raw[PATH_MAX];
	const char *xdg = getenv("XDG_STATE_HOME");
	int n;

	/* The XDG spec says to ignore a relative value. */
	if (xdg && xdg[0] == '/') {
		if (path_clean(xdg, base, sizeof(base)) < 0)
			return err_set(e, ENAMETOOLONG, "XDG_STATE_HOME is too long");
		*must_exist = path_depth(base) ? path_depth(base) - 1 : 0;
		n = snprintf(raw, sizeof(raw), "%s/cordon/registry", base);
	} else {
		const char *home = getenv("HOME");
		if (!home || home[0] != '/') {
			struct passwd *pw = getpwuid(geteuid());
			home = pw ? pw->pw_dir : NULL;
		}
		if (!home || home[0] != '/')
			return err_set(e, ENOENT,
				       "cannot find the registry: HOME is not set and the user has no "
				       "home directory; set XDG_STATE_HOME to a directory of yours");
		if (path_clean(home, base, sizeof(base)) < 0)
			return err_set(e, ENAMETOOLONG, "HOME is too long");
		*must_exist = path_depth(base);
		n = snprintf(raw, sizeof(raw), "%s/.local/state/cordon/registry",
			     strcmp(base, "/") == 0 ? "" : base);
	}
	if (n < 0 || (size_t)n >= sizeof(raw) || path_clean(raw, out, outlen) < 0)
		return err_set(e, ENAMETOOLONG, "the registry path is too long");
	return 0;
}

/* The walk down to the registry (hostpaths/privdir.h). */
struct reg_walk {
	struct registry *reg;
	size_t depth;      /* the registry's own index */
	struct stat last;  /* what was checked last: the registry, at the end */
};

/* Check one opened component, "/" included, and keep it as an ancestor:
 * the registry's own must be the user's; above, the user's or root's, and
 * not writable by everyone (a sticky directory like /tmp excepted). */
static int check_component(void *ctx, const char *shown, const struct stat *st, size_t idx,
			   size_t prefix, struct cordon_err *e)
{
	struct reg_walk *w = ctx;
	struct registry *reg = w->reg;
	uid_t me = geteuid();
	int last = idx == w->depth;
	if (last ? st->st_uid != me : (st->st_uid != me && st->st_uid != 0))
		return err_set(e, EPERM,
			      "registry %s: %s is owned by someone else; set XDG_STATE_HOME to a "
			      "directory of yours", reg->path, shown);
	if (!last && (st->st_mode & S_IWOTH) && !(st->st_mode & S_ISVTX))
		return err_set(e, EPERM,
			      "registry %s: %s is writable by everyone; set XDG_STATE_HOME to a "
			      "directory of yours", reg->path, shown);
	reg->anc[reg->nanc++] = (struct registry_anc){ st->st_dev, st->st_ino, prefix };
	w->last = *st;
	return 0;
}

int registry_open(struct registry *reg, struct cordon_err *e)
{
	size_t must_exist = 0;
	int rc, missing = 0;

	*reg = (struct registry)REGISTRY_INIT;
	if ((rc = registry_locate(reg->path, sizeof(reg->path), &must_exist, e)) < 0) {
		reg->absent = rc == -ENOENT; /* no home: no registry either */
		return rc;
	}
	struct reg_walk rw = { reg, path_depth(reg->path), { 0 } };
	if (rw.depth > REGISTRY_MAX_DEPTH)
		return err_set(e, ENAMETOOLONG, "registry %s: too deep", reg->path);
	char what[sizeof(reg->path) + 16];
	(void)snprintf(what, sizeof(what), "registry %s", reg->path);
	/* Missing (and not to be created), no record can exist below: a run
	 * with nothing to materialize may go on without it. */
	struct privdir_walk w = {
		reg->path, must_exist, 1, what, "set XDG_STATE_HOME to a directory of yours",
		"set XDG_STATE_HOME to a path without any", check_component, &rw,
	};
	AUTO_FD cur = privdir_open(&w, &missing, e);
	if (cur < 0) {
		reg->absent = missing;
		return cur;
	}
	const struct stat st = rw.last;

	/* The registry itself, opened readable for readdir: "." of the O_PATH
	 * descriptor is the very directory just checked (st). */
	reg->dirfd = openat(cur, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (reg->dirfd < 0)
		return err_sys(e, errno, "registry %s: cannot open it", reg->path);
	if ((st.st_mode & 07777) != 0700 && fchmod(reg->dirfd, 0700) < 0) {
		int err = errno;
		registry_close(reg);
		return err_sys(e, err, "registry %s: cannot make it mode 0700 (chmod 700 it)", reg->path);
	}
	reg->dev = st.st_dev;
	reg->ino = st.st_ino;
	if ((rc = registry_reopen_lock(reg, e)) < 0) {
		registry_close(reg);
		return rc;
	}
	return 0;
}

int registry_reopen_lock(struct registry *reg, struct cordon_err *e)
{
	sys_close(&reg->lockfd);
	reg->locked = 0;
	reg->lockfd = openat(reg->dirfd, LOCK_NAME, O_RDWR | O_CREAT | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC, 0600);
	if (reg->lockfd < 0)
		return err_sys(e, errno, "registry %s: cannot open its lock file", reg->path);
	struct stat st;
	if (fstat(reg->lockfd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid()) {
		sys_close(&reg->lockfd);
		return err_set(e, EPERM, "registry %s: %s/" LOCK_NAME " is not a file of yours",
			       reg->path, reg->path);
	}
	return 0;
}

void registry_live_free(struct registry *reg)
{
	for (size_t i = 0; i < reg->nlive; i++)
		free(reg->live[i].path);
	free(reg->live);
	reg->live = NULL;
	reg->nlive = reg->caplive = 0;
}

void registry_close(struct registry *reg)
{
	registry_unlock(reg);
	sys_close(&reg->lockfd);
	sys_close(&reg->dirfd);
	registry_live_free(reg);
}

int registry_lock(struct registry *reg, struct cordon_err *e)
{
	if (reg->locked)
		return 0;
	while (flock(reg->lockfd, LOCK_EX) < 0)
		if (errno != EINTR)
			return err_sys(e, errno, "registry %s: cannot lock it", reg->path);
	reg->locked = 1;
	return 0;
}

void registry_unlock(struct registry *reg)
{
	if (!reg->locked)
		return;
	/* Closing the descriptor would release the lock as well. */
	(void)flock(reg->lockfd, LOCK_UN);
	reg->locked = 0;
}

/* --- facts about this boot and about processes ----------------------------- */

int registry_facts(struct registry *reg, struct cordon_err *e)
{
	if (reg->boot[0])
		return 0;
	char buf[REC_BOOT_LEN + 2];
	AUTO_FD fd = open("/proc/sys/kernel/random/boot_id", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return err_sys(e, errno, "cannot read /proc/sys/kernel/random/boot_id (is /proc mounted?)");
	ssize_t n = sys_read_full(fd, buf, sizeof(buf));
	if (n != REC_BOOT_LEN + 1 || buf[REC_BOOT_LEN] != '\n')
		return err_set(e, EIO, "unexpected contents in /proc/sys/kernel/random/boot_id");
	buf[REC_BOOT_LEN] = '\0';
	if (!record_boot_valid(buf))
		return err_set(e, EIO, "unexpected contents in /proc/sys/kernel/random/boot_id");
	struct stat st;
	if (stat("/proc/self/ns/pid", &st) < 0)
		return err_sys(e, errno, "cannot inspect /proc/self/ns/pid");
	memcpy(reg->boot, buf, sizeof(reg->boot));
	reg->pidns = (uint64_t)st.st_ino;
	return 0;
}

int registry_dup(const struct registry *from, struct registry *to, struct cordon_err *e)
{
	*to = (struct registry)REGISTRY_INIT;
	memcpy(to->path, from->path, sizeof(to->path));
	memcpy(to->boot, from->boot, sizeof(to->boot));
	to->pidns = from->pidns;
	to->dev = from->dev;
	to->ino = from->ino;
	/* A description of its own ("." anew, not dup), and a lock file of
	 * its own: an inherited one would share the other process's flock. */
	to->dirfd = openat(from->dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (to->dirfd < 0)
		return err_sys(e, errno, "registry %s: cannot open it", from->path);
	struct stat st;
	if (fstat(to->dirfd, &st) < 0 || st.st_dev != from->dev || st.st_ino != from->ino) {
		registry_close(to);
		return err_set(e, ESTALE, "registry %s: not the directory it was", from->path);
	}
	int rc = registry_reopen_lock(to, e);
	if (rc < 0)
		registry_close(to);
	return rc;
}

int registry_opendir(const struct registry *reg, DIR **out, struct cordon_err *e)
{
	int fd = openat(reg->dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	*out = fd >= 0 ? fdopendir(fd) : NULL;
	if (!*out) {
		int err = errno;
		sys_close(&fd);
		return err_sys(e, err, "registry %s: cannot read it", reg->path);
	}
	return 0;
}

int registry_count(const struct registry *reg, size_t *n, struct cordon_err *e)
{
	*n = 0;
	DIR *d = NULL;
	int rc = registry_opendir(reg, &d, e);
	if (!d)
		return rc;
	for (struct dirent *de; (de = readdir(d));)
		if (strncmp(de->d_name, REGISTRY_RECORD_PREFIX, strlen(REGISTRY_RECORD_PREFIX)) == 0)
			(*n)++;
	(void)closedir(d);
	return 0;
}
