/* unixsup.c: see unixsup.h.  Belongs here: answering the command's
 * connect() and bind() notifications; the pure parts are usock_addr.c and
 * usock_set.c. */
#include "unixsup.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/seccomp.h>
#include <linux/sock_diag.h>
#include <linux/unix_diag.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <unistd.h>
#include "sys.h"
#include "usock_addr.h"
#include "usock_set.h"

#ifndef PIDFD_THREAD
#define PIDFD_THREAD O_EXCL
#endif

/* statx(2)'s buffer (include/uapi/linux/stat.h, a stable ABI) with only the
 * fields read here named: musl 1.2.3 has no statx and <linux/stat.h> clashes
 * with its headers. */
struct kstatx {
	uint32_t stx_mask;
	/* cppcheck-suppress unusedStructMember */
	uint8_t skip0[0x1c - 4];
	uint16_t stx_mode;
	/* cppcheck-suppress unusedStructMember */
	uint8_t skip1[2];
	uint64_t stx_ino;
	/* cppcheck-suppress unusedStructMember */
	uint8_t skip2[0x50 - 0x28];
	int64_t stx_btime_sec;
	uint32_t stx_btime_nsec;
	/* cppcheck-suppress unusedStructMember */
	uint8_t skip3[0x88 - 0x5c];
	uint32_t stx_dev_major, stx_dev_minor;
	/* cppcheck-suppress unusedStructMember */
	uint8_t skip4[0x100 - 0x90];
};
_Static_assert(offsetof(struct kstatx, stx_ino) == 0x20 &&
		       offsetof(struct kstatx, stx_btime_sec) == 0x50 &&
		       offsetof(struct kstatx, stx_dev_major) == 0x88 &&
		       sizeof(struct kstatx) == 0x100,
	       "struct statx layout");
#define KSTATX_TYPE 0x1u
#define KSTATX_INO 0x100u
#define KSTATX_BTIME 0x800u

#define RETRY_MS 5

int unixsup_start(struct unixsup *s, int listener, int net_full, struct cordon_err *e)
{
	AUTO_FD l = listener;
	struct seccomp_notif_sizes sz;
	if (syscall(SYS_seccomp, SECCOMP_GET_NOTIF_SIZES, 0, &sz) < 0)
		return err_sys(e, errno, "cordon-inner: seccomp(SECCOMP_GET_NOTIF_SIZES)");
	if (sz.seccomp_notif > UNIXSUP_NOTIF_BUF || sz.seccomp_notif_resp > UNIXSUP_NOTIF_BUF ||
	    sz.seccomp_notif < sizeof(struct seccomp_notif) ||
	    sz.seccomp_notif_resp < sizeof(struct seccomp_notif_resp))
		return err_set(e, EPROTO, "cordon-inner: unexpected seccomp notification sizes %u/%u",
			       sz.seccomp_notif, sz.seccomp_notif_resp);
	/* sock_diag names the file a bind created (UNIX_DIAG_VFS).  The kernel
	 * queues its answer before the request's write returns; non-blocking,
	 * so that no surprise can hold cordon-inner in a read. */
	int d = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC | SOCK_NONBLOCK, NETLINK_SOCK_DIAG);
	if (d < 0)
		return err_sys(e, errno, "cordon-inner: the sock_diag socket for the Unix socket supervisor");
	usock_set_init(&s->set);
	for (size_t i = 0; i < UNIXSUP_PENDING_MAX; i++)
		s->pend[i] = (struct unixsup_pending){ .copy = -1, .pin = -1 };
	s->notif_size = sz.seccomp_notif;
	s->resp_size = sz.seccomp_notif_resp;
	s->net_full = net_full;
	s->diag = d;
	s->listener = sys_take_fd(&l);
	return 0;
}

static int id_valid(const struct unixsup *s, uint64_t id)
{
	return ioctl(s->listener, SECCOMP_IOCTL_NOTIF_ID_VALID, &id) == 0;
}

