/* test_wire_guardian.c: the records cordon and its guardian exchange
 * (common/wire_guardian.h): the table's checks, end to end over a real
 * socketpair, and the sandbox payload's own checks. */
#include <criterion/criterion.h>

#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "unit_util.h"
#include "wire_guardian.h"

static struct wire_peer guardian(void) { return (struct wire_peer){ GWIRE_TO_GUARDIAN, 0 }; }
static struct wire_peer cordon(void) { return (struct wire_peer){ GWIRE_TO_CORDON, 0 }; }

Test(gwire, table)
{
	struct cordon_err e;
	struct wire_peer g = guardian(), c = cordon();
	cr_assert_eq(wire_check_proto(&gwire_proto, &c, GWIRE_READY, 0, 0, &e), 0);
	cr_assert_eq(wire_check_proto(&gwire_proto, &g, GWIRE_READY, 0, 0, &e), -EPROTO,
		     "ready goes to cordon only");
	cr_assert_eq(wire_check_proto(&gwire_proto, &g, GWIRE_DONE, 0, 0, &e), 0);
	cr_assert_eq(wire_check_proto(&gwire_proto, &g, GWIRE_DONE, 1, 0, &e), -EPROTO);
	cr_assert_eq(wire_check_proto(&gwire_proto, &g, GWIRE_DONE, 0, 1, &e), -EPROTO);
	size_t sz = sizeof(struct gwire_sandbox);
	/* The pidfd is optional: a kernel without pidfd_open sends none. */
	cr_assert_eq(wire_check_proto(&gwire_proto, &g, GWIRE_SANDBOX, sz, 1, &e), 0);
	cr_assert_eq(wire_check_proto(&gwire_proto, &g, GWIRE_SANDBOX, sz, 0, &e), 0);
	cr_assert_eq(wire_check_proto(&gwire_proto, &g, GWIRE_SANDBOX, sz - 1, 0, &e), -EPROTO);
	cr_assert_eq(wire_check_proto(&gwire_proto, &c, GWIRE_SANDBOX, sz, 0, &e), -EPROTO);
	cr_assert_eq(wire_check_proto(&gwire_proto, &g, 0, 0, 0, &e), -EPROTO);
	cr_assert_eq(wire_check_proto(&gwire_proto, &g, GWIRE_TYPE_END, 0, 0, &e), -EPROTO);
	/* The user's terminal: the two modes and the terminal itself, once. */
	size_t tz = sizeof(struct gwire_terminal);
	cr_assert_eq(wire_check_proto(&gwire_proto, &g, GWIRE_TERMINAL, tz, 1, &e), 0);
	cr_assert_eq(wire_check_proto(&gwire_proto, &g, GWIRE_TERMINAL, tz, 0, &e), -EPROTO,
		     "the terminal must come with its modes");
	cr_assert_eq(wire_check_proto(&gwire_proto, &g, GWIRE_TERMINAL, tz - 1, 1, &e), -EPROTO);
	cr_assert_eq(wire_check_proto(&gwire_proto, &c, GWIRE_TERMINAL, tz, 1, &e), -EPROTO);
	struct wire_peer seen = { GWIRE_TO_GUARDIAN, 1u << GWIRE_TERMINAL };
	cr_assert_eq(wire_check_proto(&gwire_proto, &seen, GWIRE_TERMINAL, tz, 1, &e), -EPROTO,
		     "once only");
	/* cordon<->inner types mean nothing here. */
	cr_assert_eq(wire_check_proto(&gwire_proto, &g, WIRE_EXITED, 4, 0, &e), -EPROTO);
	cr_assert(strstr(e.msg, "protocol error"), "%s", e.msg);
}

Test(gwire, once_only_over_a_socket)
{
	int sv[2];
	pair(sv);
	struct gwire_sandbox sb = { 4242, 0, 1234567 };
	int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	cr_assert_eq(wire_send(sv[0], GWIRE_SANDBOX, &sb, sizeof(sb), fd), 0);
	cr_assert_eq(wire_send(sv[0], GWIRE_SANDBOX, &sb, sizeof(sb), -1), 0);
	cr_assert_eq(wire_send(sv[0], GWIRE_DONE, NULL, 0, -1), 0);
	close(fd);
	struct wire_peer g = guardian();
	struct wire_rec r;
	struct cordon_err e;
	cr_assert_eq(wire_recv_proto(&gwire_proto, sv[1], &g, &r, &e), 1);
	cr_assert_eq(r.type, GWIRE_SANDBOX);
	cr_assert_geq(r.fd, 0);
	struct gwire_sandbox back;
	cr_assert_eq(gwire_sandbox_parse(r.data, r.len, &back), 0);
	cr_assert_eq(back.pid, 4242);
	cr_assert_eq(back.start, 1234567);
	close(r.fd);
	cr_assert_eq(wire_recv_proto(&gwire_proto, sv[1], &g, &r, &e), -EPROTO,
		     "a second sandbox record was accepted");
	cr_assert_eq(wire_recv_proto(&gwire_proto, sv[1], &g, &r, &e), 1);
	cr_assert_eq(r.type, GWIRE_DONE);
	close(sv[0]);
	cr_assert_eq(wire_recv_proto(&gwire_proto, sv[1], &g, &r, &e), 0, "end of file");
	close(sv[1]);
}

