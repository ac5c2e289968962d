/* protect_quarantine.c: see protect_quarantine.h. */
#include "hostpaths/protect_quarantine.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "sys.h"

#ifndef RENAME_NOREPLACE
#define RENAME_NOREPLACE 1
#endif

/* rename(2) of name to moved in dirfd, never over an existing entry. */
static int rename_noreplace(int dirfd, const char *name, const char *moved)
{
	/* musl has no renameat2() wrapper. */
	if (syscall(SYS_renameat2, dirfd, name, dirfd, moved, RENAME_NOREPLACE) == 0)
		return 0;
	if (errno != EINVAL)
		return -errno;
	/* A filesystem without RENAME_NOREPLACE: look first (a race only with
	 * someone creating that very random name). */
	struct stat st;
	if (fstatat(dirfd, moved, &st, AT_SYMLINK_NOFOLLOW) == 0)
		return -EEXIST;
	if (errno != ENOENT)
		return -errno;
	return renameat(dirfd, name, dirfd, moved) == 0 ? 0 : -errno;
}

/* The longer form could not be made, but a shorter entry may be. */
static int try_shorter(int err)
{
	return err == -ENAMETOOLONG || err == -ENOSPC || err == -EDQUOT;
}

/* The loop itself: fresh random names until one is free (shorter: the
 * dotted .cordon-quarantine-RANDOM from the start). */
static int move_in(int dirfd, const char *name, int shorter, char *moved, size_t len)
{
	/* No fixed bound: every name that is taken is a fresh guess out of
	 * 2^64, so a run of EEXIST ends at once unless the filesystem lies. */
	for (;;) {
		/* A name no process can predict, so none can have made it in
		 * advance. */
		char rnd[17];
		int r = sys_random_hex(rnd, 8);
		if (r < 0)
			return r;
		int n = shorter ? snprintf(moved, len, ".cordon-quarantine-%s", rnd)
				: snprintf(moved, len, "%s.cordon-quarantine-%s", name, rnd);
		if (n < 0 || (size_t)n >= len || (size_t)n > NAME_MAX) {
			if (shorter)
				return -ENAMETOOLONG;
			shorter = 1;
			continue;
		}
		r = rename_noreplace(dirfd, name, moved);
		if (r == 0)
			return 0;
		if (r == -EEXIST)
			continue;
		if (!shorter && try_shorter(r)) {
			shorter = 1;
			continue;
		}
		return r;
	}
}

/* chmod of the very inode an O_PATH descriptor holds: through its /proc
 * link, never a path that could be swapped. */
static int chmod_fd(int fd, mode_t mode)
{
	char link[64];
	(void)snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	return chmod(link, mode) == 0 ? 0 : -errno;
}

/* Owner write and search permission: what a rename in a directory needs;
 * a look into it, or a step through it, needs search alone. */
#define OWNER_WX (S_IWUSR | S_IXUSR)
#define OWNER_X S_IXUSR

/* The command runs as the caller and may chmod (or setfacl u::, the same
 * bits) any directory of its writable roots it owns, to keep cordon out of
 * it: a writable root at 0555 refused the rename with EACCES, run after run.
 * Such a directory is the caller's, so cordon, the caller too, gives its
 * owner write and search permission (need: OWNER_WX or OWNER_X) back for
 * the time of the move; one that is not the caller's the command cannot
 * chmod either.  1 with *was the mode to put back, 0 when nothing was
 * changed, or -errno. */
static int open_up(int dirfd, mode_t need, mode_t *was)
{
	struct stat st;
	if (fstat(dirfd, &st) < 0)
		return -errno;
	if (!S_ISDIR(st.st_mode) || st.st_uid != geteuid() || (st.st_mode & need) == need)
		return 0;
	*was = st.st_mode & 07777;
	int r = chmod_fd(dirfd, *was | need);
	return r < 0 ? r : 1;
}

/* The mode the directory had, back: cordon changes nothing of the
 * caller's but the name it moves. */
static void put_back(int dirfd, int opened, mode_t was)
{
	if (opened == 1 && chmod_fd(dirfd, was) < 0) {
		/* Left with the owner permission added: said nowhere, and
		 * harmless (the owner could add them at any time). */
	}
}

/* The move, and once more through open_up when the directory's mode
 * refused it. */
static int move_opened(int dirfd, const char *name, int shorter, char *moved, size_t len)
{
	int r = move_in(dirfd, name, shorter, moved, len);
	mode_t was = 0;
	if (r != -EACCES)
		return r;
	int opened = open_up(dirfd, OWNER_WX, &was);
	if (opened != 1)
		return r;
	r = move_in(dirfd, name, shorter, moved, len);
	put_back(dirfd, opened, was);
	return r;
}

int protect_quarantine_move(int dirfd, const char *name, char *moved, size_t len)
{
	return move_opened(dirfd, name, 0, moved, len);
}

