/* procprobe.h: what this machine lets a sandbox mount of /proc, found by
 * trying (plan/procmode.h), and whether /proc/sys is writable at all. */
#ifndef CORDON_PROCPROBE_H
#define CORDON_PROCPROBE_H

#include "plan/procmode.h"

/* Whether a fresh proc mounts in new user, mount and PID namespaces.  Reads
 * /proc/self/mountinfo; only when procmode_suspect() says so, forks a
 * scratch child that unshares those namespaces and whose first process in
 * them tries mount("proc") in its private mount namespace, then reports
 * its stage and errno over a pipe.  The answer is kept for the process's
 * life (explain and a run ask once each anyway).  Never fails: a probe
 * that could not run is PROCMODE_UNKNOWN. */
enum procmode_verdict procprobe_fresh_proc(void);

/* 1 when /proc/sys is mounted read-only (statvfs), 0 otherwise. */
int procprobe_sysctl_ro(void);

#endif
