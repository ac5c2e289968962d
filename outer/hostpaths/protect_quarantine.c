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

static int move(int dirfd, const char *name, int shorter, char *moved, size_t len)
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

int protect_quarantine_move(int dirfd, const char *name, char *moved, size_t len)
{
	return move(dirfd, name, 0, moved, len);
}

int protect_quarantine_hide(int dirfd, const char *name, char *moved, size_t len)
{
	return move(dirfd, name, 1, moved, len);
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
