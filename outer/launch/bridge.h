/* bridge.h: starting cordon-bridge for --net proxy and ending it.
 *
 * cordon makes a SOCK_SEQPACKET socketpair: one end goes to cordon-inner
 * (through bwrap), the other to cordon-bridge, which cordon forks and execs
 * from beside itself (helper_find), never through PATH.  The bridge dies
 * with cordon (parent-death signal) and with the sandbox (EOF on its end);
 * there is no socket file and no host port.  Each run has its own bridge.
 *
 * Belongs here: the bridge's command line and its process. */
#ifndef CORDON_LAUNCH_BRIDGE_H
#define CORDON_LAUNCH_BRIDGE_H

#include <sys/types.h>

#include "argv.h"
#include "config.h"
#include "err.h"

/* Pure: cordon-bridge's argv for config c, with its socket sandbox_fd and
 * cordon's pid. */
int bridge_argv(const struct config *c, int sandbox_fd, pid_t parent, struct argv *out,
		struct cordon_err *e) __attribute__((warn_unused_result));

/* Fork and exec cordon-bridge with sandbox_fd (which it inherits, and only
 * it); *pid gets its pid.  -errno with *e filled. */
int bridge_start(const struct config *c, int sandbox_fd, pid_t *pid, struct cordon_err *e)
	__attribute__((warn_unused_result));

/* After the sandbox is gone: give the bridge a moment to log its last
 * connections and exit on its own, then SIGKILL it; reap it.  *pid <= 0:
 * nothing to do; *pid is 0 afterwards. */
void bridge_end(pid_t *pid, int grace_ms);

#endif
