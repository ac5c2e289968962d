/* test_intake.c: the bridge's argument parser, the listener checks and the
 * test resolver map's parser. */
#include <criterion/criterion.h>

#include <stdlib.h>

#include <arpa/inet.h>
#include <errno.h>
#include <string.h>
#include <sys/socket.h>

#include "intake.h"

Test(intake, listener_checks)
{
	struct intake_sock_facts f = { AF_INET, SOCK_STREAM, 1, AF_INET, { 127, 0, 0, 1 }, 3128 };
	struct cordon_err e;
	cr_assert_eq(intake_check_listener(&f, 3128, &e), 0);
	cr_assert_eq(intake_check_listener(&f, 1080, &e), -EPROTO, "wrong port");
	struct intake_sock_facts g = f;
	g.type = SOCK_DGRAM;
	cr_assert_eq(intake_check_listener(&g, 3128, &e), -EPROTO);
	cr_assert(strstr(e.msg, "not a TCP"), "%s", e.msg);
	g = f;
	g.domain = AF_INET6;
	cr_assert_eq(intake_check_listener(&g, 3128, &e), -EPROTO);
	g = f;
	g.accepting = 0;
	cr_assert_eq(intake_check_listener(&g, 3128, &e), -EPROTO);
	cr_assert(strstr(e.msg, "not listening"), "%s", e.msg);
	g = f;
	g.addr[0] = 0;
	cr_assert_eq(intake_check_listener(&g, 3128, &e), -EPROTO, "0.0.0.0 would be reachable from the host");
	cr_assert(strstr(e.msg, "0.0.0.1:3128"), "%s", e.msg);
}

/* in holds the last parse's rules (or zeros): they go first, as the
 * bridge itself keeps its one parse for its lifetime. */
static int parse(struct intake *in, struct cordon_err *e, char **argv)
{
	free(in->allow);
	free(in->deny);
	int argc = 0;
	while (argv[argc])
		argc++;
	return intake_args(argc, argv, in, e);
}

Test(intake, args)
{
	struct intake in = { 0 };
	struct cordon_err e;
	char *ok[] = { "cordon-bridge", "--sandbox", "5", "--parent", "77", "--allow", "a.test",
		       "--deny", "*", "--net-log-fd", "7", NULL };
	cr_assert_eq(parse(&in, &e, ok), 0, "%s", e.msg);
	cr_assert_eq(in.sandbox, 5);
	cr_assert_eq(in.parent, 77);
	cr_assert_eq(in.log_fd, 7);
	cr_assert_eq(in.nallow, 1);
	cr_assert_eq(in.ndeny, 1);
	cr_assert_eq(in.deny[0].kind, ALLOW_ANY, "a deny may be everything");
	char *star[] = { "cordon-bridge", "--sandbox", "5", "--parent", "7", "--allow", "*", NULL };
	cr_assert_lt(parse(&in, &e, star), 0);
	cr_assert(strstr(e.msg, "every host"), "%s", e.msg);
	char *bad[] = { "cordon-bridge", "--sandbox", "5", "--parent", "7", "--allow", "a b", NULL };
	cr_assert_lt(parse(&in, &e, bad), 0);
	cr_assert(strstr(e.msg, "--allow-domain a b"), "%s", e.msg);
	char *tok[] = { "cordon-bridge", "--sandbox", "5", "--parent", "7", "--attribution-token", "t", NULL };
	cr_assert_lt(parse(&in, &e, tok), 0);
	char *none[] = { "cordon-bridge", NULL };
	cr_assert_lt(parse(&in, &e, none), 0);
	cr_assert(strstr(e.msg, "started by cordon"), "%s", e.msg);
	char *dangling[] = { "cordon-bridge", "--sandbox", NULL };
	cr_assert_lt(parse(&in, &e, dangling), 0);
	free(in.allow);
	free(in.deny);
}

Test(intake, map)
{
	struct resolve_map m;
	struct cordon_err e;
	cr_assert_eq(intake_parse_map("# test\n127.0.0.1 Allowed.TEST denied.test\n\n::1 v6.test # c\n",
				      &m, &e), 0, "%s", e.msg);
	cr_assert_eq(m.n, 3);
	cr_assert_str_eq(m.v[0].name, "allowed.test");
	cr_assert_eq(m.v[2].family, AF_INET6);
	struct resolve_result r;
	cr_assert_eq(resolve_map_lookup(&m, "denied.test", &r), 1);
	cr_assert_eq(r.n, 1);
	cr_assert_eq(r.addr[0][0], 127);
	cr_assert_eq(resolve_map_lookup(&m, "other.test", &r), 0);
	cr_assert_eq(r.n, 0);
	free(m.v);
	cr_assert_lt(intake_parse_map("1.2.3 x.test\n", &m, &e), 0);
	free(m.v);
	cr_assert_lt(intake_parse_map("1.2.3.4 127.1\n", &m, &e), 0, "a name, not an address");
	free(m.v);
	cr_assert_lt(intake_parse_map("1.2.3.4 a%b\n", &m, &e), 0);
	free(m.v);
}
