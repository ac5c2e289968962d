/* err.h: the one error contract of cordon.
 *
 * A function that can fail returns 0 on success or -errno on failure (or a
 * pointer, NULL on failure) and fills a caller-owned struct cordon_err with the
 * errno and a message that names the path or flag involved and, where there is
 * one, what the user can do.  Each layer may prefix context on the way up with
 * err_wrap().  Only main() (or a phase with no way back, such as a forked child
 * before exec) prints a cordon_err and exits; nothing in common/ exits.
 *
 * The record has a fixed size so that it can travel as-is over the wire from
 * cordon-inner to cordon (see wire.h): `exit_code` then says which status the
 * run should end with (125 setup failure, 126/127 exec failures).
 */
#ifndef CORDON_ERR_H
#define CORDON_ERR_H

#include <stdint.h>

#define ERR_MSG_MAX 256

enum {
	EXIT_CORDON_FAILED = 125,   /* cordon could not build the sandbox: nothing ran */
	EXIT_NOT_EXECUTABLE = 126,
	EXIT_NOT_FOUND = 127,
	EXIT_TIMEOUT = 124,
};

struct cordon_err {
	int32_t err;       /* positive errno, 0 when none */
	int32_t exit_code; /* status the run ends with; EXIT_CORDON_FAILED unless set */
	char msg[ERR_MSG_MAX];
};

/* Fill *e (which may be NULL) and return -errnum (or -EINVAL when errnum is 0). */
int err_set(struct cordon_err *e, int errnum, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* As err_set, then append ": strerror(errnum)". */
int err_sys(struct cordon_err *e, int errnum, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Prefix context onto an already filled *e; returns -e->err (never 0). */
int err_wrap(struct cordon_err *e, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Print "cordon: <msg>\n" to stderr with one write(2); async-signal-safe once
 * the message is built, so usable between fork and exec.  An empty message
 * prints nothing: it marks an error a forked child has reported already. */
void err_print(const struct cordon_err *e);

#endif
