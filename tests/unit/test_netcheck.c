/* test_netcheck.c: the pure decision over link lists, then the rtnetlink
 * listing in a fresh network namespace (in a child, when one can be made). */
#include <criterion/criterion.h>
#include <criterion/logging.h>

#include <errno.h>
#include <net/if.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "netcheck.h"

static struct netcheck_link link_of(const char *name, unsigned flags, int localhost4)
{
	struct netcheck_link l;
	memset(&l, 0, sizeof(l));
	snprintf(l.name, sizeof(l.name), "%s", name);
	l.flags = flags;
	l.has_localhost4 = localhost4;
	return l;
}

static void expect_refusal(const struct netcheck_link *links, size_t n, const char *needle)
{
	struct cordon_err e;
	memset(&e, 0, sizeof(e));
	cr_assert_eq(netcheck_decide(links, n, &e), -EPERM);
	cr_assert_eq(e.err, EPERM);
	cr_assert_eq(e.exit_code, EXIT_CORDON_FAILED);
	cr_assert_not_null(strstr(e.msg, needle), "want '%s' in: %s", needle, e.msg);
	cr_assert_not_null(strstr(e.msg, "cordon doctor"), "no advice in: %s", e.msg);
}

Test(netcheck_decide, only_lo_up_with_address_passes)
{
	struct netcheck_link l = link_of("lo", IFF_UP | IFF_LOOPBACK | IFF_RUNNING, 1);
	struct cordon_err e;
	memset(&e, 0, sizeof(e));
	cr_assert_eq(netcheck_decide(&l, 1, &e), 0);
	cr_assert_eq(e.err, 0, "error record touched on success");
	cr_assert_eq(netcheck_decide(&l, 1, NULL), 0);
}

Test(netcheck_decide, lo_down)
{
	struct netcheck_link l = link_of("lo", IFF_LOOPBACK, 1);
	expect_refusal(&l, 1, "lo is down");
}

Test(netcheck_decide, lo_down_and_no_address_reports_down_first)
{
	struct netcheck_link l = link_of("lo", IFF_LOOPBACK, 0);
	expect_refusal(&l, 1, "lo is down");
}

Test(netcheck_decide, extra_eth0)
{
	struct netcheck_link l[2] = {
		link_of("lo", IFF_UP | IFF_LOOPBACK, 1),
		link_of("eth0", IFF_UP, 0),
	};
	expect_refusal(l, 2, "'eth0'");
	/* Order does not matter. */
	struct netcheck_link r[2] = { l[1], l[0] };
	expect_refusal(r, 2, "'eth0'");
}

Test(netcheck_decide, extra_interface_even_when_down)
{
	struct netcheck_link l[2] = {
		link_of("lo", IFF_UP | IFF_LOOPBACK, 1),
		link_of("dummy0", 0, 0),
	};
	expect_refusal(l, 2, "'dummy0'");
}

Test(netcheck_decide, no_lo_at_all)
{
	expect_refusal(NULL, 0, "no loopback interface lo");
	struct netcheck_link l = link_of("eth0", IFF_UP, 1);
	expect_refusal(&l, 1, "'eth0'");
}

Test(netcheck_decide, lo_without_address)
{
	struct netcheck_link l = link_of("lo", IFF_UP | IFF_LOOPBACK, 0);
	expect_refusal(&l, 1, "lo has no address 127.0.0.1");
}

Test(netcheck_decide, two_lo_entries_are_refused)
{
	struct netcheck_link l[2] = {
		link_of("lo", IFF_UP | IFF_LOOPBACK, 1),
		link_of("lo", IFF_UP | IFF_LOOPBACK, 1),
	};
	expect_refusal(l, 2, "'lo'");
}

Test(netcheck_decide, name_prefixed_lo_is_not_lo)
{
	struct netcheck_link l[2] = {
		link_of("lo", IFF_UP | IFF_LOOPBACK, 1),
		link_of("lo0", IFF_UP, 1),
	};
	expect_refusal(l, 2, "'lo0'");
}

