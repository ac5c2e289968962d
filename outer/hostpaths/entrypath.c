/* entrypath.c: see entrypath.h. */
#include "hostpaths/entrypath.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "config.h"
#include "sys.h"

/* The next component of *p (skipping one '/'), copied into comp.  1 when
 * there is one, 0 at the end, -EINVAL for an empty, ".", ".." or too long
 * one: a clean absolute path is all a record may hold. */
static int next_component(const char **p, char comp[NAME_MAX + 1])
{
	if (**p == '\0')
		return 0;
	if (**p != '/')
		return -EINVAL;
	const char *s = ++*p;
	size_t len = strcspn(s, "/");
	if (len == 0 || len > NAME_MAX || (len == 1 && s[0] == '.') ||
	    (len == 2 && s[0] == '.' && s[1] == '.'))
		return -EINVAL;
	memcpy(comp, s, len);
	comp[len] = '\0';
	*p = s + len;
	return 1;
}

/* The kernel's struct statx (include/uapi/linux/stat.h) is 256 bytes, with
 * stx_mask at 0 and stx_btime (__s64 tv_sec, __u32 tv_nsec) at 0x50: musl
 * 1.2.3 has neither statx() nor the struct, and <linux/stat.h> clashes with
 * its <sys/stat.h>, so the fields are read from the buffer. */
#define KSTATX_SIZE 256
#define KSTATX_BTIME 0x800U
#define KSTATX_BTIME_OFF 0x50

/* Birth time of an open file (statx STATX_BTIME), if the filesystem keeps
 * one. */
static void birth_time(int fd, struct path_fact *f)
{
	_Alignas(8) unsigned char buf[KSTATX_SIZE];
	uint32_t mask, nsec;
	int64_t sec;
	memset(buf, 0, sizeof(buf));
	if (syscall(SYS_statx, fd, "", AT_EMPTY_PATH, KSTATX_BTIME, buf) != 0)
		return;
	memcpy(&mask, buf, sizeof(mask));
	if (!(mask & KSTATX_BTIME))
		return;
	memcpy(&sec, buf + KSTATX_BTIME_OFF, sizeof(sec));
	memcpy(&nsec, buf + KSTATX_BTIME_OFF + sizeof(sec), sizeof(nsec));
	f->has_btime = 1;
	f->btime.sec = sec;
	f->btime.nsec = nsec;
}

/* Emptiness of the directory at parent/name, opened without following a
 * link and checked to be the object lstat saw (dev, ino). */
