/* listen.h: the proxy's listening sockets, made inside the sandbox's own
 * network namespace (--net proxy) and handed to cordon-bridge.  A socket
 * keeps the namespace it was made in, so the bridge, on the host side,
 * accepts the sandbox's connections while no host process can dial them.
 *
 * Belongs here: creating 127.0.0.1:3128 and :1080, sending them over the
 * bridge socket (wire_bridge.h), waiting for the bridge's READY. */
#ifndef CORDON_LISTEN_H
#define CORDON_LISTEN_H

#include "err.h"
#include "netcheck.h"

/* With NETCHECK_PROXY: create both listeners, send them to the bridge over
 * bridge_sock, and return 0 only once the bridge has answered READY; its
 * ERROR record, an EOF or a protocol error fails the run (the command never
 * starts).  cordon-inner keeps no copy of the listeners.  With any other
 * mode: 0, nothing done. */
int listen_for_mode(enum netcheck_mode mode, int bridge_sock, struct cordon_err *e)
	__attribute__((warn_unused_result));

#endif
