/* confine.h: what cordon-bridge gives up once it holds its listeners, its
 * log file and its hosts map, before it reads one byte the sandboxed
 * command wrote: no exec, no filesystem writes, no new privileges, no
 * ptrace, no Unix sockets (unless an upstream proxy is a Unix socket), and
 * no core dumps or ptrace by other processes of the user.
 *
 * Belongs here: applying it.  The seccomp program is compiled at build time
 * from its table (common/seccomp_table.c: seccomp_policy_bridge_table(),
 * which `cordon explain` prints), so the bridge needs no libseccomp.  Call
 * it before any thread exists: the filter is inherited by threads created
 * later. */
#ifndef CORDON_BRIDGE_CONFINE_H
#define CORDON_BRIDGE_CONFINE_H

#include "err.h"

/* no_new_privs, non-dumpable, then the seccomp filter.  allow_unix: permit
 * socket(AF_UNIX) (--proxy-upstream unix:PATH).  -errno with *e filled. */
int confine_apply(int allow_unix, struct cordon_err *e) __attribute__((warn_unused_result));

#endif
