/* procstat.c: see procstat.h. */
#include "procstat.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "sys.h"

ssize_t procstat_read(int dirfd, pid_t pid, char *buf, size_t len)
{
	int fd;
	if (len < 2)
		return -EINVAL;
	if (dirfd >= 0) {
		fd = openat(dirfd, "stat", O_RDONLY | O_CLOEXEC);
	} else {
		char path[32];
		if (pid <= 0)
			return -ESRCH;
		(void)snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
		fd = open(path, O_RDONLY | O_CLOEXEC);
	}
	if (fd < 0)
		return errno == ENOENT || errno == ESRCH ? -ESRCH : -errno;
	ssize_t n = sys_read_full(fd, buf, len - 1);
	sys_close(&fd);
	if (n <= 0)
		return n == 0 ? -ESRCH : n;
	buf[n] = '\0';
	return n;
}

/* The fields after the command name (field 2), which may hold spaces and
 * parentheses: they start after the last ')'. */
static const char *after_comm(const char *stat)
{
	const char *p = strrchr(stat, ')');
	return p && p[1] == ' ' && p[2] ? p + 2 : NULL;
}

char procstat_state(const char *stat)
{
	const char *p = after_comm(stat);
	if (!p || (p[1] != ' ' && p[1] != '\0' && p[1] != '\n'))
		return 0;
	return p[0];
}

int procstat_field(const char *stat, int field, unsigned long long *out)
{
	const char *p = after_comm(stat);
	if (!p || field < 4)
		return -1;
	for (int f = 3; f < field; f++) {
		p = strchr(p, ' ');
		if (!p)
			return -1;
		p++;
	}
	if (*p < '0' || *p > '9')
		return -1;
	char *end = NULL;
	errno = 0;
	unsigned long long v = strtoull(p, &end, 10);
	if (errno || (*end != ' ' && *end != '\n' && *end != '\0'))
		return -1;
	*out = v;
	return 0;
}

int procstat_start(pid_t pid, uint64_t *start)
{
	char buf[1024];
	unsigned long long v;
	ssize_t n = procstat_read(-1, pid, buf, sizeof(buf));
	if (n < 0)
		return (int)n;
	char state = procstat_state(buf);
	if (state == 'Z' || state == 'X')
		return -ESRCH;
	if (!state || procstat_field(buf, 22, &v) < 0)
		return -EINVAL;
	*start = v;
	return 0;
}
