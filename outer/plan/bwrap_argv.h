/* bwrap_argv.h: the bwrap command line for a mount plan.  Pure: the
 * descriptors named here must already be open (and inheritable) when bwrap
 * runs; this module only writes their numbers. */
#ifndef CORDON_BWRAP_ARGV_H
#define CORDON_BWRAP_ARGV_H

#include "argv.h"
#include "err.h"
#include "plan/mount_plan.h"

struct bwrap_opts {
	const char *bwrap_name;   /* argv[0] */
	int new_session;          /* 0 when the command keeps the caller's terminal */
	int share_pid;            /* --pid-ns inherit */
	int share_net;            /* --net full: the host's network namespace */
	int standin;              /* cordon-inner makes a stand-in (inner/standin.h): the two
				   capabilities it needs, in the sandbox's user namespace */
	int info_fd;              /* bwrap --info-fd, -1 for none */
	int userns_block_fd;      /* bwrap --userns-block-fd (needs info_fd), -1 for none */
	const char *inner_exec;   /* path bwrap execs for cordon-inner, e.g. /proc/self/fd/N */
	char *const *inner_args;  /* cordon-inner's own arguments (after argv[0]), NULL-terminated */
	char *const *cmd;         /* the command, NULL-terminated */
};

int bwrap_argv_build(const struct mount_plan *p, const struct bwrap_opts *o,
		     struct argv *out, struct cordon_err *e) __attribute__((warn_unused_result));

/* The two halves of bwrap_argv_build, appended to *out: the name and the
 * options (namespaces, mounts), and the command part ("--", cordon-inner and
 * its arguments, "--", the command), which bwrap takes only on its real
 * command line, never through --args. */
int bwrap_argv_options(const struct mount_plan *p, const struct bwrap_opts *o,
		       struct argv *out, struct cordon_err *e) __attribute__((warn_unused_result));
int bwrap_argv_command(const struct bwrap_opts *o, struct argv *out, struct cordon_err *e)
	__attribute__((warn_unused_result));

#endif