static void look_inside(struct entrypath *h, const struct stat *st, struct path_fact *f)
{
	int fd = openat(h->parent, h->name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return; /* emptiness unknown: is_empty stays 0 and it is kept */
	struct stat dst;
	if (fstat(fd, &dst) < 0 || dst.st_dev != st->st_dev || dst.st_ino != st->st_ino) {
		sys_close(&fd);
		return;
	}
	birth_time(fd, f);
	DIR *d = fdopendir(fd);
	if (!d) {
		sys_close(&fd);
		return;
	}
	struct dirent *de;
	int any = 0;
	errno = 0;
	while ((de = readdir(d)))
		if (strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0) {
			any = 1;
			break;
		}
	f->is_empty = !any && errno == 0;
	(void)closedir(d);
}

int entrypath_look(const char *path, int trusted, struct entrypath *h, struct path_fact *f)
{
	char comp[NAME_MAX + 1];
	memset(f, 0, sizeof(*f));
	*h = (struct entrypath)ENTRYPATH_INIT;
	if (path[0] != '/')
		return -EINVAL;
	int cur = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (cur < 0)
		return -errno;
	const char *p = path;
	int r = next_component(&p, comp);
	if (r <= 0) {
		sys_close(&cur);
		return -EINVAL; /* "/" itself is nobody's mount point */
	}
	/* Walk the directories above the last component. */
	for (;;) {
		const char *last = p;
		char nextc[NAME_MAX + 1];
		r = next_component(&p, nextc);
		if (r < 0) {
			sys_close(&cur);
			return r;
		}
		if (r == 0) {
			p = last;
			break;
		}
		int fd = openat(cur, comp, O_PATH | O_NOFOLLOW | O_DIRECTORY | O_CLOEXEC);
		if (fd < 0) {
			int err = errno;
			struct stat lst;
			if ((err == ENOTDIR || err == ELOOP) &&
			    fstatat(cur, comp, &lst, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(lst.st_mode)) {
				/* Through a link it is not the path the run had. */
				f->exists = 1;
				f->via_link = 1;
				err = 0;
			} else if (err == ENOENT || err == ENOTDIR) {
				err = 0; /* the way is gone, and with it the path */
			}
			sys_close(&cur);
			return -err;
		}
		sys_close(&cur);
		cur = fd;
		memcpy(comp, nextc, sizeof(comp));
	}
	h->parent = cur;
	h->name = strrchr(path, '/') + 1;
	f->name_ok = trusted || config_is_default_name(h->name);
	struct stat st;
	if (fstatat(h->parent, h->name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return errno == ENOENT ? 0 : -errno;
	f->exists = 1;
	f->dev = st.st_dev;
	f->ino = st.st_ino;
	f->is_dir = S_ISDIR(st.st_mode);
	f->is_reg = S_ISREG(st.st_mode);
	h->dev = st.st_dev;
	h->ino = st.st_ino;
	if (f->is_dir)
		look_inside(h, &st, f);
	return 0;
}

int entrypath_remove(const struct entrypath *h)
{
	struct stat st;
	if (h->parent < 0 || !h->name)
		return -EINVAL;
	/* The name may have been swapped since the look: then it is not the
	 * directory the verdict was about. */
	if (fstatat(h->parent, h->name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return -errno;
	if (!S_ISDIR(st.st_mode) || st.st_dev != h->dev || st.st_ino != h->ino)
		return -ESTALE;
	/* Another sandbox, of any registry (root's, another XDG_STATE_HOME's),
	 * may bind this directory: it holds a shared flock on it for as long
	 * as its bwrap runs (protect.c, hold_bound).  rmdir on the host would
	 * detach that mount there, and its command could then create the
	 * name.  The exclusive lock is kept over the rmdir: a run starting to
	 * bind it meanwhile waits, then finds it unlinked and refuses.  A
	 * directory this user cannot read cannot have been locked through
	 * cordon by anyone who could not also remove it. */
	AUTO_FD held = openat(h->parent, h->name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (held >= 0) {
		struct stat hs;
		if (fstat(held, &hs) < 0 || hs.st_dev != h->dev || hs.st_ino != h->ino)
			return -ESTALE;
		if (flock(held, LOCK_EX | LOCK_NB) < 0)
			return errno == EWOULDBLOCK ? -EBUSY : -errno;
	}
	/* rmdir only: it removes nothing but an empty directory. */
	if (unlinkat(h->parent, h->name, AT_REMOVEDIR) < 0)
		return -errno;
	return 0;
}

#define UNBOUND_STEP_MIN_MS 20
#define UNBOUND_STEP_MAX_MS 1000

int entrypath_wait_unbound(const char *path, uint64_t dev, uint64_t ino, long timeout_ms)
{
	struct stat st;
	/* Only a lock is taken and dropped: nothing is changed through a path
	 * read from a record. */
	AUTO_FD fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0 || ((dev || ino) && (st.st_dev != dev || st.st_ino != ino)))
		return -ESTALE;
	/* Tried, not waited for in flock: a holder that never lets go (a
	 * process a crash left behind) must not keep the caller forever. */
	long waited = 0, step = UNBOUND_STEP_MIN_MS;
	for (;;) {
		if (flock(fd, LOCK_EX | LOCK_NB) == 0) {
			(void)flock(fd, LOCK_UN);
			return waited > 0;
		}
		if (errno != EWOULDBLOCK && errno != EINTR)
			return -errno;
		if (waited >= timeout_ms)
			return -ETIMEDOUT;
		sys_sleep_ms(step);
		waited += step;
		step = step * 2 > UNBOUND_STEP_MAX_MS ? UNBOUND_STEP_MAX_MS : step * 2;
	}
}

void entrypath_close(struct entrypath *h)
{
	sys_close(&h->parent);
	h->name = NULL;
}
