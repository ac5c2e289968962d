/* wire.h: the records cordon and cordon-inner exchange over their inherited
 * SOCK_SEQPACKET socketpair.  One datagram is one record: a 32-bit type then a
 * payload, with at most one descriptor.  The table in wire.c fixes, per type,
 * the direction, the payload size range, whether a descriptor must come with
 * it, and whether it may arrive only once.  The receiver checks all of that
 * before using a record: an unknown type, a wrong size, a missing or extra
 * descriptor, or a second once-only record is a protocol error (fail closed).
 * String payloads are NUL-terminated by the receiver, never trusted to be. */
#ifndef CORDON_WIRE_H
#define CORDON_WIRE_H

#include <stddef.h>
#include <stdint.h>
#include "err.h"
#include "sys.h"

#define WIRE_DATA_MAX 4096

/* cordon -> the sandbox's PID 1, as a signal (no record: it must work while
 * the control socket is full): end the sandbox now.  PID 1 kills every
 * other process of its namespace and reaps them before it exits, so their
 * CPU times reach bwrap's wait4 and the report; a SIGKILL of PID 1 would
 * have the kernel auto-reap them, times lost.  PID 1 honours it only from
 * outside its namespace (a sender with no pid there), so the command cannot
 * send it.  A real-time signal cordon sends nothing else as; a fixed number,
 * since glibc and musl start SIGRTMIN at different places. */
#define WIRE_END_SIGNAL 40

enum wire_type {
	WIRE_BIND_CHECK = 1, /* outer->inner: path string + O_PATH fd of a writable root */
	WIRE_BINDS_END,      /* outer->inner: uint32 count of BIND_CHECK and RO_CHECK records sent */
	WIRE_STARTED,        /* inner->outer: the command was exec'd (int32 pid inside) */
	WIRE_ERROR,          /* inner->outer: struct cordon_err, then inner exits */
	WIRE_RO_CHECK,       /* outer->inner: path string + O_PATH fd of a read-only mount */
	WIRE_EXITED,         /* inner->outer: int32 the command's wait status (wstatus.h); no process
	                        of the command is left */
	WIRE_STOPPED,        /* inner->outer: int32 signal that stopped the command (on a
				terminal: Ctrl-Z); cordon's SIGCONT to PID 1 continues its group */
	WIRE_FOREGROUND,     /* outer->inner: int32 1 when cordon's job came back to the
				foreground of the caller's terminal (fg), 0 when it went on in
				the background (bg); sent before the SIGCONT that continues the
				command: the command's terminal follows (inner/pid1.h) */
	WIRE_TYPE_END,
};

enum wire_dir { WIRE_TO_INNER = 1, WIRE_TO_OUTER = 2 };

struct wire_rec {
	uint32_t type;
	uint32_t len;
	int fd;                        /* -1 unless the type carries one; caller owns it */
	char data[WIRE_DATA_MAX + 1];  /* payload, always NUL-terminated */
};

/* One type of a protocol's table.  fd: WIRE_FD_NONE, WIRE_FD_MUST (a
 * descriptor must come with it) or WIRE_FD_MAY (optional, such as a pidfd a
 * kernel without pidfd_open cannot make). */
enum wire_fd { WIRE_FD_NONE, WIRE_FD_MUST, WIRE_FD_MAY };

struct wire_spec {
	const char *name;          /* NULL: no such type */
	enum wire_dir dir;
	size_t min, max;
	enum wire_fd fd;
	int once;
};

/* A protocol: its table, indexed by type (0 is never a type; at most 32
 * types, for wire_peer.seen), and the words its errors start with. */
struct wire_proto {
	const struct wire_spec *table;
	uint32_t ntypes;
	const char *err;     /* "protocol error": starts every rejection */
	const char *socket;  /* "the sandbox control socket": names it when reading fails */
};

/* Receiving end state: which direction we accept, which once-only types we saw. */
struct wire_peer {
	enum wire_dir accept;
	uint32_t seen;
};

int wire_send(int sock, uint32_t type, const void *data, size_t len, int fd) WUR;

/* 1: *r holds a valid record; 0: orderly EOF; <0: -errno with *e filled. */
int wire_recv(int sock, struct wire_peer *p, struct wire_rec *r,
	      struct cordon_err *e) WUR;

/* Pure validation used by wire_recv, exposed for unit tests. */
int wire_check(const struct wire_peer *p, uint32_t type, size_t len, int has_fd,
	       struct cordon_err *e) WUR;

/* The same two for another protocol's table (wire_guardian.h). */
int wire_recv_proto(const struct wire_proto *pr, int sock, struct wire_peer *p,
		    struct wire_rec *r, struct cordon_err *e) WUR;
int wire_check_proto(const struct wire_proto *pr, const struct wire_peer *p, uint32_t type,
		     size_t len, int has_fd, struct cordon_err *e) WUR;

#endif
