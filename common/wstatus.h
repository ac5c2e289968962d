/* wstatus.h: how a process ended, from its wait status, decoded in one
 * place.  cordon-inner sends the command's own wait status to cordon
 * (WIRE_EXITED); cordon's exit status and the report's "reason" and
 * "signal" are both taken from the one decoding here.  An exit status alone
 * cannot tell `exit 130` from death by SIGINT (both are 130 to a shell);
 * the wait status can.  Pure. */
#ifndef CORDON_WSTATUS_H
#define CORDON_WSTATUS_H

/* The highest signal number a process can die of (SIGRTMAX on Linux). */
#define WSTATUS_SIG_MAX 64

struct wstatus_end {
	int signaled;   /* 1: killed by signal `code`; 0: exited with `code` */
	int code;       /* exit code 0-255, or the signal number 1-WSTATUS_SIG_MAX */
};

/* A wait status -> how the process ended.  0, or -EINVAL for a status that
 * is not an end (stopped, continued) or names no signal there is. */
int wstatus_decode(int wstatus, struct wstatus_end *end) __attribute__((warn_unused_result));

/* The status a shell gives such an end: the exit code, or 128 + the signal. */
int wstatus_exit_code(const struct wstatus_end *end);

#endif
