/* unit_util.h: helpers several Criterion test files share (static, so each
 * test binary gets its own copy; no test_*.c name, so it is not a test). */
#ifndef CORDON_UNIT_UTIL_H
#define CORDON_UNIT_UTIL_H

#include <criterion/criterion.h>
#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

/* A SOCK_SEQPACKET socketpair, the kind cordon and cordon-inner talk over. */
static inline void pair(int sv[2])
{
	cr_assert_eq(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv), 0);
}

/* Descriptors open in this process (to prove none leaked). */
static inline int count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	cr_assert_not_null(d);
	int n = 0;
	struct dirent *de;
	while ((de = readdir(d)) != NULL)
		if (de->d_name[0] != '.')
			n++;
	closedir(d);
	return n - 1; /* the directory's own descriptor */
}

/* A new directory /tmp/cordon-NAME.XXXXXX; its real path into top
 * (PATH_MAX bytes). */
static inline void scratch_dir(char *top, const char *name)
{
	char tmpl[PATH_MAX];
	(void)snprintf(tmpl, sizeof(tmpl), "/tmp/cordon-%s.XXXXXX", name);
	cr_assert_not_null(mkdtemp(tmpl));
	cr_assert_not_null(realpath(tmpl, top));
}

/* rm -rf path: a test's scratch tree, whatever the test left in it. */
static inline void rm_rf(const char *path)
{
	char *argv[] = { "rm", "-rf", (char *)path, NULL };
	pid_t c = fork();
	if (c == 0) {
		execvp("rm", argv);
		_exit(127);
	}
	(void)waitpid(c, NULL, 0);
}

#endif