Test(netcheck_decide, unterminated_and_unprintable_names)
{
	struct netcheck_link l[2];
	l[0] = link_of("lo", IFF_UP | IFF_LOOPBACK, 1);
	memset(&l[1], 0, sizeof(l[1]));
	memset(l[1].name, 'a', sizeof(l[1].name));
	l[1].name[0] = '\x1b';
	struct cordon_err e;
	memset(&e, 0, sizeof(e));
	cr_assert_eq(netcheck_decide(l, 2, &e), -EPERM);
	cr_assert_null(strchr(e.msg, '\x1b'), "escape reached the message: %s", e.msg);
	cr_assert_not_null(strstr(e.msg, "'?aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa'"), "msg: %s", e.msg);
}

Test(netcheck_decide, null_list_with_count_is_einval)
{
	struct cordon_err e;
	memset(&e, 0, sizeof(e));
	cr_assert_eq(netcheck_decide(NULL, 1, &e), -EINVAL);
}

/* ---- the rtnetlink listing, in a fresh network namespace ---- */

/* 0 when the child now has its own network namespace, else -errno. */
static int child_unshare_net(void)
{
	if (unshare(CLONE_NEWNET) == 0)
		return 0;
	if (unshare(CLONE_NEWUSER | CLONE_NEWNET) == 0)
		return 0;
	return -errno;
}

static int lo_set_up(void)
{
	int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (s < 0)
		return -errno;
	struct ifreq ifr;
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "lo");
	int r = 0;
	if (ioctl(s, SIOCGIFFLAGS, &ifr) < 0)
		r = -errno;
	ifr.ifr_flags |= IFF_UP;
	if (r == 0 && ioctl(s, SIOCSIFFLAGS, &ifr) < 0)
		r = -errno;
	close(s);
	return r;
}

/* Exit codes: 0 pass, 2 no namespace could be made, 1 a check failed. */
static void child_fresh_netns(void)
{
	if (child_unshare_net() < 0)
		_exit(2);
	struct cordon_err e;
	memset(&e, 0, sizeof(e));
	int r = netcheck_loopback_only(&e);
	if (r != -EPERM || !strstr(e.msg, "lo is down")) {
		fprintf(stderr, "child: fresh netns gave %d: %s\n", r, e.msg);
		_exit(1);
	}
	r = lo_set_up();
	if (r < 0) {
		fprintf(stderr, "child: cannot set lo up: %s\n", strerror(-r));
		_exit(1);
	}
	/* The kernel gives a loopback 127.0.0.1/8 when it comes up, as bwrap's
	 * loopback setup does explicitly. */
	memset(&e, 0, sizeof(e));
	r = netcheck_loopback_only(&e);
	if (r != 0) {
		fprintf(stderr, "child: lo up gave %d: %s\n", r, e.msg);
		_exit(1);
	}
	_exit(0);
}

Test(netcheck_loopback_only, fresh_namespace)
{
	pid_t pid = fork();
	cr_assert_geq(pid, 0, "fork: %s", strerror(errno));
	if (pid == 0)
		child_fresh_netns();
	int st;
	pid_t w;
	do
		w = waitpid(pid, &st, 0);
	while (w < 0 && errno == EINTR);
	cr_assert_eq(w, pid);
	cr_assert(WIFEXITED(st), "child status 0x%x", st);
	if (WEXITSTATUS(st) == 2) {
		cr_log_warn("netcheck: cannot create a network namespace here (no "
			    "unprivileged user namespaces?); listing not tested");
		cr_skip_test("no network namespace available");
	}
	cr_assert_eq(WEXITSTATUS(st), 0, "child failed; see its message on stderr");
}

Test(netcheck_mode, parse)
{
	enum netcheck_mode m = NETCHECK_FULL;
	cr_assert_eq(netcheck_mode_parse("none", &m), 0);
	cr_assert_eq(m, NETCHECK_NONE);
	cr_assert_eq(netcheck_mode_parse("proxy", &m), 0);
	cr_assert_eq(m, NETCHECK_PROXY);
	cr_assert_eq(netcheck_mode_parse("full", &m), 0);
	cr_assert_eq(m, NETCHECK_FULL);
	cr_assert_eq(netcheck_mode_parse("Full", &m), -EINVAL);
	cr_assert_eq(netcheck_mode_parse("", &m), -EINVAL);
}

/* full is the host's namespace, asked for: it passes even where the
 * loopback-only check would refuse (this test runs in the host's namespace,
 * which has more than lo on any machine with a network). */
Test(netcheck_mode, full_passes_unchecked)
{
	struct cordon_err e = { 0 };
	cr_assert_eq(netcheck_for_mode(NETCHECK_FULL, &e), 0);
}
