/* gitaudit.c: see gitaudit.h.  Belongs here: the verdicts on one entry. */
#include "plan/gitaudit.h"

#include <string.h>
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

int gitaudit_pass(const char *name, int dir_changed, int may_be_dir)
{
	if (strcmp(name, ".") == 0 || strcmp(name, "..") == 0 ||
	    strncmp(name, ".cordon-quarantine-", 19) == 0)
		return 1;
	/* Only a directory that changed can hold a new entry (an entry is
	 * added, removed or renamed only by changing its directory). */
	return !dir_changed && !may_be_dir;
}

const char *gitaudit_look(const struct gitaudit_seen *s, const struct timespec *since,
			  uid_t caller, int depth, int *walk)
{
	*walk = 0;
	if (gitaudit_changed(&s->ctime, since)) {
		const char *why = gitaudit_kind(s, caller);
		if (!why && S_ISDIR(s->mode) && depth + 1 > GITAUDIT_MAX_DEPTH)
			why = "it nests deeper than cordon checks";
		if (why)
			return why;
	}
	*walk = S_ISDIR(s->mode) && depth + 1 <= GITAUDIT_MAX_DEPTH;
	return NULL;
}

struct timespec gitaudit_since(const struct timespec *now, int coarse)
{
	return (struct timespec){ now->tv_sec, coarse ? 0 : now->tv_nsec };
}
