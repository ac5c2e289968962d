/* test_bridge.c: cordon-bridge's command line from the config, and the
 * socketpair only with --net proxy. */
#include <criterion/criterion.h>

#include <string.h>
#include <unistd.h>

#include "launch/bridge.h"

static int has_pair(const struct argv *a, const char *k, const char *v)
{
	for (size_t i = 0; i + 1 < a->n; i++)
		if (strcmp(a->v[i], k) == 0 && strcmp(a->v[i + 1], v) == 0)
			return 1;
	return 0;
}

Test(bridge_argv, every_proxy_setting)
{
	const char *allow[] = { "a.test", "*.b.test:443" }, *deny[] = { "c.a.test" };
	struct config c;
	memset(&c, 0, sizeof(c));
	c.net = NET_PROXY;
	c.allow_domain.v = allow;
	c.allow_domain.n = 2;
	c.deny_domain.v = deny;
	c.deny_domain.n = 1;
	c.net_log = "/var/log/n";
	c.proxy_upstream = "tcp:10.0.0.1:3128";
	c.attribution_token = "tok";
	struct argv a;
	struct cordon_err e;
	cr_assert_eq(bridge_argv(&c, 9, 1234, &a, &e), 0);
	cr_assert_str_eq(a.v[0], "cordon-bridge");
	cr_assert(has_pair(&a, "--sandbox", "9") && has_pair(&a, "--parent", "1234"));
	cr_assert(has_pair(&a, "--allow", "a.test") && has_pair(&a, "--allow", "*.b.test:443"));
	cr_assert(has_pair(&a, "--deny", "c.a.test"));
	/* The log is a descriptor cordon opened, never a path the bridge opens. */
	for (size_t i = 0; i < a.n; i++)
		cr_assert(!strstr(a.v[i], "/var/log/n"), "%s", a.v[i]);
	cr_assert(has_pair(&a, "--upstream", "tcp:10.0.0.1:3128"));
	cr_assert(has_pair(&a, "--attribution-token", "tok"));
	cr_assert_null(a.v[a.n]);
	argv_free(&a);
}

Test(bridge_link, socketpair_only_with_proxy)
{
	struct config c;
	memset(&c, 0, sizeof(c));
	struct bridge_link l = BRIDGE_LINK_INIT;
	struct cordon_err e;
	c.net = NET_FULL;
	cr_assert_eq(bridge_link_open(&l, &c, &e), 0);
	cr_assert_eq(bridge_link_inner_fd(&l), -1);
	c.net = NET_PROXY;
	cr_assert_eq(bridge_link_open(&l, &c, &e), 0);
	cr_assert_geq(bridge_link_inner_fd(&l), 0);
	bridge_link_started(&l);
	cr_assert_eq(bridge_link_inner_fd(&l), -1);
	cr_assert_geq(l.decisions, 0, "the decisions are read back for every proxied run");
	bridge_end(&l, 0);
	cr_assert_eq(l.sock[0], -1);
	sys_close(&l.decisions);
}

/* The upstream's credentials go to the bridge in a memfd, never on its
 * command line (any host user can read that in /proc). */
Test(bridge_link, credentials_in_a_memfd_not_argv)
{
	struct config c;
	memset(&c, 0, sizeof(c));
	c.net = NET_PROXY;
	c.proxy_upstream = "tcp:10.0.0.1:3128";
	c.proxy_upstream_auth = "alice:s3cret";
	struct bridge_link l = BRIDGE_LINK_INIT;
	struct cordon_err e;
	cr_assert_eq(bridge_link_open(&l, &c, &e), 0, "%s", e.msg);
	cr_assert_geq(l.auth, 0);
	char buf[64] = { 0 };
	cr_assert_eq(pread(l.auth, buf, sizeof(buf) - 1, 0), 12);
	cr_assert_str_eq(buf, "alice:s3cret");
	struct argv a;
	cr_assert_eq(bridge_argv(&c, 9, 1234, &a, &e), 0);
	for (size_t i = 0; i < a.n; i++)
		cr_assert_null(strstr(a.v[i], "s3cret"), "%s", a.v[i]);
	argv_free(&a);
	bridge_end(&l, 0);
	cr_assert_eq(l.auth, -1, "bridge_end closes the memfd when the bridge never started");
}
