/* guardian.h: the detached process that cleans up a run's host paths when
 * cordon itself cannot (SIGKILL, OOM kill).
 *
 * cordon forks it before it creates any path: the guardian is in a session
 * and process group of its own, so a kill of cordon's group does not reach it,
 * and it ignores the signals a terminal or a polite shutdown sends.  It is
 * cordon's child until cordon exits (then it is reparented).  Its only link to cordon is one end of
 * a SOCK_SEQPACKET socketpair; the other end is cordon's alone (O_CLOEXEC, so
 * bwrap and the sandbox never hold it).  It closes every other descriptor but
 * the registry directory, and names itself "cordon-guardian" (its name and
 * its command line: `ps` shows what it is, and a search for the command's
 * own processes by their command line does not find it).
 *
 * Messages (common/wire_guardian.h): guardian -> cordon GWIRE_READY once it
 * runs on its own; cordon -> guardian GWIRE_SANDBOX (bwrap's pid and start
 * time, with a pidfd of it when the kernel has pidfd_open) and GWIRE_DONE.
 * On GWIRE_DONE the guardian exits at once, and cordon waits (briefly) for
 * that: a run that ended normally leaves no process once cordon has exited.  On end of file without it
 * (cordon died, or left the cleanup to it), it first kills every process
 * that holds the sandbox's end of the control socket (bwrap's child may be
 * blocked for good, see kill_holders), waits until bwrap and bwrap's child
 * are gone, moves aside what the command made of the watched names
 * (GWIRE_WATCH) and redoes the end of a --git commit run (GWIRE_GITDIR,
 * GWIRE_GITLINKS: hostpaths/gitstate.h), removes the run's cgroups
 * (hostpaths/cgroup.h), then releases
 * cordon's record exactly as cordon would have
 * (registry_sweep with the record released), and exits.  It works on a
 * registry handle of its own (registry_dup), made after the fork.
 */
#ifndef CORDON_GUARDIAN_H
#define CORDON_GUARDIAN_H

#include <stdint.h>
#include <sys/types.h>
#include <termios.h>
#include <time.h>
#include "err.h"
#include "hostpaths/registry.h"

struct guardian {
	pid_t pid;        /* the guardian, cordon's child; 0: none */
	uint64_t start;   /* its start time, read when it was forked */
	int sock;         /* cordon's end; -1: none */
};

#define GUARDIAN_INIT { 0, 0, -1 }

/* Start the guardian of the record `name` in reg (open; the lock may be
 * held: the guardian takes a lock descriptor of its own), or of a run with
 * no record (reg NULL): then it only ends what is left of the run.  sandbox_sock: the
 * inode of the socket end bwrap's child holds (0: none).  Returns once it
 * is forked, with g->pid and g->start set, without waiting for it: from the
 * fork on, it holds the other end of the socket, so cordon's death reaches
 * it whenever it gets there. */
int guardian_start(struct guardian *g, const struct registry *reg, const char *name,
		   ino_t sandbox_sock, struct cordon_err *e) __attribute__((warn_unused_result));

/* Wait until the guardian has settled and said "ready" (by then, usually
 * long ago: cordon calls this once bwrap is running). */
int guardian_confirm(struct guardian *g, struct cordon_err *e)
	__attribute__((warn_unused_result));

/* Tell the guardian which bwrap to wait for (cordon's unreaped child). */
int guardian_watch(struct guardian *g, pid_t bwrap, uint64_t start, struct cordon_err *e)
	__attribute__((warn_unused_result));

/* --protect-missing watch: the protected names ("/"-separated) watched in
 * the writable root at path root, which is rootfd and (dev, ino), since `since`
 * (CLOCK_REALTIME).  Each was missing when the run started: if cordon dies,
 * the guardian moves aside, once the sandbox is gone, each of them that
 * exists then, whatever its birth time (hostpaths/protect_quarantine.h). */
int guardian_watch_names(struct guardian *g, int rootfd, const char *root, dev_t dev, ino_t ino,
			 const char *names, const struct timespec *since, struct cordon_err *e)
	__attribute__((warn_unused_result));

/* --git commit: a git dir (fd, O_PATH, duplicated into the message) and
 * the moment since which a ctime is the run's (hostpaths/gitstate.h): if
 * cordon dies, the guardian redoes gitstate_settle once the sandbox is
 * gone.  flags: GWIRE_GITDIR_*; checkout (or NULL) with its identity.
 * 0, or -errno: the guardian cannot be told (-E2BIG past
 * GWIRE_GITDIR_MAX), and the run must not start. */
int guardian_watch_gitdir(struct guardian *g, int fd, const char *path, const char *checkout,
			  unsigned flags, dev_t root_dev, ino_t root_ino,
			  const struct timespec *since, struct cordon_err *e)
	__attribute__((warn_unused_result));

/* The submodule entries of the git dir last named by
 * guardian_watch_gitdir at the start of the run (fd: a sealed memfd,
 * duplicated into the message).  0, or -errno. */
int guardian_watch_gitlinks(struct guardian *g, int fd, struct cordon_err *e)
	__attribute__((warn_unused_result));

/* cordon made the user's terminal (fd) raw, from mode saved to raw: if
 * cordon dies with the terminal still in that raw mode, the guardian puts
 * saved back ("restored however the run ends", SIGKILL included).  Best
 * effort: without a guardian the run goes on as before. */
void guardian_terminal(struct guardian *g, int fd, const struct termios *saved,
		       const struct termios *raw);

/* cordon cleaned up itself: the guardian exits.  Closes g. */
void guardian_done(struct guardian *g);

/* cordon leaves the cleanup to the guardian (the sandbox may still run).
 * Closes g. */
void guardian_abandon(struct guardian *g);

#endif
