/* vclone.h: start a short-lived process that shares cordon's memory, with
 * cordon suspended until it execs or exits (clone with CLONE_VM |
 * CLONE_VFORK, as posix_spawn does).  No page tables are copied, which a
 * fork cost on every start: ~0.1 ms each on the path a run waits on.
 *
 * The function runs on a stack of its own but in cordon's memory: it may
 * make system calls (errno included: cordon's errno is restored after) and
 * write to the object it is given, and nothing else: no allocation, no
 * stdio, no locks.  It must not return into cordon's frames: it returns
 * its exit status or calls _exit.  Signals: cordon installs no handlers
 * (it reads signals from a signalfd), so none can run on the child's side.
 * The child has its own descriptor table (no CLONE_FILES) and its own fs
 * (no CLONE_FS), so it may enter a user namespace (setns) or close and dup
 * descriptors without touching cordon's. */
#ifndef CORDON_VCLONE_H
#define CORDON_VCLONE_H

#include <sys/types.h>

/* Runs fn(arg) in the child; returns its pid (to be reaped by the caller)
 * once it has exec'd or exited, or -errno. */
pid_t vclone_run(int (*fn)(void *), void *arg);

#endif
