/* nesting.h: cordon started inside a cordon sandbox.  It cannot work there
 * (the sandbox's seccomp filter refuses new user namespaces, and bwrap, root's
 * file outside, belongs to no one mapped inside), and the first check that
 * would fail says something misleading ("bwrap is not owned by root", or a
 * read-only registry), so this is asked first.
 *
 * The signs: PID 1 of our PID namespace is named cordon-inner (it names
 * itself so) and our user namespace is not the initial one.  The command
 * cannot rename PID 1, and a false positive can only make cordon refuse. */
#ifndef CORDON_NESTING_H
#define CORDON_NESTING_H

#include <stdint.h>
#include "err.h"

/* The initial user namespace's inode number, fixed by the kernel
 * (PROC_USER_INIT_INO). */
#define NESTING_INIT_USERNS_INO 0xEFFFFFFDU

/* Pure: 1 if these facts say we run inside a cordon sandbox.  pid1_comm:
 * the contents of /proc/1/comm (NULL if unreadable); userns_ino: the inode
 * of /proc/self/ns/user (0 if unknown). */
int nesting_inside_cordon(const char *pid1_comm, uint64_t userns_ino);

/* Refuse (-EPERM, *e filled) when cordon runs inside a cordon sandbox. */
int nesting_check(struct cordon_err *e) __attribute__((warn_unused_result));

#endif