int protect_quarantine_hide(int dirfd, const char *name, char *moved, size_t len)
{
	return move_opened(dirfd, name, 1, moved, len);
}

/* fstatat of name, not following it, through open_up when the directory
 * refuses the look (no search permission for its owner). */
static int look(int dirfd, const char *name, struct stat *st)
{
	if (fstatat(dirfd, name, st, AT_SYMLINK_NOFOLLOW) == 0)
		return 0;
	if (errno != EACCES)
		return -errno;
	mode_t was = 0;
	int opened = open_up(dirfd, OWNER_X, &was), r = -EACCES;
	if (opened == 1)
		r = fstatat(dirfd, name, st, AT_SYMLINK_NOFOLLOW) == 0 ? 0 : -errno;
	put_back(dirfd, opened, was);
	return r;
}

int protect_quarantine_open_dir(const char *path)
{
	int fd = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0)
		return fd;
	if (errno != EACCES || path[0] != '/')
		return -errno;
	char buf[PATH_MAX];
	if (snprintf(buf, sizeof(buf), "%s", path) >= (int)sizeof(buf))
		return -ENAMETOOLONG;
	int cur = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (cur < 0)
		return -errno;
	char *save = NULL;
	for (char *c = strtok_r(buf, "/", &save); c; c = strtok_r(NULL, "/", &save)) {
		/* Step by step, never through a link: the path is one
		 * cordon resolved, with none on it. */
		int next = openat(cur, c, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		int err = next < 0 ? errno : 0;
		if (err == EACCES) {
			mode_t was = 0;
			int opened = open_up(cur, OWNER_X, &was);
			if (opened == 1) {
				next = openat(cur, c, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
				err = next < 0 ? errno : 0;
			}
			put_back(cur, opened, was);
		}
		(void)close(cur);
		if (next < 0)
			return -err;
		cur = next;
	}
	return cur;
}

int protect_quarantine_disarm(int dirfd, const char *name)
{
	mode_t was = 0;
	int opened = 0;
	int fd = openat(dirfd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 && errno == EACCES && (opened = open_up(dirfd, OWNER_X, &was)) == 1)
		fd = openat(dirfd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	int r = fd < 0 ? -errno : 0;
	put_back(dirfd, opened, was);
	struct stat st;
	if (r == 0 && fstat(fd, &st) < 0)
		r = -errno;
	/* A symbolic link has no mode of its own, and chmod through it would
	 * reach whatever it names; another user's entry is not the caller's
	 * to change. */
	else if (r == 0 && (S_ISLNK(st.st_mode) || st.st_uid != geteuid()))
		r = -EPERM;
	else if (r == 0 && (st.st_mode & 07777) != 0)
		r = chmod_fd(fd, 0);
	if (fd >= 0)
		(void)close(fd);
	return r;
}

int protect_quarantine_take(int dirfd, const char *name, const struct protect_quarantine_keep *keep,
			    int last, struct protect_quarantine_took *t)
{
	struct stat st;
	*t = (struct protect_quarantine_took){ .err = 0 };
	int r = look(dirfd, name, &st);
	if (r == -ENOENT)
		return 0;
	if (r == 0 && keep && st.st_dev == keep->dev && st.st_ino == keep->ino)
		return 0;
	t->mode = r == 0 ? st.st_mode : 0;
	t->err = r == 0 ? protect_quarantine_move(dirfd, name, t->moved, sizeof(t->moved)) : r;
	if (t->err == -ENOENT)
		return 0;
	if (t->err < 0 && last)
		t->disarmed = protect_quarantine_disarm(dirfd, name) == 0;
	return 1;
}

/* struct statx as far as needed (musl 1.2.3 has none; see entrypath.c):
 * stx_mask at 0, stx_btime at 0x50, stx_ctime at 0x80, 256 bytes. */
#define KSTATX_SIZE 256
#define KSTATX_BTIME 0x800U
#define KSTATX_CTIME 0x80U
#define KSTATX_BTIME_OFF 0x50
#define KSTATX_CTIME_OFF 0x80

int protect_quarantine_time(int dirfd, const char *name, int flags, int64_t *sec, uint32_t *nsec)
{
	_Alignas(8) unsigned char buf[KSTATX_SIZE];
	uint32_t mask;
	memset(buf, 0, sizeof(buf));
	if (syscall(SYS_statx, dirfd, name, flags | AT_SYMLINK_NOFOLLOW,
		    KSTATX_BTIME | KSTATX_CTIME, buf) != 0)
		return -errno;
	memcpy(&mask, buf, sizeof(mask));
	if (!(mask & (KSTATX_BTIME | KSTATX_CTIME)))
		return -ENODATA;
	size_t off = (mask & KSTATX_BTIME) ? KSTATX_BTIME_OFF : KSTATX_CTIME_OFF;
	memcpy(sec, buf + off, sizeof(*sec));
	memcpy(nsec, buf + off + sizeof(*sec), sizeof(*nsec));
	return 0;
}
