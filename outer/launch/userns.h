/* userns.h: mapping the sandbox's user namespace from cordon.
 *
 * cordon starts bwrap with --userns-block-fd: bwrap's monitor creates the
 * namespaces, reports the sandbox's PID 1 on --info-fd and waits for a byte
 * before that process may set anything up.  In that window cordon creates the
 * protected names' mount points (the plan already names them), then maps the
 * user namespace itself and releases bwrap.  The mapping is a single line
 * for the caller's own uid and gid, with setgroups denied: the command runs
 * as the caller, the namespace has no root and no other id, and bwrap needs
 * no second, nested user namespace to get there (one namespace fewer to
 * create on every start).  The process mapped must be bwrap's child; as
 * bwrap's unreaped child (bwrap is blocked reading that byte) its pid cannot
 * be reused meanwhile. */
#ifndef CORDON_USERNS_H
#define CORDON_USERNS_H

#include <stddef.h>
#include <sys/types.h>
#include "err.h"

/* Pure: "child-pid" from bwrap's --info-fd JSON (NUL-terminated), or 0. */
pid_t userns_parse_child_pid(const char *json);

/* Read bwrap's info JSON from info_rd (non-blocking; waits with poll, at
 * most timeout_ms, -1 for no limit) until it names the sandbox's PID 1.  End
 * of file first means bwrap failed. */
int userns_read_child(int info_rd, int timeout_ms, pid_t *child, struct cordon_err *e)
	__attribute__((warn_unused_result));

/* Map `child` (bwrap's child) to uid and gid, one line each, setgroups
 * denied.  Any failure fails the run: bwrap must then be killed unreleased. */
int userns_map(pid_t child, pid_t bwrap, uid_t uid, gid_t gid, struct cordon_err *e)
	__attribute__((warn_unused_result));

/* A run that ends while bwrap runs: bwrap's child (the sandbox's PID 1
 * to be) gets no parent-death signal until just before it execs, so once
 * bwrap is killed it would wait forever for its release, or set up a sandbox
 * nobody supervises.  Kill it first: learn its pid from info_rd if it is not
 * known (bwrap reports it right after clone, or exits: bounded wait), and
 * only if it is still bwrap's child. */
void userns_kill_child(int info_rd, pid_t bwrap, pid_t *child);

#endif
