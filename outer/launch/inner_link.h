/* inner_link.h: cordon's side of cordon-inner: the binary bwrap execs, its
 * options, and the control socket (common/wire.h) cordon hands the bind
 * checks over and later reads the command's start and end from. */
#ifndef CORDON_INNER_LINK_H
#define CORDON_INNER_LINK_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include "argv.h"
#include "config.h"
#include "err.h"
#include "plan/bwrap_argv.h"
#include "plan/resolve.h"

struct inner_link {
	int exec_fd;          /* O_PATH descriptor of cordon-inner */
	char exec[PATH_MAX];  /* /proc/self/fd/N: the path bwrap execs (explain: its path) */
	int ctrl[2];          /* [0] cordon (non-blocking), [1] cordon-inner's */
	struct argv args;     /* cordon-inner's options */
};

#define INNER_LINK_INIT { -1, "", { -1, -1 }, { NULL, 0, 0 } }

/* What cordon-inner does to the command's process besides confining it. */
struct inner_term {
	int tty;                  /* the command's stdio is a terminal of its own
				     (launch/pty.h): a new session, that terminal
				     its controlling one */
	uint64_t keep_ignored;    /* signals (bit sig-1) the caller ignored: the
				     command starts with them ignored */
	uint64_t nofile;          /* the caller's soft RLIMIT_NOFILE, which cordon
				     raised for itself (sys_raise_nofile): the
				     command starts with it again; 0: unchanged */
};

/* bridge_fd: cordon-inner's end of the socket to cordon-bridge (--net
 * proxy, launch/bridge.h), -1 for none; it is in bwrap's keep list. */
int inner_link_open(struct inner_link *l, const struct config *c, const struct inner_term *t,
		    int bridge_fd, struct cordon_err *e) __attribute__((warn_unused_result));

/* For `cordon explain`: the same options without creating anything: no
 * control socket and no descriptor of the binary (the options that name
 * descriptors, --control and --bridge, are left out; exec is cordon-inner's
 * path). */
int inner_link_plan(struct inner_link *l, const struct config *c, const struct inner_term *t,
		    struct cordon_err *e) __attribute__((warn_unused_result));

/* cordon-inner's part of bwrap's options, and the descriptors bwrap must
 * pass on to it. */
/* After inner_link_open, before inner_link_fill_opts: the sandbox shares
 * the caller's PID namespace (cordon-inner --pid-inherit, inner/pid1.h). */
/* cordon-inner's Unix socket supervisor lets the command connect to the
 * socket (dev, ino), a host socket bound at its path (--allow-unix-socket). */
int inner_link_allow_socket(struct inner_link *l, dev_t dev, ino_t ino, struct cordon_err *e)
	__attribute__((warn_unused_result));

/* cordon-inner makes a process at pid, cordon's parent's host PID, in the
 * sandbox's PID namespace (inner/standin.h). */
int inner_link_standin(struct inner_link *l, pid_t pid, struct cordon_err *e)
	__attribute__((warn_unused_result));

int inner_link_share_pid(struct inner_link *l, struct cordon_err *e)
	__attribute__((warn_unused_result));

void inner_link_fill_opts(const struct inner_link *l, struct bwrap_opts *o);
size_t inner_link_keep(const struct inner_link *l, int keep[2]);

/* bwrap has its copy of cordon-inner's end: cordon's goes, so that
 * cordon-inner ending reads as end of file. */
void inner_link_started(struct inner_link *l);

/* Hand cordon-inner the descriptor of every writable root and of every path
 * bound by path (by_path: opened or created after bwrap was started, so not
 * in its descriptor table; one marked writable counts as a writable root,
 * even where their number is), so it can check that
 * what is mounted at each path is the object cordon resolved; then the
 * count. */
int inner_link_send_checks(const struct inner_link *l, const struct resolved *r,
			   const struct rpath *by_path, size_t nby_path, struct cordon_err *e)
	__attribute__((warn_unused_result));

/* cordon's job is in the foreground of the caller's terminal again (fg),
 * or went on in the background (bg): the command's terminal follows
 * (WIRE_FOREGROUND, inner/pid1.h).  Before the SIGCONT that continues the
 * command.  0 or -errno. */
int inner_link_foreground(const struct inner_link *l, int foreground)
	__attribute__((warn_unused_result));

void inner_link_close(struct inner_link *l);

#endif
