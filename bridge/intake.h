/* intake.h: everything cordon-bridge takes in before it confines itself:
 * its options, the two listeners from cordon-inner (each checked: a TCP
 * socket, listening, bound to 127.0.0.1:3128 or :1080, each port once), the
 * --net-log file, the upstream proxy's address, a higher RLIMIT_NOFILE, and
 * the test resolver map.
 *
 * The test map (CORDON_BRIDGE_HOSTS=FILE, lines "ADDRESS NAME...") lets the
 * tests map names such as allowed.test to 127.0.0.1.  It is read once,
 * here, before the command exists, and only from a regular file owned by
 * root that no one else may write: the command cannot create such a file,
 * and the variable reaches the bridge only through cordon's own caller.
 *
 * Belongs here: the checks and the setup that need the filesystem. */
#ifndef CORDON_BRIDGE_INTAKE_H
#define CORDON_BRIDGE_INTAKE_H

#include <stddef.h>
#include <sys/types.h>

#include "addr.h"
#include "allow.h"
#include "err.h"
#include "resolve.h"
#include "upstream.h"
#include "wire_bridge.h"

struct intake {
	int sandbox;                     /* the socket to cordon-inner */
	pid_t parent;                    /* cordon */
	struct allow_rule *allow, *deny;
	size_t nallow, ndeny, capallow, capdeny;
	const char *upstream_spec, *token;
	int auth_fd;                     /* a memfd with the upstream's "USER:PASS", or -1 */
	struct upstream upstream;
	int have_upstream;
	int listeners[WIRE_BRIDGE_NLISTENERS];
	int listeners_end;               /* cordon-inner's LISTENERS_END was read */
	int log_fd;                      /* --net-log's file, opened by cordon, or -1 */
	int decisions_fd;                /* cordon's memfd for its --report, or -1 */
	struct resolve_map map;
	struct addr_host *own;           /* the host's interface addresses (addr.h) */
	size_t nown, capown;
};

/* Parse argv:
 *   cordon-bridge --sandbox FD --parent PID [--allow PAT]... [--deny PAT]...
 *                 [--net-log-fd FD] [--decisions FD]
 *                 [--upstream SPEC [--attribution-token T] [--upstream-auth FD]]
 * -EINVAL with *e filled. */
int intake_args(int argc, char **argv, struct intake *in, struct cordon_err *e)
	__attribute__((warn_unused_result));

/* Pure: the listener checks over facts gathered from a socket. */
struct intake_sock_facts {
	int domain, type, accepting;
	int family;
	unsigned char addr[4];
	unsigned port;
};
int intake_check_listener(const struct intake_sock_facts *f, unsigned want_port,
			  struct cordon_err *e) __attribute__((warn_unused_result));

/* Receive and check the listeners, open the log, resolve the upstream,
 * raise RLIMIT_NOFILE, load the test map.  0: done; 1: cordon-inner went
 * away first (the sandbox never started: exit quietly); -errno: *e says why. */
int intake_run(struct intake *in, struct cordon_err *e) __attribute__((warn_unused_result));

/* Pure: parse a test map file's text into *map (allocated). */
int intake_parse_map(const char *text, struct resolve_map *map, struct cordon_err *e)
	__attribute__((warn_unused_result));

#endif
