/* probe.c: a small static program the integration tests run inside the
 * sandbox to look at it from the inside (crun's tests/init.c idea).
 *   probe fds        print each open descriptor number, one per line
 *   probe procwrite  print every file under /proc (outside per-process
 *                    directories) that opens for writing; nothing if none
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <unistd.h>

static int fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	if (!d)
		return 2;
	int self = dirfd(d);
	struct dirent *de;
	while ((de = readdir(d)))
		if (de->d_name[0] != '.' && atoi(de->d_name) != self)
			printf("%s\n", de->d_name);
	closedir(d);
	return 0;
}

static int numeric(const char *s)
{
	for (; *s; s++)
		if (*s < '0' || *s > '9')
			return 0;
	return 1;
}

static void walk(const char *dir, int depth, int *found)
{
	if (depth > 6)
		return;
	DIR *d = opendir(dir);
	if (!d)
		return;
	struct dirent *de;
	while ((de = readdir(d))) {
		const char *n = de->d_name;
		if (!strcmp(n, ".") || !strcmp(n, ".."))
			continue;
		if (depth == 0 && (numeric(n) || !strcmp(n, "self") || !strcmp(n, "thread-self")))
			continue;
		char path[4096];
		snprintf(path, sizeof(path), "%s/%s", dir, n);
		struct stat st;
		if (lstat(path, &st) < 0)
			continue;
		if (S_ISDIR(st.st_mode)) {
			walk(path, depth + 1, found);
		} else if (S_ISREG(st.st_mode)) {
			int fd = open(path, O_WRONLY | O_NONBLOCK | O_CLOEXEC);
			if (fd >= 0) {
				printf("%s\n", path);
				(*found)++;
				close(fd);
			}
		}
	}
	closedir(d);
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return 2;
	if (!strcmp(argv[1], "fds"))
		return fds();
	if (!strcmp(argv[1], "procwrite")) {
		int found = 0;
		walk("/proc", 0, &found);
		return found ? 1 : 0;
	}
	return 2;
}
