/* intake.c: see intake.h. */
#include "intake.h"

#include <arpa/inet.h>
#include <errno.h>
#include <ifaddrs.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>
#include "grow.h"

#define INTAKE_MAP_MAX 65536

static int ik_rule(const char *flag, const char *pat, struct allow_rule **v, size_t *n,
		   size_t *cap, struct cordon_err *e)
{
	if (grow_reserve(v, cap, *n + 1, sizeof(**v)) < 0)
		return err_set(e, ENOMEM, "cordon-bridge: out of memory");
	struct allow_rule *nv = *v;
	/* A deny may be a bare '*'; an allow-all has no flag in this version. */
	return allow_rule_parse(pat, flag, strcmp(flag, "--deny-domain") == 0, &nv[(*n)++], e) < 0
		       ? (--*n, -EINVAL) : 0;
}

static int ik_int(const char *s, long min, long max, long *v)
{
	char *end;
	errno = 0;
	*v = strtol(s, &end, 10);
	return (!*s || *end || errno || *v < min || *v > max) ? -1 : 0;
}

int intake_args(int argc, char **argv, struct intake *in, struct cordon_err *e)
{
	memset(in, 0, sizeof(*in));
	in->sandbox = -1;
	in->log_fd = -1;
	in->decisions_fd = -1;
	in->auth_fd = -1;
	for (size_t i = 0; i < WIRE_BRIDGE_NLISTENERS; i++)
		in->listeners[i] = -1;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		long n;
		int r = 0;
		if (!v)
			return err_set(e, EINVAL, "cordon-bridge: %s needs a value "
				       "(cordon-bridge is started by cordon, not by hand)", a);
		i++;
		if (strcmp(a, "--sandbox") == 0 && ik_int(v, 3, 65535, &n) == 0)
			in->sandbox = (int)n;
		else if (strcmp(a, "--parent") == 0 && ik_int(v, 1, 1L << 30, &n) == 0)
			in->parent = (pid_t)n;
		else if (strcmp(a, "--allow") == 0)
			r = ik_rule("--allow-domain", v, &in->allow, &in->nallow, &in->capallow, e);
		else if (strcmp(a, "--deny") == 0)
			r = ik_rule("--deny-domain", v, &in->deny, &in->ndeny, &in->capdeny, e);
		else if (strcmp(a, "--net-log-fd") == 0 && ik_int(v, 3, 65535, &n) == 0)
			in->log_fd = (int)n;
		else if (strcmp(a, "--decisions") == 0 && ik_int(v, 3, 65535, &n) == 0)
			in->decisions_fd = (int)n;
		else if (strcmp(a, "--upstream") == 0)
			in->upstream_spec = v;
		else if (strcmp(a, "--attribution-token") == 0)
			in->token = v;
		else if (strcmp(a, "--upstream-auth") == 0 && ik_int(v, 3, 65535, &n) == 0)
			in->auth_fd = (int)n;
		else
			return err_set(e, EINVAL, "cordon-bridge: bad argument %s "
				       "(cordon-bridge is started by cordon, not by hand)", a);
		if (r < 0)
			return r;
	}
	if (in->sandbox < 0 || in->parent <= 0)
		return err_set(e, EINVAL, "cordon-bridge is started by cordon, not by hand");
	if ((in->token || in->auth_fd >= 0) && !in->upstream_spec)
		return err_set(e, EINVAL, "--attribution-token needs --proxy-upstream");
	return 0;
}

int intake_check_listener(const struct intake_sock_facts *f, unsigned want_port,
			  struct cordon_err *e)
{
	static const unsigned char lo[4] = { 127, 0, 0, 1 };
	if (f->domain != AF_INET || f->type != SOCK_STREAM)
		return err_set(e, EPROTO, "cordon-bridge: the proxy listener for port %u is not "
			       "a TCP/IPv4 socket; the command was not run", want_port);
	if (!f->accepting)
		return err_set(e, EPROTO, "cordon-bridge: the proxy socket for port %u is not "
			       "listening; the command was not run", want_port);
	if (f->family != AF_INET || memcmp(f->addr, lo, 4) != 0 || f->port != want_port)
		return err_set(e, EPROTO, "cordon-bridge: the proxy listener is bound to "
			       "%u.%u.%u.%u:%u, not 127.0.0.1:%u; the command was not run",
			       f->addr[0], f->addr[1], f->addr[2], f->addr[3], f->port, want_port);
	return 0;
}

