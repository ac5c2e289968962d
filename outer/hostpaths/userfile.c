/* userfile.c: see userfile.h. */
#include "hostpaths/userfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "plan/walk.h"
#include "sys.h"

int userfile_dir(const char *flag, const char *path, int *dirfd, char **name,
		 struct cordon_err *e)
{
	const char *slash = strrchr(path, '/');
	const char *last = slash ? slash + 1 : path;
	*dirfd = -1;
	*name = NULL;
	if (!last[0] || strcmp(last, ".") == 0 || strcmp(last, "..") == 0)
		return err_set(e, EINVAL, "%s %s: name a file, not a directory", flag, path);
	char *dir = slash ? strndup(path, slash == path ? 1 : (size_t)(slash - path)) : strdup(".");
	char *n = strdup(last);
	if (!dir || !n) {
		free(dir);
		free(n);
		return err_set(e, ENOMEM, "out of memory");
	}
	/* Every directory on the way, not only FILE, may lie where an earlier
	 * run's command could write: a link it planted (DIR -> ~/.ssh) would
	 * send cordon's write elsewhere.  Opened as a writable root is
	 * (plan/walk.h): only root's links, and for a root caller only the
	 * system's own, are followed. */
	struct walk_link bad;
	int fd = walk_open(dir, geteuid() == 0 ? WALK_SYSTEM_LINKS : WALK_ROOT_LINKS, &bad);
	struct stat st;
	if (fd >= 0 && (fstat(fd, &st) < 0 || !S_ISDIR(st.st_mode))) {
		sys_close(&fd);
		fd = -ENOTDIR;
	}
	free(dir);
	if (fd == -EPERM) {
		free(n);
		if (bad.not_system)
			return err_set(e, EPERM, "%s %s: its directory goes through the symbolic link "
				       "%s; a root caller follows only the system's own links (directly "
				       "in /, /usr or /var), since a sandbox run as root owns the links "
				       "it plants: name the real directory", flag, path, bad.path);
		return err_set(e, EPERM, "%s %s: its directory goes through the symbolic link %s, "
			       "owned by uid %u; cordon follows only root's links (an earlier run "
			       "may have planted it): name the real directory", flag, path, bad.path,
			       (unsigned)bad.owner);
	}
	if (fd < 0) {
		free(n);
		return err_sys(e, -fd, "%s %s: cannot open its directory (it must exist)", flag, path);
	}
	*dirfd = fd;
	*name = n;
	return 0;
}

/* What was opened is what the caller meant: a regular file of theirs, with
 * this one name.  A hard link planted at FILE by the command is the same
 * inode as the file it points at (a .bashrc): more than one name refuses. */
static int userfile_check_own(const char *flag, const char *path, int fd, struct cordon_err *e)
{
	struct stat st;
	if (fstat(fd, &st) < 0)
		return err_sys(e, errno, "%s %s", flag, path);
	if (!S_ISREG(st.st_mode))
		return err_set(e, EINVAL, "%s %s: not a regular file; remove it or name another file",
			       flag, path);
	if (st.st_uid != geteuid())
		return err_set(e, EPERM, "%s %s: owned by uid %u, not by you (uid %u); remove it "
			       "or name another file", flag, path, (unsigned)st.st_uid,
			       (unsigned)geteuid());
	if (st.st_nlink != 1)
		return err_set(e, EMLINK, "%s %s: the file has %lu names (a hard link); remove it "
			       "or name another file", flag, path, (unsigned long)st.st_nlink);
	return 0;
}

int userfile_append(const char *flag, const char *path, int *fd, struct cordon_err *e)
{
	AUTO_FD dirfd = -1;
	char *name = NULL;
	*fd = -1;
	int r = userfile_dir(flag, path, &dirfd, &name, e);
	if (r < 0 || !name)
		return r < 0 ? r : -EINVAL;
	/* O_NOFOLLOW: a link at FILE fails (ELOOP), dangling or not.
	 * O_NONBLOCK: a FIFO without a reader fails at once (ENXIO) instead
	 * of blocking the run; with one, the check below refuses it. */
	AUTO_FD f = openat(dirfd, name, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_NONBLOCK |
				       O_NOCTTY | O_CLOEXEC, 0600);
	int err = errno;
	free(name);
	if (f < 0 && err == ELOOP)
		return err_set(e, ELOOP, "%s %s: a symbolic link; cordon does not write through one "
			       "(remove it or name another file)", flag, path);
	if (f < 0 && (err == ENXIO || err == EISDIR))
		return err_set(e, err, "%s %s: not a regular file; remove it or name another file",
			       flag, path);
	if (f < 0)
		return err_sys(e, err, "%s %s: cannot open it", flag, path);
	if ((r = userfile_check_own(flag, path, f, e)) < 0)
		return r;
	*fd = sys_take_fd(&f);
	return 0;
}
