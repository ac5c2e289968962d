/* landlock.h: the command's Landlock domain (DESIGN.md section 7).
 *
 * Belongs here: choosing the access masks for the kernel's Landlock ABI and
 * applying them with the raw syscalls (no liblandlock, so the static musl
 * binary depends on nothing).  Which paths are writable is the caller's
 * decision; this module only turns that list into a ruleset.
 *
 * Policy: read and execute everywhere; write (create, remove, rename, link,
 * truncate) only beneath the given paths; device ioctls everywhere (see
 * landlock.c for why).  Every filesystem right the ABI knows is handled, so a
 * right this code does not name is denied rather than silently allowed.
 * Network rights (ABI 4+) are left unhandled: the network namespace governs
 * the network.
 */
#ifndef CORDON_LANDLOCK_H
#define CORDON_LANDLOCK_H

#include <stddef.h>

#include "err.h"

/* Highest Landlock ABI the running kernel offers, 0 when Landlock is not
 * built in or disabled at boot.  No side effects. */
int landlock_abi(void);

struct landlock_plan {
	/* Absolute paths that get write access beneath them (a path may be a
	 * regular file or a device, e.g. /dev/null: it then gets only the
	 * rights that apply to files).  Borrowed; NULL only when nwrite == 0. */
	const char *const *write_paths;
	size_t nwrite;
	/* 1: with ABI >= 6, scope abstract Unix sockets and signals to the
	 * domain, so the command can reach neither outside the sandbox. */
	int scope;
};

/* The masks for one ABI: handled_fs is what the ruleset handles (denied unless
 * granted), read_grant what "/" gets, write_grant what each write path gets
 * (before masking out directory-only rights for non-directories), scoped the
 * ruleset's scoped field.  All zero when abi <= 0.  ABIs above the newest this
 * code knows get the newest known masks.  Pure; exposed for unit tests. */
struct landlock_masks {
	unsigned long long handled_fs, write_grant, read_grant;
	unsigned long long scoped;
};
void landlock_masks_for_abi(int abi, int scope, struct landlock_masks *m);

/* What a missing Landlock means for the run (the `required` argument below). */
enum landlock_need {
	LANDLOCK_OPTIONAL = 0, /* run on the other layers */
	LANDLOCK_REQUIRED = 1, /* --require-landlock: refuse */
	LANDLOCK_ROOT = 2,     /* a root caller without --allow-no-landlock: refuse */
};

/* Apply the plan to the calling thread (cordon-inner's command child is
 * single-threaded, and the domain is inherited across fork and exec).  The
 * caller has already set PR_SET_NO_NEW_PRIVS.
 *
 * Returns 1 when the domain is enforced; 0 when the kernel has no Landlock and
 * required is LANDLOCK_OPTIONAL; -errno with *e filled otherwise, including
 * -EOPNOTSUPP when Landlock is unavailable and required is another
 * landlock_need (the message says which flag decides), and a write path that is not
 * absolute, does not exist or cannot be opened (the message names it).  On
 * failure nothing has been applied.  Opens descriptors only transiently, all
 * O_CLOEXEC. */
int landlock_apply(const struct landlock_plan *p, int required, struct cordon_err *e)
	__attribute__((warn_unused_result));

/* The same in two steps, so that only a syscall is left for the forked child:
 * landlock_prepare builds the ruleset (1 and *ruleset_fd set, O_CLOEXEC; 0 when
 * there is no Landlock and required == 0; -errno), landlock_enforce applies it
 * to the calling thread and is async-signal-safe (0 or -errno). */
int landlock_prepare(const struct landlock_plan *p, int required, int *ruleset_fd,
		     struct cordon_err *e) __attribute__((warn_unused_result));
int landlock_enforce(int ruleset_fd) __attribute__((warn_unused_result));

/* A domain that handles no filesystem right and scopes signals and abstract
 * Unix sockets (ABI 6), for cordon-inner itself where it shares the host's
 * PID namespace: whatever it starts nests in it, and its kill(-1) reaches
 * only them (pid1.h).  Needs no_new_privs set.  0, or -errno with *e: a
 * kernel without ABI 6 refuses, whatever the flags, because nothing else
 * keeps the command's signals in the sandbox there. */
int landlock_scope_self(struct cordon_err *e) __attribute__((warn_unused_result));

#endif
