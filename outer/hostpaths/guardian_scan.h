/* guardian_scan.h: what the guardian (guardian.c) looks for in /proc once
 * cordon is gone: bwrap and the sandbox's first process, to wait for them,
 * and whoever still holds cordon-inner's end of the control socket, to end
 * them.  For the guardian only; it runs in the guardian's own process. */
#ifndef CORDON_GUARDIAN_SCAN_H
#define CORDON_GUARDIAN_SCAN_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define GSCAN_MAX_CHILDREN 16

/* pidfd_open(2), or -1 where the kernel has none. */
int gscan_pidfd_open(pid_t pid);

/* 1 while pid is the process that started at `start`. */
int gscan_same_process(pid_t pid, uint64_t start);

/* 1 while the process of a pidfd has not exited (so its pid is still its). */
int gscan_alive(int pidfd);

/* pidfds (at most max) of bwrap's children still running: the sandbox's
 * PID 1, whose mounts live as long as it does. */
size_t gscan_sandbox_children(pid_t bwrap, int *fds, size_t max);

/* Until bwrap (pidfd, or pid and start time) and the children have all
 * exited: 0, or -ETIMEDOUT after timeout_ms. */
int gscan_wait_gone(pid_t pid, uint64_t start, int pidfd, int *kids, size_t nkids,
		    long timeout_ms);

/* SIGKILL to every process holding the socket of inode ino, pass after
 * pass, until a pass finds nobody and a grace period has gone by. */
void gscan_kill_holders(ino_t ino);

#endif