Test(gwire, sandbox_payload)
{
	struct gwire_sandbox in = { 1, 0, 0 }, out;
	cr_assert_eq(gwire_sandbox_parse(&in, sizeof(in), &out), 0);
	in.pid = 0;
	cr_assert_eq(gwire_sandbox_parse(&in, sizeof(in), &out), -EPROTO);
	in.pid = -5;
	cr_assert_eq(gwire_sandbox_parse(&in, sizeof(in), &out), -EPROTO);
	in.pid = 4194305;
	cr_assert_eq(gwire_sandbox_parse(&in, sizeof(in), &out), -EPROTO);
	in.pid = 7;
	in.zero = 1;
	cr_assert_eq(gwire_sandbox_parse(&in, sizeof(in), &out), -EPROTO);
	in.zero = 0;
	cr_assert_eq(gwire_sandbox_parse(&in, sizeof(in) - 1, &out), -EPROTO);
}

static int parse_watch(int64_t sec, uint32_t nsec, int32_t owner, const char *root,
		       const char *names, struct gwire_watch *out, const char **r, const char **n)
{
	struct gwire_watch w;
	memset(&w, 0, sizeof(w));
	w.since_sec = sec;
	w.since_nsec = nsec;
	w.owner = owner;
	size_t rl = strlen(root);
	memcpy(w.text, root, rl + 1);
	memcpy(w.text + rl + 1, names, strlen(names) + 1);
	return gwire_watch_parse(&w, offsetof(struct gwire_watch, text) + rl + strlen(names) + 2,
				 out, r, n);
}

Test(gwire, watch_names_parse)
{
	struct gwire_watch out;
	const char *r, *n;
	cr_assert_eq(parse_watch(1700000000, 5, 1234, "/ws", ".git/.bashrc/.vscode", &out, &r, &n), 0);
	cr_assert_str_eq(r, "/ws");
	cr_assert_str_eq(n, ".git/.bashrc/.vscode");
	cr_assert_eq(out.owner, 1234);
}

Test(gwire, watch_names_refused)
{
	struct gwire_watch out;
	const char *r, *n;
	cr_assert_eq(parse_watch(1, 0, 1234, "/ws", "..", &out, &r, &n), -EPROTO, "no parent");
	cr_assert_eq(parse_watch(1, 0, 1234, "/ws", ".git/../x", &out, &r, &n), -EPROTO);
	cr_assert_eq(parse_watch(1, 0, 1234, "/ws", ".git//x", &out, &r, &n), -EPROTO, "empty name");
	cr_assert_eq(parse_watch(1, 0, 1234, "/ws", ".", &out, &r, &n), -EPROTO);
	cr_assert_eq(parse_watch(1, 1000000000, 1234, "/ws", ".git", &out, &r, &n), -EPROTO);
	cr_assert_eq(parse_watch(1, 0, 0, "/ws", ".git", &out, &r, &n), -EPROTO, "no owner");
	cr_assert_eq(parse_watch(1, 0, 1234, "/ws", "", &out, &r, &n), -EPROTO, "no names");
	cr_assert_eq(parse_watch(1, 0, 1234, "ws", ".git", &out, &r, &n), -EPROTO, "relative root");
}

static int parse_gitdir(uint32_t flags, uint64_t ino, const char *path, const char *co,
			const char **p, const char **c)
{
	struct gwire_gitdir g, out;
	memset(&g, 0, sizeof(g));
	g.since_sec = 1700000000;
	g.flags = flags;
	g.root_dev = 1;
	g.root_ino = ino;
	size_t pl = strlen(path);
	memcpy(g.text, path, pl + 1);
	memcpy(g.text + pl + 1, co, strlen(co) + 1);
	return gwire_gitdir_parse(&g, offsetof(struct gwire_gitdir, text) + pl + strlen(co) + 2,
				  &out, p, c);
}

Test(gwire, gitdir_parse)
{
	const char *p, *c;
	cr_assert_eq(parse_gitdir(GWIRE_GITDIR_TOP | GWIRE_GITDIR_REPO, 0, "/w/.git", "", &p, &c), 0);
	cr_assert_str_eq(p, "/w/.git");
	cr_assert_null(c);
	cr_assert_eq(parse_gitdir(GWIRE_GITDIR_REPO, 7, "/m/.git/worktrees/wt", "/w", &p, &c), 0);
	cr_assert_str_eq(c, "/w");
	cr_assert_eq(parse_gitdir(4, 0, "/w/.git", "", &p, &c), -EPROTO, "unknown flag");
	cr_assert_eq(parse_gitdir(0, 0, "w/.git", "", &p, &c), -EPROTO, "relative");
	cr_assert_eq(parse_gitdir(0, 7, "/w/.git", "w", &p, &c), -EPROTO, "relative checkout");
	cr_assert_eq(parse_gitdir(0, 0, "/w/.git", "/w", &p, &c), -EPROTO, "checkout without identity");
}
