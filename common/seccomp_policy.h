/* seccomp_policy.h: the seccomp filters cordon's processes run under: the
 * command's (DESIGN.md section 6), cordon-bridge's (its confinement after
 * setup) and the one cordon-inner adds to the command's where the sandbox
 * shares the caller's PID namespace (inner/hostpidns.h).
 *
 * Belongs here: the rule tables and the one compiler that turns a table
 * into a libseccomp filter and loads or exports it.  The tables are the
 * single source of truth: the build compiles them (scripts/seccomp_gen.c),
 * `cordon explain` and the docs print them, the unit tests walk them.
 * x86_64 only.
 *
 * Policy of every table: default allow; the rows answer with an errno (or
 * kill, when errno_value is 0) when their condition holds.  A table with a
 * SECCOMP_POLICY_FOREIGN_ABI row kills a syscall made through any other ABI
 * (i386 via int 0x80, x32); one without lets it through (the host-PID
 * filter leaves them to the command's, which kills them).
 */
#ifndef CORDON_SECCOMP_POLICY_H
#define CORDON_SECCOMP_POLICY_H

#include <stddef.h>
#include <stdint.h>
#include <fcntl.h>

#include <linux/filter.h>

#include "err.h"

struct seccomp_opts {
	int allow_unix_sockets; /* --allow-unix-sockets: every Unix socket type,
				   connect and bind unsupervised: every host
				   socket the mounts show is reachable */
};

/* How a row's condition is turned into libseccomp comparisons. */
enum seccomp_policy_match {
	SECCOMP_POLICY_ALWAYS = 0,     /* every call */
	SECCOMP_POLICY_SOCKET_FAMILY,  /* arg0 not an allowed family, see
	                                  seccomp_policy_socket_family_allowed() */
	SECCOMP_POLICY_ARG0_NE,        /* arg0 != value (all 64 bits) */
	SECCOMP_POLICY_ARG0_BITS_SET,  /* (arg0 & value) == value */
	SECCOMP_POLICY_ARG1_LOW32_EQ,  /* (arg1 & 0xffffffff) == value */
	SECCOMP_POLICY_ARG_ANY_BITS,   /* arg `arg` has any bit of value set */
	SECCOMP_POLICY_CREATE_MODE,    /* arg `arg` (open flags) has O_CREAT or
	                                  __O_TMPFILE set, and arg `arg` + 1
	                                  (the mode) any bit of value */
	SECCOMP_POLICY_SOCKETPAIR_TYPE, /* arg1 with SOCK_NONBLOCK and
	                                   SOCK_CLOEXEC masked off (low 32 bits)
	                                   is a type for which
	                                   seccomp_policy_socketpair_type_allowed()
	                                   is 0 */
	SECCOMP_POLICY_UNIX_SOCKET_TYPE, /* arg0 == AF_UNIX and arg1 as for
	                                    SOCKETPAIR_TYPE is a type for which
	                                    seccomp_policy_unix_type_allowed()
	                                    is 0 */
	SECCOMP_POLICY_SUPERVISED,     /* every call goes to cordon-inner's
	                                  supervisor (SECCOMP_RET_USER_NOTIF);
	                                  no rule with --allow-unix-sockets;
	                                  errno_value unused */
	SECCOMP_POLICY_FOREIGN_ABI,    /* not a syscall: any non-x86_64 ABI;
	                                  `syscall` is a description */
	SECCOMP_POLICY_ARG_LOW32_NE,   /* the low 32 bits of arg `arg` (an int
	                                  the kernel reads: a pid, a `which`)
	                                  differ from value */
	SECCOMP_POLICY_ARG0_LOW32_SET_AND, /* the low 32 bits of arg0 are not 0
	                                      and arg `arg` is not 0 (all 64
	                                      bits: a pointer given) */
	SECCOMP_POLICY_FAMILY_LOW32,   /* the low 32 bits of arg0 (socket's
	                                  family) are no family of the bit set
	                                  value (bit N: family N < 64), nor
	                                  AF_UNIX with allow_unix_sockets */
};

/* One row per rule; the same table drives loading, `cordon explain`, docs
 * and tests.  Strings are static. */
struct seccomp_rule_desc {
	const char *syscall;  /* libseccomp name of the syscall */
	const char *when;     /* the condition, for humans */
	int errno_value;      /* errno returned; 0 = kill the process */
	enum seccomp_policy_match match;
	uint64_t value;       /* operand of `match`, unused for the others */
	unsigned int arg;     /* argument index for ARG_ANY_BITS, CREATE_MODE,
	                         ARG_LOW32_NE, ARG0_LOW32_SET_AND */
};

/* The command's table; *n receives its length.  Never NULL. */
const struct seccomp_rule_desc *seccomp_policy_table(size_t *n);

