/* gitaudit.c: see gitaudit.h.  Belongs here: the verdicts on one entry. */
#include "plan/gitaudit.h"

#include <sys/stat.h>

int gitaudit_changed(const struct timespec *ctime, const struct timespec *since)
{
	return ctime->tv_sec > since->tv_sec ||
	       (ctime->tv_sec == since->tv_sec && ctime->tv_nsec >= since->tv_nsec);
}

const char *gitaudit_kind(const struct gitaudit_seen *s, uid_t caller)
{
	if (s->uid != caller)
		return "it belongs to another user";
	if (S_ISDIR(s->mode))
		return NULL;
	if (S_ISLNK(s->mode))
		return "it is a symbolic link, which a host git would follow";
	if (S_ISFIFO(s->mode))
		return "it is a FIFO, on which a host git would block";
	if (S_ISSOCK(s->mode))
		return "it is a socket";
	if (!S_ISREG(s->mode))
		return "it is a device";
	if (s->nlink != 1 && !s->in_objects)
		return "it is a file with another name (a hard link), which a host git "
		       "would write through";
	return NULL;
}

struct timespec gitaudit_since(const struct timespec *now, int coarse)
{
	return (struct timespec){ now->tv_sec, coarse ? 0 : now->tv_nsec };
}
