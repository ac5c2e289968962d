/* netcheck.h: check that the sandbox's network namespace is the isolated one
 * bwrap --unshare-net builds (--net none and --net proxy): a single loopback
 * interface, up, holding 127.0.0.1, and nothing else.
 *
 * Belongs here: listing links and addresses over rtnetlink (libnl-route-3)
 * and the pure decision over that list.  Nothing here changes the namespace.
 */
#ifndef CORDON_NETCHECK_H
#define CORDON_NETCHECK_H

#include <stddef.h>

#include "err.h"

/* One link as the decision sees it.  name need not be NUL-terminated when it
 * fills the array; flags are the link's IFF_* flags; has_localhost4 is nonzero
 * when 127.0.0.1 is one of the link's IPv4 addresses. */
struct netcheck_link {
	char name[32];
	unsigned flags;
	int has_localhost4;
};

/* Pure: 0 when links[0..n) is exactly one link named "lo" that is up
 * (IFF_UP) and has 127.0.0.1; otherwise -EPERM with *e (may be NULL) naming
 * the offending interface, or saying lo is missing, "lo is down", or lo lacks
 * 127.0.0.1, and what the user can do.  links may be NULL when n == 0. */
int netcheck_decide(const struct netcheck_link *links, size_t n, struct cordon_err *e)
	__attribute__((warn_unused_result));

/* Lists the calling process's network namespace's links and IPv4 addresses
 * over rtnetlink and returns netcheck_decide()'s verdict; -errno with *e
 * filled when the listing itself fails.  The netlink socket is O_CLOEXEC and
 * closed before returning. */
int netcheck_loopback_only(struct cordon_err *e) __attribute__((warn_unused_result));

/* The network mode cordon asked for (cordon-inner --net). */
enum netcheck_mode { NETCHECK_NONE, NETCHECK_PROXY, NETCHECK_FULL };

/* Pure: the mode named by s ("none", "proxy", "full"), or -EINVAL. */
int netcheck_mode_parse(const char *s, enum netcheck_mode *mode) __attribute__((warn_unused_result));

/* The check for mode: none and proxy need the isolated namespace
 * (netcheck_loopback_only); full is the host's own namespace, asked for
 * explicitly, and passes unchecked. */
int netcheck_for_mode(enum netcheck_mode mode, struct cordon_err *e)
	__attribute__((warn_unused_result));

#endif
