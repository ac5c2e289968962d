/* procstat.h: reading a process's /proc/PID/stat: its state, parent and
 * start time, for the registry's liveness checks, the guardian and the
 * user-namespace mapping. */
#ifndef CORDON_PROCSTAT_H
#define CORDON_PROCSTAT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Read /proc/PID/stat into buf (NUL-terminated): through dirfd (an open
 * /proc/PID directory) when dirfd >= 0, else by pid.  Its length, -ESRCH
 * when the process is gone, or -errno. */
ssize_t procstat_read(int dirfd, pid_t pid, char *buf, size_t len)
	__attribute__((warn_unused_result));

/* Pure: the state letter (field 3) of a stat line, or 0 if malformed. */
char procstat_state(const char *stat);

/* Pure: numeric field `field` (4 or more: 4 is the parent pid, 22 the start
 * time) of a stat line.  0, or -1 if it is missing or not a number. */
int procstat_field(const char *stat, int field, unsigned long long *out)
	__attribute__((warn_unused_result));

/* Start time (field 22 of /proc/PID/stat) of a running process: 0, -ESRCH
 * when there is no such process or it is a zombie, or -errno when it cannot
 * be read.  With (pid, start time) a process is named for good: a pid can be
 * reused, never with the same start time. */
int procstat_start(pid_t pid, uint64_t *start) __attribute__((warn_unused_result));

#endif
