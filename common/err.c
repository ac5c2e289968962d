/* err.c: building and printing struct cordon_err records (see err.h). */
#include "err.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static int err_fill(struct cordon_err *e, int errnum, int with_strerror,
		    const char *fmt, va_list ap)
{
	if (errnum <= 0)
		errnum = EINVAL;
	if (!e)
		return -errnum;
	e->err = errnum;
	e->exit_code = EXIT_CORDON_FAILED;
	int n = vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
	if (n < 0)
		e->msg[0] = '\0';
	if (with_strerror && n >= 0 && (size_t)n < sizeof(e->msg)) {
		size_t len = (size_t)n;
		(void)snprintf(e->msg + len, sizeof(e->msg) - len, ": %s",
			       strerror(errnum));
	}
	return -errnum;
}

int err_set(struct cordon_err *e, int errnum, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int r = err_fill(e, errnum, 0, fmt, ap);
	va_end(ap);
	return r;
}

int err_sys(struct cordon_err *e, int errnum, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int r = err_fill(e, errnum, 1, fmt, ap);
	va_end(ap);
	return r;
}

int err_wrap(struct cordon_err *e, const char *fmt, ...)
{
	if (!e)
		return -EINVAL;
	char prefix[ERR_MSG_MAX];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(prefix, sizeof(prefix), fmt, ap);
	va_end(ap);
	if (n > 0) {
		char old[ERR_MSG_MAX];
		memcpy(old, e->msg, sizeof(old));
		old[sizeof(old) - 1] = '\0';
		(void)snprintf(e->msg, sizeof(e->msg), "%s: %s", prefix, old);
	}
	return e->err > 0 ? -e->err : -EINVAL;
}

void err_print(const struct cordon_err *e)
{
	char line[ERR_MSG_MAX + 16];
	size_t len = strnlen(e->msg, sizeof(e->msg));
	if (len == 0)
		return;
	memcpy(line, "cordon: ", 8); /* NOLINT(bugprone-not-null-terminated-result) */
	/* A byte count, not a string: write(2) below takes the length. */
	memcpy(line + 8, e->msg, len); /* NOLINT(bugprone-not-null-terminated-result) */
	line[8 + len] = '\n';
	/* Best effort: stderr may be closed, and there is nobody left to tell. */
	ssize_t w = write(STDERR_FILENO, line, 8 + len + 1);
	(void)w;
}
