/* inner_find.c: see inner_find.h. */
#include "launch/inner_find.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int helper_find(const char *name, int *fd, char path[PATH_MAX], struct cordon_err *e)
{
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n <= 0)
		return err_sys(e, errno, "cannot find my own binary through /proc/self/exe");
	self[n] = '\0';
	char *slash = strrchr(self, '/');
	if (!slash)
		return err_set(e, ENOENT, "cannot find my own directory");
	*slash = '\0';

	static const char *const rel[] = { "", "../libexec/cordon/" };
	for (size_t i = 0; i < sizeof(rel) / sizeof(rel[0]); i++) {
		int w = snprintf(path, PATH_MAX, "%s/%s%s", self, rel[i], name);
		if (w < 0 || w >= PATH_MAX)
			continue;
		int f = open(path, O_PATH | O_CLOEXEC);
		if (f < 0)
			continue;
		struct stat st;
		if (fstat(f, &st) == 0 && S_ISREG(st.st_mode) && (st.st_mode & S_IXUSR)) {
			*fd = f;
			return 0;
		}
		(void)close(f);
	}
	return err_set(e, ENOENT,
		       "%s not found in %s or %s/../libexec/cordon; reinstall cordon (make install)",
		       name, self, self);
}

int inner_find(int *fd, char path[PATH_MAX], struct cordon_err *e)
{
	return helper_find("cordon-inner", fd, path, e);
}
