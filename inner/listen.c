/* listen.c: see listen.h. */
#include "listen.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>

#include "sys.h"
#include "wire_bridge.h"

/* Enough for a burst of parallel connections (npm opens dozens); the kernel
 * caps it at somaxconn. */
#define LISTEN_BACKLOG 1024

static int listen_one(uint16_t port, int *fd, struct cordon_err *e)
{
	AUTO_FD s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (s < 0)
		return err_sys(e, errno, "cannot create the proxy listener in the sandbox");
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(port) };
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (bind(s, (struct sockaddr *)&a, sizeof(a)) < 0)
		return err_sys(e, errno, "cannot listen on 127.0.0.1:%u in the sandbox", port);
	if (listen(s, LISTEN_BACKLOG) < 0)
		return err_sys(e, errno, "cannot listen on 127.0.0.1:%u in the sandbox", port);
	*fd = sys_take_fd(&s);
	return 0;
}

static int listen_send(int sock, uint16_t port, struct cordon_err *e)
{
	AUTO_FD fd = -1;
	int r = listen_one(port, &fd, e);
	if (r < 0)
		return r;
	if ((r = wire_bridge_send(sock, WIRE_BRIDGE_LISTENER, &port, sizeof(port), fd)) < 0)
		return err_sys(e, -r, "cannot hand the proxy listeners to cordon-bridge");
	return 0;
}

static int listen_wait_ready(int sock, struct cordon_err *e)
{
	struct wire_bridge_peer peer = { WIRE_BRIDGE_TO_INNER, 0 };
	struct wire_bridge_rec rec;
	int r = wire_bridge_recv(sock, &peer, &rec, e);
	if (r < 0)
		return r;
	if (r == 0)
		return err_set(e, EPIPE, "cordon-bridge exited before it took the proxy listeners; "
			       "the command was not run");
	if (rec.type == WIRE_BRIDGE_ERROR) {
		memcpy(e, rec.data, sizeof(*e));
		e->msg[sizeof(e->msg) - 1] = '\0';
		if (e->err <= 0)
			e->err = EIO;
		e->exit_code = 0;
		return -e->err;
	}
	if (rec.type != WIRE_BRIDGE_READY)
		return err_set(e, EPROTO, "cordon-bridge sent no ready record");
	return 0;
}

int listen_for_mode(enum netcheck_mode mode, int bridge_sock, struct cordon_err *e)
{
	static const uint16_t ports[] = { WIRE_BRIDGE_HTTP_PORT, WIRE_BRIDGE_SOCKS_PORT };
	if (mode != NETCHECK_PROXY)
		return 0;
	if (bridge_sock < 0)
		return err_set(e, EINVAL, "cordon-inner: --net proxy without a bridge socket");
	for (size_t i = 0; i < sizeof(ports) / sizeof(ports[0]); i++) {
		int r = listen_send(bridge_sock, ports[i], e);
		if (r < 0)
			return r;
	}
	uint32_t count = sizeof(ports) / sizeof(ports[0]);
	int r = wire_bridge_send(bridge_sock, WIRE_BRIDGE_LISTENERS_END, &count, sizeof(count), -1);
	if (r < 0)
		return err_sys(e, -r, "cannot hand the proxy listeners to cordon-bridge");
	return listen_wait_ready(bridge_sock, e);
}
