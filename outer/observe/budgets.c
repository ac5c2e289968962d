/* budgets.c: see budgets.h. */
#include "observe/budgets.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>
#include "plan/shared_counts.h"
#include "sys.h"

static const char *const ucount_names[SHARED_UCOUNTS_N] = {
	"inotify instances", "inotify watches", "fanotify groups", "fanotify marks",
};
static const char *const ucount_raise[SHARED_UCOUNTS_N] = {
	"sysctl fs.inotify.max_user_instances=N", "sysctl fs.inotify.max_user_watches=N",
	"sysctl fs.fanotify.max_user_groups=N", "sysctl fs.fanotify.max_user_marks=N",
};
static const char *const rlimit_names[SHARED_COUNTS_N] = {
	"pending signals", "message-queue bytes", "locked-memory bytes",
};
static const char *const rlimit_raise[SHARED_COUNTS_N] = {
	"ulimit -i", "ulimit -q", "ulimit -l",
};

static int read_ulong(const char *path, unsigned long long *out)
{
	char buf[32];
	AUTO_FD fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n = fd < 0 ? -1 : sys_read_full(fd, buf, sizeof(buf) - 1);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	char *end;
	errno = 0;
	*out = strtoull(buf, &end, 10);
	return errno || end == buf ? -1 : 0;
}

void budgets_read(struct budget b[BUDGETS_N])
{
	size_t k = 0;
	for (size_t i = 0; i < SHARED_UCOUNTS_N; i++, k++) {
		b[k] = (struct budget){ ucount_names[i], ucount_raise[i], 0, 0, 0 };
		if (read_ulong(shared_ucount_files[i], &b[k].limit) == 0) {
			b[k].known = 1;
			b[k].sandbox = shared_counts_budget(b[k].limit, shared_ucount_caps[i]);
		}
	}
	for (size_t i = 0; i < SHARED_COUNTS_N; i++, k++) {
		struct rlimit own;
		b[k] = (struct budget){ rlimit_names[i], rlimit_raise[i], 0, 0, 0 };
		if (getrlimit(shared_counts_resources[i], &own) < 0)
			continue;
		b[k].known = 1;
		b[k].limit = own.rlim_cur == RLIM_INFINITY ? ULLONG_MAX : own.rlim_cur;
		struct rlimit s = shared_counts_rlimit(i, own);
		b[k].sandbox = s.rlim_cur == RLIM_INFINITY ? ULLONG_MAX : s.rlim_cur;
	}
}

/* The inotify descriptors of one process: its fd links that name
 * anon_inode:inotify.  A process that ends meanwhile counts for nothing. */
static long inotify_of(int procfd, const char *pid)
{
	char path[64];
	(void)snprintf(path, sizeof(path), "%s/fd", pid);
	int fd = openat(procfd, path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	DIR *d = fdopendir(fd);
	if (!d) {
		(void)close(fd);
		return 0;
	}
	long n = 0;
	struct dirent *de;
	while ((de = readdir(d))) {
		char target[64];
		ssize_t l = readlinkat(dirfd(d), de->d_name, target, sizeof(target) - 1);
		if (l <= 0)
			continue;
		target[l] = '\0';
		n += strcmp(target, "anon_inode:inotify") == 0;
	}
	(void)closedir(d);
	return n;
}

long budgets_inotify_in_use(void)
{
	AUTO_FD procfd = open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (procfd < 0)
		return -1;
	int dupfd = fcntl(procfd, F_DUPFD_CLOEXEC, 3);
	DIR *d = dupfd < 0 ? NULL : fdopendir(dupfd);
	if (!d) {
		if (dupfd >= 0)
			(void)close(dupfd);
		return -1;
	}
	uid_t me = getuid();
	long n = 0;
	struct dirent *de;
	while ((de = readdir(d))) {
		struct stat st;
		if (de->d_name[0] < '1' || de->d_name[0] > '9' ||
		    fstatat(procfd, de->d_name, &st, 0) < 0 || st.st_uid != me)
			continue;
		n += inotify_of(procfd, de->d_name);
	}
	(void)closedir(d);
	return n;
}
