/* userns.h: mapping the sandbox's user namespace from cordon.
 *
 * (launch/bwrap.c drives the handshake; this is the map alone.)
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

/* 0 if the process behind dirfd (/proc/PID, O_PATH) is parent's child,
 * -ESRCH if it is not, -errno if its stat cannot be read. */
int userns_check_parent(int dirfd, pid_t parent) __attribute__((warn_unused_result));

/* Map `child` (bwrap's child) to uid and gid, one line each, setgroups
 * denied.  Any failure fails the run: bwrap must then be killed unreleased. */
int userns_map(pid_t child, pid_t bwrap, uid_t uid, gid_t gid, struct cordon_err *e)
	__attribute__((warn_unused_result));

/* 1 when a map of uid 0 is bound to fail here: the caller is root without
 * CAP_SETFCAP in its effective set (Linux 5.12+ wants it to map uid 0; a
 * container's --cap-drop ALL drops it), else 0. */
int userns_root_lacks_setfcap(void);

/* What a root caller without CAP_SETFCAP can do, for the messages. */
#define USERNS_SETFCAP_ADVICE "mapping root into the sandbox needs CAP_SETFCAP, which this " \
	"process lacks (a container's --cap-drop ALL): add it back (--cap-add SETFCAP) or run " \
	"cordon as another user"

#endif
