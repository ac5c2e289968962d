/* netcheck.c: see netcheck.h. */
#include "netcheck.h"

#include <errno.h>
#include <net/if.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>

#include <linux/if_addr.h>
#include <linux/if_link.h>
#include <linux/rtnetlink.h>
#include <netlink/attr.h>
#include <netlink/errno.h>
#include <netlink/msg.h>
#include <netlink/netlink.h>
#include <netlink/route/rtnl.h>
#include <netlink/socket.h>

/* A namespace that passes has one link; more than this many is refused
 * whatever they are, so the listing keeps only the first ones. */
#define NETCHECK_MAX_LINKS 16

#define NETCHECK_ADVICE "the command was not run; `cordon doctor` checks bwrap and the kernel's namespaces"

/* Copy an interface name for a message: bounded, and with anything that is
 * not printable ASCII replaced, so a name cannot carry terminal escapes. */
static void nc_printable(char *out, size_t outlen, const char *name, size_t namelen)
{
	size_t len = strnlen(name, namelen);
	if (len >= outlen)
		len = outlen - 1;
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)name[i];
		if (c >= 0x20 && c < 0x7f)
			out[i] = name[i];
		else
			out[i] = '?';
	}
	out[len] = '\0';
}

static int nc_is_lo(const struct netcheck_link *l)
{
	return strncmp(l->name, "lo", sizeof(l->name)) == 0;
}

int netcheck_decide(const struct netcheck_link *links, size_t n, struct cordon_err *e)
{
	if (n > 0 && !links)
		return err_set(e, EINVAL, "netcheck: no link list");

	const struct netcheck_link *lo = NULL;
	for (size_t i = 0; i < n; i++) {
		char name[sizeof(links[i].name) + 1];
		nc_printable(name, sizeof(name), links[i].name, sizeof(links[i].name));
		if (!nc_is_lo(&links[i]) || lo)
			return err_set(e, EPERM,
				       "the sandbox's network namespace is not isolated: "
				       "interface '%s' exists besides lo; %s",
				       name, NETCHECK_ADVICE);
		lo = &links[i];
	}
	/* bwrap --unshare-net brings lo up and gives it 127.0.0.1; if either is
	 * missing it failed half-way, typically because an AppArmor or SELinux
	 * user-namespace restriction refused its RTM_NEWADDR, and the command
	 * would see a network that does not work rather than none. */
	if (!lo)
		return err_set(e, EPERM,
			       "the sandbox's network namespace has no loopback "
			       "interface lo; %s", NETCHECK_ADVICE);
	if (!(lo->flags & IFF_UP))
		return err_set(e, EPERM,
			       "lo is down in the sandbox's network namespace (bwrap "
			       "could not set up loopback); %s", NETCHECK_ADVICE);
	if (!lo->has_localhost4)
		return err_set(e, EPERM,
			       "lo has no address 127.0.0.1 in the sandbox's network "
			       "namespace (bwrap could not set up loopback); %s",
			       NETCHECK_ADVICE);
	return 0;
}

/* libnl returns its own NLE_* codes, not errno values. */
static int nc_errno(int nlerr)
{
	switch (nlerr < 0 ? -nlerr : nlerr) {
	case NLE_NOMEM:
		return ENOMEM;
	case NLE_PERM:
		return EPERM;
	case NLE_NOACCESS:
		return EACCES;
	case NLE_AF_NOSUPPORT:
		return EAFNOSUPPORT;
	case NLE_PROTO_MISMATCH:
		return EPROTONOSUPPORT;
	case NLE_INTR:
		return EINTR;
	case NLE_AGAIN:
		return EAGAIN;
	case NLE_BAD_SOCK:
		return EBADF;
	default:
		return EIO;
	}
}

static void nc_sock_free(struct nl_sock **sk)
{
	if (*sk)
		nl_socket_free(*sk);
}

/* What the two dumps fill in. */
struct nc_state {
	struct netcheck_link list[NETCHECK_MAX_LINKS];
	int ifindex[NETCHECK_MAX_LINKS];
	size_t n;
	size_t extra;   /* links beyond NETCHECK_MAX_LINKS: refused anyway */
};