static int ik_facts(int fd, struct intake_sock_facts *f)
{
	socklen_t l = sizeof(int);
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);
	memset(&ss, 0, sizeof(ss));
	memset(f, 0, sizeof(*f));
	if (getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &f->domain, &l) < 0)
		return -errno;
	l = sizeof(int);
	if (getsockopt(fd, SOL_SOCKET, SO_TYPE, &f->type, &l) < 0)
		return -errno;
	l = sizeof(int);
	if (getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &f->accepting, &l) < 0)
		return -errno;
	if (getsockname(fd, (struct sockaddr *)&ss, &sl) < 0)
		return -errno;
	f->family = ss.ss_family;
	if (ss.ss_family == AF_INET) {
		const struct sockaddr_in *s = (const struct sockaddr_in *)&ss;
		memcpy(f->addr, &s->sin_addr, 4);
		f->port = ntohs(s->sin_port);
	}
	return 0;
}

static int ik_listeners(struct intake *in, struct cordon_err *e)
{
	static const unsigned ports[WIRE_BRIDGE_NLISTENERS] = { WIRE_BRIDGE_HTTP_PORT,
								WIRE_BRIDGE_SOCKS_PORT };
	struct wire_bridge_peer peer = { WIRE_BRIDGE_TO_BRIDGE, 0 };
	uint32_t got = 0;
	for (;;) {
		struct wire_bridge_rec rec;
		int r = wire_bridge_recv(in->sandbox, &peer, &rec, e);
		if (r <= 0)
			return r == 0 ? 1 : r;
		if (rec.type == WIRE_BRIDGE_LISTENERS_END) {
			in->listeners_end = 1;
			uint32_t count;
			memcpy(&count, rec.data, sizeof(count));
			if (count != got || got != WIRE_BRIDGE_NLISTENERS)
				return err_set(e, EPROTO, "cordon-bridge: %u proxy listeners, wanted %d",
					       got, WIRE_BRIDGE_NLISTENERS);
			return 0;
		}
		AUTO_FD fd = rec.fd;
		uint16_t port;
		memcpy(&port, rec.data, sizeof(port));
		size_t slot = WIRE_BRIDGE_NLISTENERS;
		for (size_t i = 0; i < WIRE_BRIDGE_NLISTENERS; i++)
			if (ports[i] == port)
				slot = i;
		if (slot == WIRE_BRIDGE_NLISTENERS || in->listeners[slot] >= 0)
			return err_set(e, EPROTO, "cordon-bridge: unexpected listener for port %u", port);
		struct intake_sock_facts f;
		if ((r = ik_facts(fd, &f)) < 0)
			return err_sys(e, -r, "cordon-bridge: cannot inspect the proxy listener");
		if ((r = intake_check_listener(&f, port, e)) < 0)
			return r;
		if (fcntl(fd, F_SETFL, O_NONBLOCK) < 0)
			return err_sys(e, errno, "cordon-bridge: listener");
		in->listeners[slot] = sys_take_fd(&fd);
		got++;
	}
}

int intake_parse_map(const char *text, struct resolve_map *map, struct cordon_err *e)
{
	memset(map, 0, sizeof(*map));
	const char *p = text;
	while (*p) {
		const char *eol = strchr(p, '\n');
		size_t len = eol ? (size_t)(eol - p) : strlen(p);
		char line[512];
		if (len >= sizeof(line))
			return err_set(e, EINVAL, "CORDON_BRIDGE_HOSTS: line too long");
		memcpy(line, p, len);
		line[len] = '\0';
		p += len + (eol ? 1 : 0);
		char *hash = strchr(line, '#');
		if (hash)
			*hash = '\0';
		char *save = NULL, *addr = strtok_r(line, " \t", &save);
		if (!addr)
			continue;
		struct resolve_map_entry ent;
		memset(&ent, 0, sizeof(ent));
		if (inet_pton(AF_INET, addr, ent.addr) == 1)
			ent.family = AF_INET;
		else if (inet_pton(AF_INET6, addr, ent.addr) == 1)
			ent.family = AF_INET6;
		else
			return err_set(e, EINVAL, "CORDON_BRIDGE_HOSTS: bad address %s", addr);
		for (char *name; (name = strtok_r(NULL, " \t", &save));) {
			struct host h;
			if (host_canon(name, strlen(name), &h) < 0 || h.kind != HOST_NAME)
				return err_set(e, EINVAL, "CORDON_BRIDGE_HOSTS: bad name %s", name);
			if (grow_reserve(&map->v, &map->cap, map->n + 1, sizeof(*map->v)) < 0)
				return err_set(e, ENOMEM, "out of memory");
			memcpy(ent.name, h.text, strlen(h.text) + 1);
			map->v[map->n++] = ent;
		}
	}
	return 0;
}

