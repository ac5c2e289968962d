/* sys.h: thin syscall wrappers shared by all three binaries.
 * Belongs here: EINTR retries, full reads/writes, descriptor hygiene.
 * Nothing here allocates or prints; all return 0 / -errno unless noted. */
#ifndef CORDON_SYS_H
#define CORDON_SYS_H

#include <stddef.h>
#include <sys/types.h>

#define WUR __attribute__((warn_unused_result))

/* Write all of buf, retrying on EINTR and short writes. */
int sys_write_all(int fd, const void *buf, size_t len) WUR;

/* Read until len bytes or EOF; returns bytes read (>= 0) or -errno. */
ssize_t sys_read_full(int fd, void *buf, size_t len) WUR;

/* waitpid(pid, status, 0), retrying on EINTR; status may be NULL. */
pid_t sys_waitpid(pid_t pid, int *status);

/* close(2) that keeps errno and ignores EINTR (Linux always frees the fd). */
void sys_close(int *fd);

/* Close every descriptor >= 3 except those in keep[0..nkeep). Safe between
 * fork and exec: no allocation, only close_range(2) and close(2). */
int sys_close_except(const int *keep, size_t nkeep) WUR;

/* Read every event queued on the nonblocking inotify descriptor fd, and
 * call fn with each; returns once the queue is empty (or unreadable). */
struct inotify_event;
typedef void sys_inotify_fn(void *ctx, const struct inotify_event *ev);
void sys_inotify_drain(int fd, sys_inotify_fn *fn, void *ctx);

/* A detached process's settling: stdin, stdout and stderr on /dev/null,
 * the working directory /.  Only async-signal-safe calls (after fork). */
int sys_detach_stdio(void) WUR;

/* Clear FD_CLOEXEC on fd, for a descriptor meant to cross one exec. */
int sys_set_inheritable(int fd) WUR;

/* Sleep ms milliseconds, resuming after a signal handler. */
void sys_sleep_ms(long ms);

/* CLOCK_MONOTONIC in milliseconds. */
long long sys_now_ms(void);
/* n bytes from the kernel's random pool (getrandom(2), retried on EINTR and
 * short reads) as 2n lowercase hex digits and a NUL in out (2n + 1 bytes):
 * a name no other process can predict.  n at most 64. */
int sys_random_hex(char *out, size_t n) WUR;

/* Raise this process's soft RLIMIT_NOFILE to its hard limit (a run holds
 * a descriptor for every root, pin and git dir it keeps: the usual soft
 * 1024 runs out with a few dozen submodules).  *orig gets the soft limit as
 * it was, for whoever must give it back to the command.  0 or -errno. */
int sys_raise_nofile(unsigned long long *orig) WUR;

#define AUTO_FD __attribute__((cleanup(sys_close))) int

/* Transfer ownership out of an AUTO_FD variable: returns it, leaves -1. */
static inline int sys_take_fd(int *fd)
{
	int r = *fd;
	*fd = -1;
	return r;
}

#endif
