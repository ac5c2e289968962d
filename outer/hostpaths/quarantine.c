/* quarantine.c: see quarantine.h. */
#include "hostpaths/quarantine.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef RENAME_NOREPLACE
#define RENAME_NOREPLACE 1
#endif

int quarantine_move(int dirfd, const char *name, const char *tag, char *moved, size_t len)
{
	for (int i = 1; i < 100; i++) {
		int n = i == 1 ? snprintf(moved, len, "%s.cordon-quarantine-%s", name, tag)
			       : snprintf(moved, len, "%s.cordon-quarantine-%s-%d", name, tag, i);
		if (n < 0 || (size_t)n >= len)
			return -ENAMETOOLONG;
		/* musl has no renameat2() wrapper.  NOREPLACE: never over an
		 * entry that is there already. */
		if (syscall(SYS_renameat2, dirfd, name, dirfd, moved, RENAME_NOREPLACE) == 0)
			return 0;
		if (errno == EINVAL) {
			/* A filesystem without RENAME_NOREPLACE: look first
			 * (a race only with someone creating that very name). */
			struct stat st;
			if (fstatat(dirfd, moved, &st, AT_SYMLINK_NOFOLLOW) == 0)
				continue;
			if (errno != ENOENT)
				return -errno;
			return renameat(dirfd, name, dirfd, moved) == 0 ? 0 : -errno;
		}
		if (errno != EEXIST)
			return -errno;
	}
	return -EEXIST;
}

/* struct statx as far as needed (musl 1.2.3 has none; see entrypath.c):
 * stx_mask at 0, stx_btime at 0x50, stx_ctime at 0x80, 256 bytes. */
#define KSTATX_SIZE 256
#define KSTATX_BTIME 0x800U
#define KSTATX_CTIME 0x80U
#define KSTATX_BTIME_OFF 0x50
#define KSTATX_CTIME_OFF 0x80

int quarantine_time(int dirfd, const char *name, int flags, int64_t *sec, uint32_t *nsec)
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

int quarantine_born_since(int dirfd, const char *name, int64_t sec, uint32_t nsec)
{
	int64_t ts = 0;
	uint32_t tn = 0;
	int r = quarantine_time(dirfd, name, 0, &ts, &tn);
	if (r == -ENOENT || r == -ENODATA)
		return 0;
	if (r < 0)
		return r;
	return ts > sec || (ts == sec && tn >= nsec);
}
