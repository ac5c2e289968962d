/* unixsup.h: the Unix socket supervisor in cordon-inner (PID 1).
 *
 * The command's seccomp filter sends every connect() and bind() here
 * (SECCOMP_RET_USER_NOTIF; seccomp_table.c says why a filter cannot decide).
 * For each call the supervisor takes its own copy of the socket from the
 * command (pidfd_getfd: the same open file description, so what it does to
 * the copy is done to the command's socket), reads the address from the
 * command's memory once, and performs the call itself on that copy with that
 * address; it never lets the command's own call proceed
 * (SECCOMP_USER_NOTIF_FLAG_CONTINUE), because the kernel would then read the
 * descriptor table and the address again, both of which another thread of
 * the command can change in between (a Unix socket dup2'd over a checked
 * TCP one, a path rewritten).
 *
 * A pathname Unix connect is resolved here, against the calling thread's
 * working directory, pinned with O_PATH, and performed on exactly the pinned
 * inode (through /proc/self/fd/N) only when that inode is a socket bound
 * inside this sandbox (usock_set.h): bound by a bind this supervisor made
 * and checked with sock_diag to be the file that bind created.  Any other
 * socket file (a host daemon's, one that existed before the run, one a host
 * process binds in a writable root during it) answers EACCES.  Abstract
 * names stay in the sandbox's network namespace; with --net full (the host's
 * namespace) abstract connect and bind answer EACCES.
 *
 * Nothing blocks cordon-inner: a call on a blocking socket that would wait
 * (a TCP handshake, a full Unix backlog) is started non-blocking and
 * finished from the PID-1 loop (at most UNIXSUP_PENDING_MAX at once; beyond
 * that EAGAIN).  Every allocation is fixed: a flood of calls costs time, not
 * memory.  A command killed mid-call leaves nothing: its notification turns
 * invalid and the copy is closed. */
#ifndef CORDON_UNIXSUP_H
#define CORDON_UNIXSUP_H

#include <poll.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <linux/seccomp.h>
#include "err.h"
#include "usock_set.h"

#define UNIXSUP_PENDING_MAX 64
#define UNIXSUP_HOST_MAX 32   /* host sockets allowed by path (--allow-unix-socket) */
#define UNIXSUP_NOTIF_BUF 1024

enum unixsup_wait { UNIXSUP_WAIT_NONE, UNIXSUP_WAIT_WRITABLE, UNIXSUP_WAIT_RETRY };

/* A call started and not answered yet. */
struct unixsup_pending {
	uint64_t id;
	int copy;  /* -1: free slot */
	int pin;   /* Unix path: the O_PATH pin connected through, else -1 */
	enum unixsup_wait wait;
	struct sockaddr_storage addr; /* what is retried (UNIXSUP_WAIT_RETRY) */
	socklen_t len;
};

/* The supervisor: one per cordon-inner, made by its caller with
 * UNIXSUP_INIT (not started: nothing to poll, nothing served) and passed to
 * every call below.  Its members are the supervisor's alone; the caller
 * only keeps it alive for as long as the command runs (it is large: the
 * set of sockets bound inside, fixed in size). */
struct unixsup {
	int listener;  /* the seccomp listener; -1: not started, or no process left */
	int diag;      /* the sock_diag socket; -1 before unixsup_start */
	int net_full;
	unsigned seq;  /* of the last sock_diag question */
	size_t notif_size, resp_size;
	struct usock_set set;
	/* Host sockets the command may connect to (--allow-unix-socket): by
	 * device and inode alone, which cannot be reused while cordon's bind
	 * mount of the socket at its path holds the inode. */
	struct usock_id host[UNIXSUP_HOST_MAX];
	size_t nhost;
	struct unixsup_pending pend[UNIXSUP_PENDING_MAX];
	union {
		struct seccomp_notif n;
		char raw[UNIXSUP_NOTIF_BUF];
	} req;
	union {
		struct seccomp_notif_resp r;
		char raw[UNIXSUP_NOTIF_BUF];
	} resp;
};

#define UNIXSUP_INIT { .listener = -1, .diag = -1 }

/* Take ownership of the seccomp listener (from the command's filter) and
 * prepare s: the notification sizes, the sock_diag socket.  Before
 * cordon-inner's own filter.  net_full: the sandbox shares the host's
 * network namespace.  0 or -errno with *e; on failure the listener is
 * closed and the command must not run (its connect and bind would never
 * be answered). */
/* Let the command connect to the host socket id (device and inode; its
 * birth time is not compared).  -ENOSPC past UNIXSUP_HOST_MAX. */
int unixsup_allow_host(struct unixsup *s, const struct usock_id *id);

int unixsup_start(struct unixsup *s, int listener, int net_full, struct cordon_err *e)
	__attribute__((warn_unused_result));

/* Fill p[0..max) with what the PID-1 loop must poll for s; returns how
 * many.  0 when not started. */
size_t unixsup_pollfds(const struct unixsup *s, struct pollfd *p, size_t max);

/* The poll timeout s needs (ms), -1 for none. */
int unixsup_timeout(const struct unixsup *s);

/* Serve what poll reported on the entries unixsup_pollfds() filled (in the
 * same order), and retry what waits on a timer. */
void unixsup_serve(struct unixsup *s, const struct pollfd *p, size_t n);

#endif