static int ik_map(struct intake *in, struct cordon_err *e)
{
	const char *path = getenv("CORDON_BRIDGE_HOSTS");
	if (!path || !*path)
		return 0;
	AUTO_FD fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) < 0)
		return err_sys(e, errno, "CORDON_BRIDGE_HOSTS %s", path);
	if (!S_ISREG(st.st_mode) || st.st_uid != 0 || (st.st_mode & 022) ||
	    st.st_size > INTAKE_MAP_MAX)
		return err_set(e, EPERM, "CORDON_BRIDGE_HOSTS %s: a test resolver map must be a "
			       "regular file owned by root, writable by no one else", path);
	char *text = calloc(1, (size_t)st.st_size + 1);
	if (!text)
		return err_set(e, ENOMEM, "out of memory");
	ssize_t n = sys_read_full(fd, text, (size_t)st.st_size);
	int r = n < 0 ? err_sys(e, (int)-n, "CORDON_BRIDGE_HOSTS %s", path)
		      : intake_parse_map(text, &in->map, e);
	free(text);
	return r;
}

/* The credentials cordon wrote to a memfd (never on a command line); the
 * descriptor is closed once read. */
static int ik_auth(struct intake *in, char *out, size_t cap, struct cordon_err *e)
{
	out[0] = '\0';
	if (in->auth_fd < 0)
		return 0;
	AUTO_FD fd = in->auth_fd;
	in->auth_fd = -1;
	ssize_t n = pread(fd, out, cap - 1, 0);
	if (n < 0)
		return err_sys(e, errno, "cordon-bridge: cannot read the upstream's credentials");
	out[n] = '\0';
	if ((size_t)n != strlen(out))
		return err_set(e, EINVAL, "--proxy-upstream: a NUL byte in the credentials");
	return 0;
}

/* The host's own addresses, read before the bridge confines itself: a
 * name that resolves to one reaches this machine's services as loopback
 * does (addr.h).  Without them a port-less rule could reach every port of
 * the machine through its public address: no list, no run. */
static int ik_own_addresses(struct intake *in, struct cordon_err *e)
{
	struct ifaddrs *ifa = NULL;
	if (getifaddrs(&ifa) < 0)
		return err_sys(e, errno, "cordon-bridge: cannot list this machine's addresses");
	int r = 0;
	for (struct ifaddrs *p = ifa; p && r == 0; p = p->ifa_next) {
		if (!p->ifa_addr || (p->ifa_addr->sa_family != AF_INET &&
				     p->ifa_addr->sa_family != AF_INET6))
			continue;
		if (grow_reserve(&in->own, &in->capown, in->nown + 1, sizeof(*in->own)) < 0) {
			r = err_set(e, ENOMEM, "cordon-bridge: out of memory");
			break;
		}
		struct addr_host *h = &in->own[in->nown++];
		memset(h, 0, sizeof(*h));
		h->family = p->ifa_addr->sa_family;
		if (h->family == AF_INET)
			memcpy(h->a, &((const struct sockaddr_in *)(const void *)p->ifa_addr)->sin_addr, 4);
		else
			memcpy(h->a, &((const struct sockaddr_in6 *)(const void *)p->ifa_addr)->sin6_addr, 16);
	}
	freeifaddrs(ifa);
	return r;
}

int intake_run(struct intake *in, struct cordon_err *e)
{
	int r = ik_listeners(in, e);
	if (r != 0 || (r = ik_own_addresses(in, e)) < 0)
		return r;
	/* Opened by cordon, which checked it (never a link, a regular file
	 * of the caller's): the bridge opens no path to write. */
	if (in->log_fd >= 0 && fcntl(in->log_fd, F_SETFD, FD_CLOEXEC) < 0)
		return err_sys(e, errno, "cordon-bridge: the --net-log descriptor %d", in->log_fd);
	/* Inherited from cordon (an anonymous memfd it reads back for the
	 * run report): the bridge only appends lines to it. */
	if (in->decisions_fd >= 0 && fcntl(in->decisions_fd, F_SETFD, FD_CLOEXEC) < 0)
		return err_sys(e, errno, "cordon-bridge: the decisions descriptor %d", in->decisions_fd);
	if (in->upstream_spec) {
		char auth[UPSTREAM_AUTH_MAX + 2];
		if ((r = ik_auth(in, auth, sizeof(auth), e)) < 0 ||
		    (r = upstream_parse(in->upstream_spec, in->token, auth[0] ? auth : NULL,
					&in->upstream, e)) < 0) {
			explicit_bzero(auth, sizeof(auth));
			return r;
		}
		explicit_bzero(auth, sizeof(auth));
		in->have_upstream = 1;
	}
	struct rlimit rl;
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		/* Best effort: the connection bound holds without it. */
		(void)setrlimit(RLIMIT_NOFILE, &rl);
	}
	return ik_map(in, e);
}
