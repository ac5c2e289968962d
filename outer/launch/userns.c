/* userns.c: see userns.h. */
#include "launch/userns.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "procstat.h"
#include "sys.h"

pid_t userns_parse_child_pid(const char *json)
{
	const char *k = strstr(json, "\"child-pid\"");
	if (!k)
		return 0;
	k = strchr(k, ':');
	if (!k)
		return 0;
	char *end = NULL;
	long v = strtol(k + 1, &end, 10);
	/* Only a complete number: the JSON may still be arriving. */
	if (end == k + 1 || (*end != ',' && *end != '\n' && *end != ' ' && *end != '}'))
		return 0;
	return v > 1 && v < (1L << 22) ? (pid_t)v : 0;
}

int userns_read_child(int info_rd, int timeout_ms, pid_t *child, struct cordon_err *e)
{
	char buf[512];
	size_t len = 0;
	for (;;) {
		struct pollfd p = { info_rd, POLLIN, 0 };
		int n0 = poll(&p, 1, timeout_ms);
		if (n0 < 0) {
			if (errno == EINTR)
				continue;
			return err_sys(e, errno, "waiting for bwrap");
		}
		if (n0 == 0)
			return err_set(e, ETIMEDOUT, "bwrap did not report its sandbox process");
		ssize_t n = read(info_rd, buf + len, sizeof(buf) - 1 - len);
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n <= 0)
			return err_set(e, n == 0 ? EIO : errno,
				       "bwrap could not build the sandbox (its message, if any, is "
				       "above); run cordon doctor to check this machine");
		len += (size_t)n;
		buf[len] = '\0';
		if ((*child = userns_parse_child_pid(buf)) > 0)
			return 0;
		if (len >= sizeof(buf) - 1)
			return err_set(e, EPROTO, "bwrap's --info-fd output names no child-pid");
	}
}

static int write_file(int dirfd, const char *name, const char *text, pid_t child,
		      struct cordon_err *e)
{
	AUTO_FD fd = openat(dirfd, name, O_WRONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return err_sys(e, errno, "cannot open /proc/%d/%s to map the sandbox's user namespace",
			       (int)child, name);
	ssize_t n = write(fd, text, strlen(text));
	if (n != (ssize_t)strlen(text))
		return err_sys(e, n < 0 ? errno : EIO,
			       "cannot write /proc/%d/%s to map the sandbox's user namespace",
			       (int)child, name);
	return 0;
}

/* 0 if the process behind dirfd (/proc/PID) is bwrap's child. */
static int check_parent(int dirfd, pid_t bwrap)
{
	char stat[512];
	unsigned long long ppid;
	ssize_t n = procstat_read(dirfd, 0, stat, sizeof(stat));
	if (n < 0)
		return (int)n;
	return procstat_field(stat, 4, &ppid) == 0 && ppid == (unsigned long long)bwrap ? 0 : -ESRCH;
}

void userns_kill_child(int info_rd, pid_t bwrap, pid_t *child)
{
	struct cordon_err ignored;
	char path[32];
	if (*child <= 0 && (info_rd < 0 || userns_read_child(info_rd, 2000, child, &ignored) < 0))
		return; /* bwrap exited before clone, or never said: no child */
	(void)snprintf(path, sizeof(path), "/proc/%d", (int)*child);
	AUTO_FD dir = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
	/* While bwrap waits for its release it reaps nothing: the pid is still
	 * its child's if the parent check passes. */
	if (dir >= 0 && check_parent(dir, bwrap) == 0)
		(void)kill(*child, SIGKILL);
}

int userns_map(pid_t child, pid_t bwrap, uid_t uid, gid_t gid, struct cordon_err *e)
{
	char path[32], line[64];
	(void)snprintf(path, sizeof(path), "/proc/%d", (int)child);
	AUTO_FD dir = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (dir < 0)
		return err_sys(e, errno, "bwrap's sandbox process %d is gone", (int)child);
	/* The pid came from bwrap: make sure it is bwrap's child, through the
	 * same directory the maps are written through. */
	int c = check_parent(dir, bwrap);
	if (c == -ESRCH)
		return err_set(e, ESRCH, "process %d, named by bwrap, is not bwrap's child; "
			       "refusing to map its user namespace", (int)child);
	if (c < 0)
		return err_sys(e, -c, "cannot read %s/stat", path);

	(void)snprintf(line, sizeof(line), "%u %u 1\n", (unsigned)uid, (unsigned)uid);
	int r = write_file(dir, "uid_map", line, child, e);
	/* Without "deny" an unprivileged gid_map write is refused; it also
	 * keeps the command from dropping supplementary groups (which could
	 * lift a group's negative permissions). */
	if (r == 0)
		r = write_file(dir, "setgroups", "deny", child, e);
	(void)snprintf(line, sizeof(line), "%u %u 1\n", (unsigned)gid, (unsigned)gid);
	if (r == 0)
		r = write_file(dir, "gid_map", line, child, e);
	return r;
}
