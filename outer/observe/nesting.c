/* nesting.c: see nesting.h. */
#include "observe/nesting.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "sys.h"

int nesting_inside_cordon(const char *pid1_comm, uint64_t userns_ino)
{
	if (!pid1_comm || userns_ino == 0 || userns_ino == NESTING_INIT_USERNS_INO)
		return 0;
	return strcmp(pid1_comm, "cordon-inner\n") == 0 || strcmp(pid1_comm, "cordon-inner") == 0;
}

int nesting_check(struct cordon_err *e)
{
	char comm[32];
	struct stat st;
	if (stat("/proc/self/ns/user", &st) < 0)
		return 0; /* no /proc: the checks that need it say so */
	AUTO_FD fd = open("/proc/1/comm", O_RDONLY | O_CLOEXEC);
	ssize_t n = fd >= 0 ? sys_read_full(fd, comm, sizeof(comm) - 1) : -1;
	if (n <= 0)
		return 0;
	comm[n] = '\0';
	if (!nesting_inside_cordon(comm, (uint64_t)st.st_ino))
		return 0;
	return err_set(e, EPERM, "cordon is running inside a cordon sandbox, and nesting is not "
		       "supported (the sandbox refuses new user namespaces); run the command "
		       "directly, it is sandboxed already");
}
