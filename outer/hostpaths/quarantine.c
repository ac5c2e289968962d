/* quarantine.c: see quarantine.h. */
#include "hostpaths/quarantine.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
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