/* An answer for a call that may already be gone (ENOENT: the command was
 * killed or interrupted); nothing to do about that. */
static void respond(struct unixsup *s, uint64_t id, int err)
{
	memset(s->resp.raw, 0, s->resp_size);
	s->resp.r.id = id;
	s->resp.r.error = err;
	(void)ioctl(s->listener, SECCOMP_IOCTL_NOTIF_SEND, &s->resp.r);
}

static void pending_free(struct unixsup_pending *p)
{
	sys_close(&p->copy);
	sys_close(&p->pin);
	p->wait = UNIXSUP_WAIT_NONE;
}

/* The calling thread, by a pidfd: then the notification is checked valid,
 * which proves that the thread id still named the caller when the pidfd was
 * taken (a dead caller's id could name a new process). */
static int open_caller(const struct unixsup *s, const struct seccomp_notif *n)
{
	int fd = (int)syscall(SYS_pidfd_open, (pid_t)n->pid, PIDFD_THREAD);
	if (fd < 0 && errno == EINVAL)
		fd = (int)syscall(SYS_pidfd_open, (pid_t)n->pid, 0);
	if (fd < 0)
		return -errno;
	if (!id_valid(s, n->id)) {
		sys_close(&fd);
		return -ENOENT;
	}
	return fd;
}

/* The address argument, copied once; the call is then made with this copy. */
static int read_addr(const struct seccomp_notif *n, struct sockaddr_storage *ss, socklen_t *len)
{
	int l = (int)n->data.args[2];
	if (l < 0 || (size_t)l > sizeof(*ss))
		return -EINVAL;
	memset(ss, 0, sizeof(*ss));
	*len = (socklen_t)l;
	if (l == 0)
		return 0;
	struct iovec local = { ss, (size_t)l };
	struct iovec remote = { (void *)(uintptr_t)n->data.args[1], (size_t)l };
	ssize_t r = process_vm_readv((pid_t)n->pid, &local, 1, &remote, 1, 0);
	if (r < 0)
		return errno == ESRCH ? -ENOENT : -EFAULT;
	return r == l ? 0 : -EFAULT;
}

static int socket_domain(int fd)
{
	int dom = 0;
	socklen_t dl = sizeof(dom);
	if (getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &dom, &dl) < 0)
		return -errno;
	return dom;
}