/* cordon-bridge's table (bridge/confine.h): no exec, no filesystem writes,
 * no ptrace, sockets of the internet families only (and AF_UNIX with
 * allow_unix_sockets: an upstream proxy on a Unix socket).  Never NULL. */
const struct seccomp_rule_desc *seccomp_policy_bridge_table(size_t *n);

/* The table cordon-inner adds to the command's where the sandbox shares
 * the caller's PID namespace (inner/hostpidns.h).  Never NULL. */
const struct seccomp_rule_desc *seccomp_policy_hostpid_table(size_t *n);

/* The syscalls cordon-inner (PID 1) may still make once the command runs:
 * its supervision loop and its exit.  Everything else kills it (which ends
 * the sandbox).  *n receives the length.  Never NULL. */
const char *const *seccomp_policy_pid1_allowed(size_t *n);

/* x86_64 number of a syscall by name: libseccomp's answer, or for a syscall
 * newer than the libseccomp at hand (fchmodat2 is unknown to some 2.5.4
 * builds), the number from a small table here; -ENOENT when neither knows. */
int seccomp_policy_nr(const char *name);

/* The native syscall number of row r, or -ENOENT when the libseccomp this
 * binary runs with does not know the name (the row is then skipped by
 * seccomp_policy_load()), or -EINVAL for a row that is not a syscall
 * (SECCOMP_POLICY_FOREIGN_ABI). */
int seccomp_policy_resolve(const struct seccomp_rule_desc *r);

/* Whether socketpair(AF_UNIX, type, ...) is allowed, for type with
 * SOCK_NONBLOCK and SOCK_CLOEXEC masked off: only SOCK_STREAM and
 * SOCK_SEQPACKET, which cannot address a named socket.  Pure. */
int seccomp_policy_socketpair_type_allowed(uint64_t type);

/* Whether socket(AF_UNIX, type, ...) is allowed under o (may be NULL), for
 * type as above: stream and seqpacket, any with --allow-unix-sockets.  Pure. */
int seccomp_policy_unix_type_allowed(uint64_t type, const struct seccomp_opts *o);

/* The open flags that make cordon-inner's own filter kill an openat: it
 * opens to look (O_PATH) and to read, never to write or create (O_TMPFILE
 * without its O_DIRECTORY bit, which a look-up may carry). */
#define SECCOMP_POLICY_PID1_OPEN_DENIED \
	((uint64_t)(O_WRONLY | O_RDWR | O_CREAT | O_TRUNC | O_APPEND | (O_TMPFILE & ~O_DIRECTORY)))

/* The ioctl requests cordon-inner's own filter lets through: its
 * supervisor's seccomp notification calls, and tcgetpgrp/tcsetpgrp on the
 * command's terminal.  *n receives the length. */
const unsigned long *seccomp_policy_pid1_ioctls(size_t *n);

/* How Unix sockets are confined under o (may be NULL), for `cordon explain`
 * and `cordon doctor`: a sentence, or with json a short keyword
 * ("seccomp-supervisor", "unsupervised").  Static strings. */
const char *seccomp_policy_unix_mechanism(const struct seccomp_opts *o, int json);

/* Whether socket(family, ...) is allowed under o (o may be NULL: defaults).
 * Pure; the loader denies every 64-bit value of arg0 for which this is 0. */
int seccomp_policy_socket_family_allowed(uint64_t family,
					 const struct seccomp_opts *o);

/* Build the filter with libseccomp and load it into the calling thread (and
 * so into everything it later forks or execs).  o may be NULL (defaults).
 * The caller must already have set PR_SET_NO_NEW_PRIVS: this function does not
 * set it and fails with -EPERM when it is not set.  Returns 0 or -errno,
 * filling *e (may be NULL) with a message starting with what failed. */
int seccomp_policy_load(const struct seccomp_opts *o, struct cordon_err *e)
	__attribute__((warn_unused_result));

/* Build the same filter as seccomp_policy_load but return it as a BPF
 * program (prog->filter malloc'd, the caller frees it) instead of loading
 * it, so that a forked child can load it with one async-signal-safe
 * prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, prog) right before exec. */
int seccomp_policy_export(const struct seccomp_opts *o, struct sock_fprog *prog,
			  struct cordon_err *e) __attribute__((warn_unused_result));

/* The same for any table (seccomp_policy_bridge_table(), ...), rows[0..n). */
int seccomp_policy_export_rows(const struct seccomp_rule_desc *rows, size_t n,
			       const struct seccomp_opts *o, struct sock_fprog *prog,
			       struct cordon_err *e) __attribute__((warn_unused_result));

/* The same for cordon-inner's own filter (seccomp_policy_pid1_allowed()):
 * default kill, the listed syscalls allowed, any other ABI killed. */
int seccomp_policy_pid1_export(struct sock_fprog *prog, struct cordon_err *e)
	__attribute__((warn_unused_result));

#endif