static int nc_link(struct nl_msg *msg, void *arg)
{
	struct nc_state *st = arg;
	struct nlmsghdr *h = nlmsg_hdr(msg);
	if (h->nlmsg_type != RTM_NEWLINK || nlmsg_datalen(h) < (int)sizeof(struct ifinfomsg))
		return NL_SKIP;
	if (st->n >= NETCHECK_MAX_LINKS) {
		st->extra++;
		return NL_OK;
	}
	const struct ifinfomsg *ifi = nlmsg_data(h);
	struct netcheck_link *l = &st->list[st->n];
	struct nlattr *name = nlmsg_find_attr(h, sizeof(*ifi), IFLA_IFNAME);
	if (name) {
		size_t len = strnlen(nla_data(name), (size_t)nla_len(name));
		if (len >= sizeof(l->name))
			len = sizeof(l->name) - 1;
		memcpy(l->name, nla_data(name), len);
		l->name[len] = '\0';
	}
	l->flags = ifi->ifi_flags;
	st->ifindex[st->n++] = ifi->ifi_index;
	return NL_OK;
}

static int nc_addr(struct nl_msg *msg, void *arg)
{
	static const unsigned char localhost4[4] = { 127, 0, 0, 1 };
	struct nc_state *st = arg;
	struct nlmsghdr *h = nlmsg_hdr(msg);
	if (h->nlmsg_type != RTM_NEWADDR || nlmsg_datalen(h) < (int)sizeof(struct ifaddrmsg))
		return NL_SKIP;
	const struct ifaddrmsg *ifa = nlmsg_data(h);
	if (ifa->ifa_family != AF_INET)
		return NL_OK;
	struct nlattr *local = nlmsg_find_attr(h, sizeof(*ifa), IFA_LOCAL);
	if (!local)
		local = nlmsg_find_attr(h, sizeof(*ifa), IFA_ADDRESS);
	if (!local || nla_len(local) != (int)sizeof(localhost4) ||
	    memcmp(nla_data(local), localhost4, sizeof(localhost4)) != 0)
		return NL_OK;
	for (size_t i = 0; i < st->n; i++)
		if (st->ifindex[i] == (int)ifa->ifa_index)
			st->list[i].has_localhost4 = 1;
	return NL_OK;
}

/* One rtnetlink dump, each message handed to cb. */
static int nc_dump(struct nl_sock *sk, int type, int family, nl_recvmsg_msg_cb_t cb,
		   struct nc_state *st, const char *what, struct cordon_err *e)
{
	int r = nl_socket_modify_cb(sk, NL_CB_VALID, NL_CB_CUSTOM, cb, st);
	if (r >= 0)
		r = nl_rtgen_request(sk, type, family, NLM_F_DUMP);
	if (r >= 0)
		r = nl_recvmsgs_default(sk);
	if (r < 0)
		return err_set(e, nc_errno(r), "netcheck: cannot list network %s: %s", what,
			       nl_geterror(r));
	return 0;
}

int netcheck_loopback_only(struct cordon_err *e)
{
	/* The message-level API rather than libnl's link and address caches:
	 * the caches build an object per attribute of every link, which cost
	 * cordon-inner a third of a millisecond on every start under musl. */
	__attribute__((cleanup(nc_sock_free))) struct nl_sock *sk = nl_socket_alloc();
	if (!sk)
		return err_set(e, ENOMEM, "netcheck: cannot allocate a netlink socket");

	/* libnl opens the socket with SOCK_CLOEXEC; nl_socket_free closes it. */
	int r = nl_connect(sk, NETLINK_ROUTE);
	if (r < 0)
		return err_set(e, nc_errno(r), "netcheck: cannot open rtnetlink: %s",
			       nl_geterror(r));
	struct nc_state st;
	memset(&st, 0, sizeof(st));
	if ((r = nc_dump(sk, RTM_GETLINK, AF_UNSPEC, nc_link, &st, "interfaces", e)) < 0)
		return r;
	if ((r = nc_dump(sk, RTM_GETADDR, AF_INET, nc_addr, &st, "addresses", e)) < 0)
		return r;
	if (st.extra)
		return err_set(e, EPERM, "more than %d network interfaces in the sandbox's network "
			       "namespace, where only lo may exist; " NETCHECK_ADVICE,
			       NETCHECK_MAX_LINKS);
	return netcheck_decide(st.list, st.n, e);
}

int netcheck_mode_parse(const char *s, enum netcheck_mode *mode)
{
	if (strcmp(s, "none") == 0)
		*mode = NETCHECK_NONE;
	else if (strcmp(s, "proxy") == 0)
		*mode = NETCHECK_PROXY;
	else if (strcmp(s, "full") == 0)
		*mode = NETCHECK_FULL;
	else
		return -EINVAL;
	return 0;
}

int netcheck_for_mode(enum netcheck_mode mode, struct cordon_err *e)
{
	if (mode == NETCHECK_FULL)
		return 0;
	return netcheck_loopback_only(e);
}