/* The caller's working directory, for a relative path. */
static int open_cwd(pid_t tid)
{
	char p[48];
	(void)snprintf(p, sizeof(p), "/proc/%d/cwd", (int)tid);
	int fd = openat(AT_FDCWD, p, O_PATH | O_DIRECTORY | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

static int identity(int dirfd, const char *name, int flags, struct usock_id *id, int *is_sock)
{
	struct kstatx sx;
	memset(&sx, 0, sizeof(sx));
	if (syscall(SYS_statx, dirfd, name, flags, KSTATX_TYPE | KSTATX_INO | KSTATX_BTIME, &sx) < 0)
		return -errno;
	*id = (struct usock_id){ sx.stx_dev_major, sx.stx_dev_minor, sx.stx_ino, 0, 0 };
	if (sx.stx_mask & KSTATX_BTIME) {
		id->btime_sec = sx.stx_btime_sec;
		id->btime_nsec = sx.stx_btime_nsec;
	}
	*is_sock = S_ISSOCK(sx.stx_mode);
	return 0;
}

/* Start connect on the copy without ever blocking cordon-inner.  0 or
 * -errno when done; 1 when the caller's blocking call must wait (*wait
 * says for what). */
static int connect_copy(int copy, int unix_sock, const struct sockaddr *a, socklen_t len,
			enum unixsup_wait *wait)
{
	int fl = fcntl(copy, F_GETFL);
	if (fl < 0)
		return -errno;
	if (fl & O_NONBLOCK)
		return connect(copy, a, len) < 0 ? -errno : 0;
	/* The flag belongs to the open file description the command shares;
	 * it is set only for the length of this call. */
	if (fcntl(copy, F_SETFL, fl | O_NONBLOCK) < 0)
		return -errno;
	int err = connect(copy, a, len) < 0 ? errno : 0;
	if (fcntl(copy, F_SETFL, fl) < 0 && err == 0)
		err = errno;
	if (!unix_sock && (err == EINPROGRESS || err == EALREADY)) {
		*wait = UNIXSUP_WAIT_WRITABLE;
		return 1;
	}
	if (unix_sock && err == EAGAIN) {
		*wait = UNIXSUP_WAIT_RETRY;
		return 1;
	}
	return -err;
}

static int park(struct unixsup *s, uint64_t id, int *copy, int *pin, enum unixsup_wait wait,
		const struct sockaddr *a, socklen_t len)
{
	for (size_t i = 0; i < UNIXSUP_PENDING_MAX; i++) {
		struct unixsup_pending *p = &s->pend[i];
		if (p->copy >= 0)
			continue;
		*p = (struct unixsup_pending){ id, sys_take_fd(copy), sys_take_fd(pin), wait, { 0 }, len };
		memcpy(&p->addr, a, len);
		return 0;
	}
	return -EAGAIN;
}

/* The file a bound socket sits on, by sock_diag: st_ino of the copy is the
 * socket's own inode (sockfs); UNIX_DIAG_VFS gives the bound file's device
 * (kernel encoding) and inode (low 32 bits). */
static int diag_vfs(struct unixsup *s, int copy, uint32_t *dev, uint32_t *ino)
{
	struct stat st;
	if (fstat(copy, &st) < 0)
		return -errno;
	struct {
		struct nlmsghdr h;
		struct unix_diag_req r;
	} q;
	memset(&q, 0, sizeof(q));
	q.h.nlmsg_len = sizeof(q);
	q.h.nlmsg_type = SOCK_DIAG_BY_FAMILY;
	q.h.nlmsg_flags = NLM_F_REQUEST;
	q.h.nlmsg_seq = ++s->seq;
	q.r.sdiag_family = AF_UNIX;
	q.r.udiag_states = ~0u;
	q.r.udiag_ino = (uint32_t)st.st_ino;
	q.r.udiag_show = UDIAG_SHOW_VFS;
	q.r.udiag_cookie[0] = q.r.udiag_cookie[1] = ~0u;
	if (sys_write_all(s->diag, &q, sizeof(q)) < 0)
		return -EIO;
	union {
		struct nlmsghdr h;
		char raw[1024];
	} a;
	for (;;) {
		ssize_t n = read(s->diag, a.raw, sizeof(a.raw));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < (ssize_t)sizeof(struct nlmsghdr))
			return -EIO;
		if (a.h.nlmsg_seq != s->seq)
			continue; /* an answer to an earlier, abandoned question */
		if (a.h.nlmsg_type != SOCK_DIAG_BY_FAMILY || a.h.nlmsg_len > (size_t)n ||
		    a.h.nlmsg_len < NLMSG_LENGTH(sizeof(struct unix_diag_msg)))
			return -ENOENT;
		const struct unix_diag_msg *m = NLMSG_DATA(&a.h);
		if (m->udiag_ino != (uint32_t)st.st_ino)
			return -ENOENT;
		int left = (int)(a.h.nlmsg_len - NLMSG_LENGTH(sizeof(*m)));
		for (struct rtattr *t = (struct rtattr *)(m + 1); RTA_OK(t, left); t = RTA_NEXT(t, left)) {
			if (t->rta_type != UNIX_DIAG_VFS ||
			    RTA_PAYLOAD(t) < sizeof(struct unix_diag_vfs))
				continue;
			struct unix_diag_vfs v;
			memcpy(&v, RTA_DATA(t), sizeof(v));
			*dev = v.udiag_vfs_dev;
			*ino = v.udiag_vfs_ino;
			return 0;
		}
		return -ENOENT;
	}
}

/* After a bind made here: record the file, if the file now at the name is
 * the one the bind created.  The command could rename a host socket over
 * the name between the bind and the look; sock_diag tells the two apart. */
static void record_bound(struct unixsup *s, int copy, int dirfd, const char *path)
{
	struct usock_id id;
	int is_sock = 0;
	uint32_t dev, ino;
	if (identity(dirfd, path, AT_SYMLINK_NOFOLLOW, &id, &is_sock) < 0 || !is_sock ||
	    diag_vfs(s, copy, &dev, &ino) < 0)
		return;
	if ((uint32_t)id.ino != ino || id.dev_major != dev >> 20 || id.dev_minor != (dev & 0xfffff))
		return; /* not ours: never recorded, so never reachable */
	usock_set_add(&s->set, &id);
}

static unsigned int caller_umask(pid_t tid)
{
	char p[48], buf[2048];
	unsigned int m = 077; /* unreadable: the most private */
	(void)snprintf(p, sizeof(p), "/proc/%d/status", (int)tid);
	int fd = openat(AT_FDCWD, p, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return m;
	ssize_t n = sys_read_full(fd, buf, sizeof(buf));
	sys_close(&fd);
	if (n > 0 && usock_umask_parse(buf, (size_t)n, &m) < 0)
		m = 077;
	return m;
}

/* bind(2) of a pathname, made here: from the caller's working directory
 * (so that getsockname() shows the path the caller gave), with its umask,
 * on the copy; then recorded. */
static int bind_path(struct unixsup *s, const struct seccomp_notif *n, int copy, const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	size_t pl = strlen(path);
	if (pl >= sizeof(sa.sun_path))
		return -EINVAL;
	memcpy(sa.sun_path, path, pl + 1);
	AUTO_FD cwd = -1;
	if (path[0] != '/' && (cwd = open_cwd((pid_t)n->pid)) < 0)
		return cwd;
	unsigned int um = caller_umask((pid_t)n->pid);
	if (cwd >= 0 && fchdir(cwd) < 0)
		return -errno;
	mode_t old = umask((mode_t)um);
	socklen_t len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + pl + 1);
	int err = bind(copy, (struct sockaddr *)&sa, len) < 0 ? errno : 0;
	(void)umask(old);
	/* cordon-inner resolves nothing else relative to its working
	 * directory, yet it does not keep the caller's. */
	if (cwd >= 0 && chdir("/") < 0 && err == 0)
		err = errno;
	if (err)
		return -err;
	record_bound(s, copy, cwd >= 0 ? cwd : AT_FDCWD, path);
	return 0;
}

int unixsup_allow_host(struct unixsup *s, const struct usock_id *id)
{
	if (s->nhost >= UNIXSUP_HOST_MAX)
		return -ENOSPC;
	s->host[s->nhost++] = *id;
	return 0;
}

static int host_allowed(const struct unixsup *s, const struct usock_id *id)
{
	for (size_t i = 0; i < s->nhost; i++)
		if (s->host[i].dev_major == id->dev_major && s->host[i].dev_minor == id->dev_minor &&
		    s->host[i].ino == id->ino)
			return 1;
	return 0;
}

/* connect(2) of a Unix socket to a pathname: pinned, checked, made on the
 * pin.  1 when parked (the answer comes later). */
static int connect_path(struct unixsup *s, const struct seccomp_notif *n, int *copy,
			const char *path)
{
	AUTO_FD cwd = -1;
	if (path[0] != '/' && (cwd = open_cwd((pid_t)n->pid)) < 0)
		return cwd;
	AUTO_FD pin = openat(cwd >= 0 ? cwd : AT_FDCWD, path, O_PATH | O_CLOEXEC);
	if (pin < 0)
		return -errno;
	struct usock_id id;
	int is_sock = 0;
	int r = identity(pin, "", AT_EMPTY_PATH, &id, &is_sock);
	if (r < 0)
		return r;
	if (!is_sock)
		return -ECONNREFUSED; /* what the kernel answers for a non-socket */
	if (!usock_set_has(&s->set, &id) && !host_allowed(s, &id))
		return -EACCES; /* not bound inside this sandbox, nor allowed by path */
	/* Through the pin's magic link: the kernel connects to exactly the
	 * inode checked, whatever the path names by now. */
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	(void)snprintf(sa.sun_path, sizeof(sa.sun_path), "/proc/self/fd/%d", pin);
	socklen_t len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + strlen(sa.sun_path) + 1);
	enum unixsup_wait w = UNIXSUP_WAIT_NONE;
	r = connect_copy(*copy, 1, (struct sockaddr *)&sa, len, &w);
	if (r == 1 && (r = park(s, n->id, copy, &pin, w, (struct sockaddr *)&sa, len)) == 0)
		return 1;
	return r;
}

