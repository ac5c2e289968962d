/* test_inner_link.c: cordon-inner's options as cordon builds them, and the
 * bind checks as cordon-inner receives them. */
#include <criterion/criterion.h>

#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "launch/inner_link.h"
#include "wire.h"

static int has(const struct argv *a, const char *s)
{
	for (size_t i = 0; i < a->n; i++)
		if (strcmp(a->v[i], s) == 0)
			return (int)i + 1;
	return 0;
}

Test(inner_link_open, options_follow_the_config_and_the_terminal)
{
	struct config c;
	memset(&c, 0, sizeof(c));
	c.tmp = TMP_PRIVATE;
	c.full_write = 1;
	struct inner_link l = INNER_LINK_INIT;
	struct inner_term t = { 1, (1u << (SIGHUP - 1)) | (1u << (SIGINT - 1)), 1024 };
	struct cordon_err e = { 0 };
	/* inner_find looks beside the running binary: give it a file there. */
	char self[4096];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 32);
	cr_assert_gt(n, 0);
	self[n] = '\0';
	strcpy(strrchr(self, '/') + 1, "cordon-inner");
	int made = access(self, X_OK) != 0;
	if (made)
		close(open(self, O_WRONLY | O_CREAT | O_CLOEXEC, 0755));
	int r = inner_link_open(&l, &c, &t, 41, &e);
	if (made)
		unlink(self);
	cr_assert_eq(r, 0, "%s", e.msg);
	int i = has(&l.args, "--control");
	cr_assert(i);
	cr_assert_eq(atoi(l.args.v[i]), l.ctrl[1]);
	cr_assert(has(&l.args, "--tmp-private") && has(&l.args, "--full-write"));
	cr_assert_not(has(&l.args, "--allow-unix-sockets"));
	cr_assert(has(&l.args, "--tty"));
	i = has(&l.args, "--keep-ignored");
	cr_assert(i);
	cr_assert_str_eq(l.args.v[i], "3", "SIGHUP and SIGINT: bits 0 and 1");
	i = has(&l.args, "--net");
	cr_assert(i);
	cr_assert_str_eq(l.args.v[i], "none");
	i = has(&l.args, "--bridge");
	cr_assert(i);
	cr_assert_str_eq(l.args.v[i], "41", "cordon-inner's end of the bridge socket");
	i = has(&l.args, "--nofile");
	cr_assert(i);
	cr_assert_str_eq(l.args.v[i], "1024", "the caller's soft RLIMIT_NOFILE, for the command");
	inner_link_close(&l);
	cr_assert_eq(l.ctrl[0], -1);
}

Test(inner_link_send_checks, roots_then_late_read_only_paths_then_the_count)
{
	struct inner_link l = INNER_LINK_INIT;
	cr_assert_eq(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, l.ctrl), 0);
	struct rpath roots[1] = { { .path = "/tmp", .fd = open("/tmp", O_PATH | O_CLOEXEC) } };
	/* /usr is bound from its inherited descriptor: no check; /etc is one
	 * of protect's objects bound by path. */
	struct rpath carves[1] = {
		{ .path = "/usr", .fd = open("/usr", O_PATH | O_CLOEXEC) },
	};
	struct rpath by_path[1] = {
		{ .path = "/etc", .fd = open("/etc", O_PATH | O_CLOEXEC) },
	};
	struct resolved res;
	memset(&res, 0, sizeof(res));
	res.roots = roots;
	res.nroots = 1;
	res.carves = carves;
	res.ncarves = 1;
	struct cordon_err e = { 0 };
	cr_assert_eq(inner_link_send_checks(&l, &res, by_path, 1, &e), 0, "%s", e.msg);
	struct wire_peer peer = { WIRE_TO_INNER, 0 };
	static struct wire_rec rec;
	cr_assert_eq(wire_recv(l.ctrl[1], &peer, &rec, &e), 1);
	cr_assert(rec.type == WIRE_BIND_CHECK && strcmp(rec.data, "/tmp") == 0 && rec.fd >= 0);
	close(rec.fd);
	cr_assert_eq(wire_recv(l.ctrl[1], &peer, &rec, &e), 1);
	cr_assert(rec.type == WIRE_RO_CHECK && strcmp(rec.data, "/etc") == 0, "only the late one");
	close(rec.fd);
	cr_assert_eq(wire_recv(l.ctrl[1], &peer, &rec, &e), 1);
	cr_assert_eq(rec.type, WIRE_BINDS_END);
	uint32_t n;
	memcpy(&n, rec.data, sizeof(n));
	cr_assert_eq(n, 2);
	close(carves[0].fd);
	close(by_path[0].fd);
	close(roots[0].fd);
	inner_link_close(&l);
}
