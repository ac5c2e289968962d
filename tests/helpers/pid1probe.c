/* pid1probe.c: tries to reach into another process's memory, for the
 * integration tests of cordon-inner's (PID 1's) protection.
 *   pid1probe mem PID       open /proc/PID/mem for writing and write into it
 *   pid1probe attach PID    ptrace(PTRACE_ATTACH)
 *   pid1probe seize PID     ptrace(PTRACE_SEIZE)
 *   pid1probe vmwrite PID   process_vm_writev
 *   pid1probe open PATH     open PATH and read from it
 * PID "child" is a child the probe forks first: the control that shows the
 * same attempt works against a process that is not protected.  Prints "ok"
 * (exit 0) or the errno name (exit 1); a probe that cannot be set up exits 2.
 * Against a child, "ok" means the child saw its memory changed. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

/* Written by the probe into the child's copy (fork keeps its address). */
static volatile uint32_t target = 1;

static int report_errno(int e)
{
	const char *n = e == EPERM ? "EPERM" : e == EACCES ? "EACCES" : e == ESRCH ? "ESRCH"
		: e == ENOENT ? "ENOENT" : e == EFAULT ? "EFAULT" : e == EIO ? "EIO" : NULL;
	if (n)
		puts(n);
	else
		printf("errno=%d\n", e);
	return 1;
}

/* A child that waits for one byte on `go`, then exits 0 if its `target` was
 * changed to 42. */
static pid_t start_child(int *go_w)
{
	int p[2];
	if (pipe(p) < 0)
		return -1;
	pid_t pid = fork();
	if (pid == 0) {
		char c;
		close(p[1]);
		if (read(p[0], &c, 1) < 0)
			_exit(3);
		_exit(target == 42 ? 0 : 1);
	}
	close(p[0]);
	*go_w = p[1];
	return pid;
}

/* Release the child and report whether it saw the write. */
static int finish_child(pid_t pid, int go_w, int attempt_err)
{
	char c = 'g';
	int st = 0;
	if (write(go_w, &c, 1) != 1)
		return 2;
	close(go_w);
	if (waitpid(pid, &st, 0) != pid)
		return 2;
	if (attempt_err)
		return report_errno(attempt_err);
	if (WIFEXITED(st) && WEXITSTATUS(st) == 0) {
		puts("ok");
		return 0;
	}
	puts("unchanged");
	return 1;
}

static int attempt(const char *how, pid_t pid)
{
	uint32_t v = 42;
	if (strcmp(how, "mem") == 0) {
		char path[64];
		snprintf(path, sizeof(path), "/proc/%d/mem", (int)pid);
		int fd = open(path, O_RDWR | O_CLOEXEC);
		if (fd < 0)
			return errno;
		ssize_t n = pwrite(fd, &v, sizeof(v), (off_t)(uintptr_t)&target);
		int e = n == (ssize_t)sizeof(v) ? 0 : (n < 0 ? errno : EIO);
		close(fd);
		return e;
	}
	if (strcmp(how, "vmwrite") == 0) {
		struct iovec local = { &v, sizeof(v) };
		struct iovec remote = { (void *)&target, sizeof(v) };
		return process_vm_writev(pid, &local, 1, &remote, 1, 0) == (ssize_t)sizeof(v) ? 0 : errno;
	}
	if (strcmp(how, "attach") == 0 || strcmp(how, "seize") == 0) {
		long r = strcmp(how, "attach") == 0 ? ptrace(PTRACE_ATTACH, pid, 0, 0)
						    : ptrace(PTRACE_SEIZE, pid, 0, 0);
		if (r < 0)
			return errno;
		if (strcmp(how, "attach") == 0)
			(void)waitpid(pid, NULL, __WALL);
		else
			(void)ptrace(PTRACE_INTERRUPT, pid, 0, 0), (void)waitpid(pid, NULL, __WALL);
		r = ptrace(PTRACE_POKEDATA, pid, (void *)&target, (void *)(uintptr_t)42);
		int e = r < 0 ? errno : 0;
		(void)ptrace(PTRACE_DETACH, pid, 0, 0);
		return e;
	}
	return -1;
}

int main(int argc, char **argv)
{
	if (argc != 3)
		return 2;
	if (strcmp(argv[1], "open") == 0) {
		char buf[64];
		int fd = open(argv[2], O_RDONLY | O_CLOEXEC);
		if (fd < 0 || read(fd, buf, sizeof(buf)) < 0)
			return report_errno(errno);
		puts("ok");
		return 0;
	}
	if (strcmp(argv[2], "child") == 0) {
		int go_w;
		pid_t pid = start_child(&go_w);
		if (pid < 0)
			return 2;
		int e = attempt(argv[1], pid);
		if (e < 0) {
			kill(pid, SIGKILL);
			return 2;
		}
		return finish_child(pid, go_w, e);
	}
	int e = attempt(argv[1], (pid_t)atoi(argv[2]));
	if (e < 0)
		return 2;
	if (e)
		return report_errno(e);
	puts("ok");
	return 0;
}
