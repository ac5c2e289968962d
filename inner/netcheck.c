/* netcheck.c: see netcheck.h. */
#include "netcheck.h"

#include <errno.h>
#include <net/if.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>

#include <netlink/addr.h>
#include <netlink/cache.h>
#include <netlink/errno.h>
#include <netlink/netlink.h>
#include <netlink/route/addr.h>
#include <netlink/route/link.h>
#include <netlink/socket.h>

/* A namespace that passes has one link; more than this many is refused
 * whatever they are, so the listing keeps only the first ones. */
#define NETCHECK_MAX_LINKS 16

#define NETCHECK_ADVICE "run `cordon doctor`; if the command needs the host network, use --net full"

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

static void nc_cache_free(struct nl_cache **c)
{
	if (*c)
		nl_cache_free(*c);
}

int netcheck_loopback_only(struct cordon_err *e)
{
	__attribute__((cleanup(nc_sock_free))) struct nl_sock *sk = nl_socket_alloc();
	__attribute__((cleanup(nc_cache_free))) struct nl_cache *links = NULL;
	__attribute__((cleanup(nc_cache_free))) struct nl_cache *addrs = NULL;
	if (!sk)
		return err_set(e, ENOMEM, "netcheck: cannot allocate a netlink socket");

	/* libnl opens the socket with SOCK_CLOEXEC; nl_socket_free closes it. */
	int r = nl_connect(sk, NETLINK_ROUTE);
	if (r < 0)
		return err_set(e, nc_errno(r), "netcheck: cannot open rtnetlink: %s",
			       nl_geterror(r));
	r = rtnl_link_alloc_cache(sk, AF_UNSPEC, &links);
	if (r < 0)
		return err_set(e, nc_errno(r), "netcheck: cannot list network interfaces: %s",
			       nl_geterror(r));
	r = rtnl_addr_alloc_cache(sk, &addrs);
	if (r < 0)
		return err_set(e, nc_errno(r), "netcheck: cannot list network addresses: %s",
			       nl_geterror(r));

	struct netcheck_link list[NETCHECK_MAX_LINKS];
	int ifindex[NETCHECK_MAX_LINKS];
	size_t n = 0;
	memset(list, 0, sizeof(list));
	for (struct nl_object *o = nl_cache_get_first(links);
	     o && n < NETCHECK_MAX_LINKS; o = nl_cache_get_next(o)) {
		struct rtnl_link *l = (struct rtnl_link *)o;
		const char *name = rtnl_link_get_name(l);
		if (!name)
			name = "";
		size_t len = strnlen(name, sizeof(list[n].name) - 1);
		memcpy(list[n].name, name, len);
		list[n].name[len] = '\0';
		list[n].flags = rtnl_link_get_flags(l);
		ifindex[n] = rtnl_link_get_ifindex(l);
		n++;
	}

	static const unsigned char localhost4[4] = { 127, 0, 0, 1 };
	for (struct nl_object *o = nl_cache_get_first(addrs); o; o = nl_cache_get_next(o)) {
		struct rtnl_addr *a = (struct rtnl_addr *)o;
		if (rtnl_addr_get_family(a) != AF_INET)
			continue;
		struct nl_addr *local = rtnl_addr_get_local(a);
		if (!local || nl_addr_get_len(local) != sizeof(localhost4) ||
		    memcmp(nl_addr_get_binary_addr(local), localhost4, sizeof(localhost4)) != 0)
			continue;
		int idx = rtnl_addr_get_ifindex(a);
		for (size_t i = 0; i < n; i++)
			if (ifindex[i] == idx)
				list[i].has_localhost4 = 1;
	}

	return netcheck_decide(list, n, e);
}
