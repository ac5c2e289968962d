/* main.c: cordon-bridge, the host side of --net proxy (DESIGN section 8).
 *
 * Started by cordon (outer/launch/bridge.c), never by hand.  Phases:
 * intake (listeners from cordon-inner, checked; log; upstream; test map)
 * -> confine (no exec, no filesystem writes, no_new_privs) -> resolver
 * threads -> READY to cordon-inner -> the event loop, until the sandbox
 * socket reaches EOF.  Any failure before READY is sent to cordon-inner as
 * an error record: the run ends with 125 and the command never starts. */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "confine.h"
#include "conn.h"
#include "err.h"
#include "intake.h"
#include "loop.h"
#include "resolve.h"
#include "sys.h"
#include "wire_bridge.h"

#define BRIDGE_RESOLVER_THREADS 4
#define BRIDGE_MAX_CONNS 512
#define BRIDGE_HEAD_TIMEOUT_MS 10000
#define BRIDGE_CONNECT_TIMEOUT_MS 30000

/* Dies with cordon: the parent-death signal, and a check that cordon did
 * not die before it was set. */
static int bridge_tie_to_parent(pid_t parent, struct cordon_err *e)
{
	if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) < 0)
		return err_sys(e, errno, "cordon-bridge: PR_SET_PDEATHSIG");
	if (getppid() != parent)
		return err_set(e, ESRCH, "cordon-bridge: cordon is gone");
	return 0;
}

static int bridge_setup(struct intake *in, struct bridge *b, struct cordon_err *e)
{
	int r = intake_run(in, e);
	if (r != 0)
		return r;
	if ((r = confine_apply(in->have_upstream &&
				       in->upstream.sa.ss_family == AF_UNIX, e)) < 0)
		return r;
	*b = (struct bridge){
		.ep = -1,
		.rules = { in->allow, in->nallow, in->deny, in->ndeny, in->own, in->nown },
		.upstream = in->have_upstream ? &in->upstream : NULL,
		.log_fd = in->log_fd,
		.decisions_fd = in->decisions_fd,
		.max_conns = BRIDGE_MAX_CONNS,
		.head_timeout_ms = BRIDGE_HEAD_TIMEOUT_MS,
		.connect_timeout_ms = BRIDGE_CONNECT_TIMEOUT_MS,
	};
	return resolve_start(&b->resolver, BRIDGE_RESOLVER_THREADS, &in->map, e);
}

/* A refusal before READY goes to cordon-inner, which reports it as the
 * run's one line (status 125).  cordon-inner sends its listeners first and
 * reads only then: take them (and drop them) before answering, or its
 * sends would fail on a closed socket and the reason be lost. */
static int bridge_refuse(int sandbox, int drained, const struct cordon_err *e)
{
	struct wire_bridge_peer peer = { WIRE_BRIDGE_TO_BRIDGE, 0 };
	struct cordon_err ignored;
	if (sandbox < 0) {
		err_print(e);
		return EXIT_CORDON_FAILED;
	}
	while (!drained) {
		struct wire_bridge_rec rec;
		int r = wire_bridge_recv(sandbox, &peer, &rec, &ignored);
		if (r <= 0)
			break;
		sys_close(&rec.fd);
		if (rec.type == WIRE_BRIDGE_LISTENERS_END)
			break;
	}
	if (wire_bridge_send(sandbox, WIRE_BRIDGE_ERROR, e, sizeof(*e), -1) < 0)
		err_print(e);
	return EXIT_CORDON_FAILED;
}

int main(int argc, char **argv)
{
	struct cordon_err e = { 0 };
	struct intake in;
	struct bridge b;

	/* A client that closes early must not kill the bridge. */
	if (signal(SIGPIPE, SIG_IGN) == SIG_ERR) {
		(void)err_sys(&e, errno, "cordon-bridge: SIGPIPE");
		err_print(&e);
		return EXIT_CORDON_FAILED;
	}
	if (intake_args(argc, argv, &in, &e) < 0)
		return bridge_refuse(in.sandbox, 0, &e);
	if (bridge_tie_to_parent(in.parent, &e) < 0)
		return EXIT_CORDON_FAILED; /* cordon is gone: nobody to tell */
	int r = bridge_setup(&in, &b, &e);
	if (r == 1)
		return 0; /* the sandbox ended before it handed over its listeners */
	if (r < 0)
		return bridge_refuse(in.sandbox, in.listeners_end, &e);
	static const unsigned char ready = 1;
	if (wire_bridge_send(in.sandbox, WIRE_BRIDGE_READY, &ready, 1, -1) < 0)
		return 0; /* cordon-inner is gone: nothing to serve */
	if (loop_run(&b, in.listeners, WIRE_BRIDGE_NLISTENERS, in.sandbox, &e) < 0) {
		err_print(&e);
		return EXIT_CORDON_FAILED;
	}
	return 0;
}