static int on_unix(struct unixsup *s, const struct seccomp_notif *n, int is_connect, int *copy,
		   const struct sockaddr_storage *ss, socklen_t len)
{
	struct usock_addr a;
	int r = usock_addr_parse(ss, len, &a);
	if (r < 0)
		return r;
	if (a.kind == USOCK_ABSTRACT || a.kind == USOCK_UNNAMED) {
		/* The sandbox's own namespace holds its abstract names; the
		 * host's (--net full) holds D-Bus's, X11's, systemd's: no
		 * connect there, and no bind that would squat one of them.
		 * An unnamed bind picks a fresh random name. */
		if (s->net_full && (is_connect || a.kind == USOCK_ABSTRACT))
			return -EACCES;
		if (!is_connect)
			return bind(*copy, (const struct sockaddr *)ss, len) < 0 ? -errno : 0;
		enum unixsup_wait w = UNIXSUP_WAIT_NONE;
		int pin = -1;
		r = connect_copy(*copy, 1, (const struct sockaddr *)ss, len, &w);
		if (r == 1 && (r = park(s, n->id, copy, &pin, w, (const struct sockaddr *)ss, len)) == 0)
			return 1;
		return r;
	}
	char path[sizeof(a.path) + 32];
	if ((r = usock_addr_self(a.path, (int)n->pid, path, sizeof(path))) < 0)
		return r;
	return is_connect ? connect_path(s, n, copy, path) : bind_path(s, n, *copy, path);
}

