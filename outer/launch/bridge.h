/* bridge.h: cordon's side of cordon-bridge (--net proxy).
 *
 * cordon makes a SOCK_SEQPACKET socketpair (common/wire_bridge.h): one end
 * goes to cordon-inner through bwrap, the other to cordon-bridge, which
 * cordon starts from beside itself (helper_find), never through PATH.  The
 * bridge dies with cordon (it sets its parent-death signal first thing and
 * checks that its parent is still the cordon that started it) and with the
 * sandbox (end of file on its end); there is no socket file and no host
 * port.  Each run has its own bridge.
 *
 * This folder (launch/) is the only part of cordon that forks. */
#ifndef CORDON_LAUNCH_BRIDGE_H
#define CORDON_LAUNCH_BRIDGE_H

#include <signal.h>
#include <stddef.h>
#include <sys/types.h>

#include "argv.h"
#include "config.h"
#include "err.h"
#include "wire_bridge.h"

struct bridge_link {
	int sock[2];      /* [0] cordon-bridge's end, [1] cordon-inner's; -1 without --net proxy */
	pid_t pid;        /* > 0 once started, until reaped */
	int decisions;    /* an anonymous memfd the bridge appends its decisions to
			     (wire_bridge.h), read back for the report and netnote.h */
	int auth;         /* with upstream credentials: a memfd holding them, so
			     that they are on no command line (ps shows the bridge's) */
	int log;          /* with --net-log: the file, opened by cordon
			     (hostpaths/userfile.h); the bridge opens no path */
};

#define BRIDGE_LINK_INIT { { -1, -1 }, 0, -1, -1, -1 }

/* With --net proxy, the socketpair; otherwise nothing.  -errno with *e. */
int bridge_link_open(struct bridge_link *l, const struct config *c, struct cordon_err *e)
	__attribute__((warn_unused_result));

/* Hand over the --net-log file's descriptor (the link owns it from here;
 * -1: none). */
void bridge_link_log(struct bridge_link *l, int fd);

/* cordon-inner's end, for its --bridge option and bwrap's keep list; -1
 * without --net proxy. */
int bridge_link_inner_fd(const struct bridge_link *l);

/* Pure: cordon-bridge's argv for config c, with its socket sandbox_fd and
 * cordon's pid. */
int bridge_argv(const struct config *c, int sandbox_fd, pid_t parent, struct argv *out,
		struct cordon_err *e) __attribute__((warn_unused_result));

/* Start cordon-bridge with its end (then closed in cordon) and signal mask
 * mask; nothing without --net proxy.  -errno with *e filled. */
int bridge_start(struct bridge_link *l, const struct config *c, const sigset_t *mask,
		 struct cordon_err *e) __attribute__((warn_unused_result));

/* bwrap has its copy of cordon-inner's end: cordon's goes, so that the
 * sandbox ending reads as end of file to the bridge. */
void bridge_link_started(struct bridge_link *l);

/* After bridge_end: each decision the bridge recorded (at most
 * WIRE_BRIDGE_DECISIONS_MAX bytes of them), decoded and checked once
 * (wire_bridge_decision_next), to fn; then the memfd is closed.  0, or
 * -EPROTO with *e when a record broke the channel's table: the decisions
 * before it went to fn, none after. */
int bridge_decisions(struct bridge_link *l,
		     void (*fn)(void *ctx, const struct wire_bridge_decision *d), void *ctx,
		     struct cordon_err *e) __attribute__((warn_unused_result));

/* After the sandbox is gone: give the bridge grace_ms to log its last
 * connections and exit on its own, then SIGKILL it; reap it; close the
 * sockets.  Safe to call twice. */
void bridge_end(struct bridge_link *l, int grace_ms);

#endif
