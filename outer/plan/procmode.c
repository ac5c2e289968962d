/* procmode.c: see procmode.h. */
#include "plan/procmode.h"

#include <errno.h>
#include <string.h>

/* The mount point (field 5) of one mountinfo line, bounded by len. */
static int mount_point(const char *line, size_t len, const char **mp, size_t *mplen)
{
	const char *p = line, *end = line + len;
	for (int field = 0; field < 4; field++) {
		const char *sp = memchr(p, ' ', (size_t)(end - p));
		if (!sp)
			return -1;
		p = sp + 1;
	}
	const char *sp = memchr(p, ' ', (size_t)(end - p));
	*mp = p;
	*mplen = sp ? (size_t)(sp - p) : (size_t)(end - p);
	return 0;
}

int procmode_suspect(const char *mountinfo)
{
	static const char binfmt[] = "/proc/sys/fs/binfmt_misc";
	for (const char *l = mountinfo; l && *l;) {
		const char *nl = strchr(l, '\n');
		size_t len = nl ? (size_t)(nl - l) : strlen(l);
		const char *mp;
		size_t n;
		if (mount_point(l, len, &mp, &n) == 0 && n > 6 && memcmp(mp, "/proc/", 6) == 0 &&
		    !(n == sizeof(binfmt) - 1 && memcmp(mp, binfmt, n) == 0))
			return 1;
		l = nl ? nl + 1 : l + len;
	}
	return 0;
}

enum procmode_verdict procmode_verdict(int stage, int err)
{
	if (stage == PROCMODE_STAGE_DONE)
		return PROCMODE_FRESH_OK;
	if (stage == PROCMODE_STAGE_MOUNT && (err == EPERM || err == EACCES))
		return PROCMODE_FRESH_REFUSED;
	return PROCMODE_UNKNOWN;
}

void procmode_pick(enum pid_mode asked, enum procmode_verdict v, int *inherit)
{
	if (asked == PID_AUTO)
		*inherit = v == PROCMODE_FRESH_REFUSED;
	else
		*inherit = asked == PID_INHERIT;
}

const char *procmode_verdict_words(enum procmode_verdict v)
{
	switch (v) {
	case PROCMODE_NOT_PROBED:
		return "nothing is mounted over /proc (not probed)";
	case PROCMODE_FRESH_OK:
		return "a fresh proc mounts in a new user namespace";
	case PROCMODE_FRESH_REFUSED:
		return "the kernel refuses a fresh proc in a new user namespace (/proc has "
		       "masked or read-only entries mounted over it, as in a container)";
	case PROCMODE_UNKNOWN:
		return "unknown: the probe could not make its namespaces";
	}
	return "unknown";
}