/* One notification: 0 or -errno for the answer, 1 when parked, -ENOENT
 * also when the caller is gone (the answer then goes nowhere). */
static int on_call(struct unixsup *s, const struct seccomp_notif *n)
{
	int is_connect = n->data.nr == SYS_connect;
	if (!is_connect && n->data.nr != SYS_bind)
		return -ENOSYS; /* the filter sends nothing else */
	AUTO_FD pidfd = open_caller(s, n);
	if (pidfd < 0)
		return pidfd;
	AUTO_FD copy = (int)syscall(SYS_pidfd_getfd, pidfd, (int)n->data.args[0], 0);
	if (copy < 0)
		return errno == EBADF ? -EBADF : -errno;
	int dom = socket_domain(copy);
	if (dom < 0)
		return dom;
	struct sockaddr_storage ss;
	socklen_t len;
	int r = read_addr(n, &ss, &len);
	/* The copy of the address is trusted only if the caller was still
	 * waiting after it was read (else its thread id may name another). */
	if (!id_valid(s, n->id))
		return -ENOENT;
	if (r < 0)
		return r;
	if (dom == AF_UNIX)
		return on_unix(s, n, is_connect, &copy, &ss, len);
	const struct sockaddr *a = len ? (const struct sockaddr *)&ss : NULL;
	if (!is_connect)
		return bind(copy, a, len) < 0 ? -errno : 0;
	enum unixsup_wait w = UNIXSUP_WAIT_NONE;
	int pin = -1;
	r = connect_copy(copy, 0, a, len, &w);
	if (r == 1 && (r = park(s, n->id, &copy, &pin, w, (const struct sockaddr *)&ss, len)) == 0)
		return 1;
	return r;
}

static void serve_one(struct unixsup *s)
{
	memset(s->req.raw, 0, s->notif_size);
	if (ioctl(s->listener, SECCOMP_IOCTL_NOTIF_RECV, &s->req.n) < 0)
		return; /* EINTR, or ENOENT: the caller died before it was read */
	struct seccomp_notif n = s->req.n;
	int r = on_call(s, &n);
	if (r == 1)
		return;
	respond(s, n.id, r);
}

size_t unixsup_pollfds(const struct unixsup *s, struct pollfd *p, size_t max)
{
	size_t k = 0;
	if (s->listener < 0 || max == 0)
		return 0;
	p[k++] = (struct pollfd){ s->listener, POLLIN, 0 };
	for (size_t i = 0; i < UNIXSUP_PENDING_MAX && k < max; i++)
		if (s->pend[i].copy >= 0 && s->pend[i].wait == UNIXSUP_WAIT_WRITABLE)
			p[k++] = (struct pollfd){ s->pend[i].copy, POLLOUT, 0 };
	return k;
}

int unixsup_timeout(const struct unixsup *s)
{
	for (size_t i = 0; i < UNIXSUP_PENDING_MAX; i++)
		if (s->pend[i].copy >= 0)
			return RETRY_MS; /* also to notice callers that died */
	return -1;
}

static void finish_pending(struct unixsup *s, struct unixsup_pending *p, short revents)
{
	if (!id_valid(s, p->id)) {
		pending_free(p); /* killed or interrupted: nothing to answer */
		return;
	}
	if (p->wait == UNIXSUP_WAIT_WRITABLE) {
		if (!revents)
			return;
		int soerr = 0;
		socklen_t sl = sizeof(soerr);
		if (getsockopt(p->copy, SOL_SOCKET, SO_ERROR, &soerr, &sl) < 0)
			soerr = errno;
		respond(s, p->id, -soerr);
		pending_free(p);
		return;
	}
	enum unixsup_wait w = UNIXSUP_WAIT_NONE;
	int r = connect_copy(p->copy, 1, (struct sockaddr *)&p->addr, p->len, &w);
	if (r == 1)
		return;
	respond(s, p->id, r);
	pending_free(p);
}

void unixsup_serve(struct unixsup *s, const struct pollfd *p, size_t n)
{
	if (s->listener < 0 || n == 0)
		return;
	for (size_t k = 1; k < n; k++)
		for (size_t i = 0; i < UNIXSUP_PENDING_MAX; i++)
			if (s->pend[i].copy == p[k].fd && s->pend[i].wait == UNIXSUP_WAIT_WRITABLE)
				finish_pending(s, &s->pend[i], p[k].revents);
	for (size_t i = 0; i < UNIXSUP_PENDING_MAX; i++)
		if (s->pend[i].copy >= 0 && s->pend[i].wait == UNIXSUP_WAIT_RETRY)
			finish_pending(s, &s->pend[i], 0);
	for (size_t i = 0; i < UNIXSUP_PENDING_MAX; i++)
		if (s->pend[i].copy >= 0 && s->pend[i].wait == UNIXSUP_WAIT_WRITABLE &&
		    !id_valid(s, s->pend[i].id))
			pending_free(&s->pend[i]);
	if (p[0].revents & POLLIN)
		serve_one(s);
	else if (p[0].revents & (POLLHUP | POLLERR | POLLNVAL))
		sys_close(&s->listener); /* no process left under the filter */
}
