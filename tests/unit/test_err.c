/* test_err.c: building and printing struct cordon_err records. */
#include <criterion/criterion.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "err.h"

static struct cordon_err fresh(void)
{
	struct cordon_err e;
	memset(&e, 'Z', sizeof(e));
	return e;
}

Test(err_set, fills_record_and_returns_minus_errno)
{
	struct cordon_err e = fresh();
	cr_assert_eq(err_set(&e, ENOENT, "--write %s: %d", "/x", 7), -ENOENT);
	cr_assert_eq(e.err, ENOENT);
	cr_assert_eq(e.exit_code, EXIT_CORDON_FAILED);
	cr_assert_str_eq(e.msg, "--write /x: 7");
}

Test(err_set, zero_or_negative_errno_becomes_einval)
{
	struct cordon_err e = fresh();
	cr_assert_eq(err_set(&e, 0, "x"), -EINVAL);
	cr_assert_eq(e.err, EINVAL);
	cr_assert_eq(err_set(&e, -3, "x"), -EINVAL);
	cr_assert_eq(e.err, EINVAL);
}

Test(err_set, null_record_tolerated)
{
	cr_assert_eq(err_set(NULL, EPERM, "x %s", "y"), -EPERM);
	cr_assert_eq(err_sys(NULL, EACCES, "x"), -EACCES);
	cr_assert_eq(err_wrap(NULL, "ctx"), -EINVAL);
}

Test(err_set, truncation_keeps_nul)
{
	char big[600];
	memset(big, 'a', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	struct cordon_err e = fresh();
	cr_assert_eq(err_set(&e, EINVAL, "%s", big), -EINVAL);
	cr_assert_eq(e.msg[ERR_MSG_MAX - 1], '\0');
	cr_assert_eq(strlen(e.msg), ERR_MSG_MAX - 1);
}

Test(err_sys, appends_strerror)
{
	struct cordon_err e = fresh();
	cr_assert_eq(err_sys(&e, ENOENT, "open %s", "/nope"), -ENOENT);
	char want[ERR_MSG_MAX];
	snprintf(want, sizeof(want), "open /nope: %s", strerror(ENOENT));
	cr_assert_str_eq(e.msg, want);
	cr_assert_eq(e.err, ENOENT);
	cr_assert_eq(e.exit_code, EXIT_CORDON_FAILED);
}

Test(err_sys, truncation_keeps_nul)
{
	char big[ERR_MSG_MAX];
	memset(big, 'b', ERR_MSG_MAX - 10);
	big[ERR_MSG_MAX - 10] = '\0';
	struct cordon_err e = fresh();
	(void)err_sys(&e, ENOENT, "%s", big);
	cr_assert_eq(strlen(e.msg), ERR_MSG_MAX - 1);
	cr_assert_eq(strncmp(e.msg + ERR_MSG_MAX - 10, ": ", 2), 0, "suffix not started: %s", e.msg);

	memset(big, 'b', ERR_MSG_MAX - 1);
	big[ERR_MSG_MAX - 1] = '\0';
	(void)err_sys(&e, ENOENT, "%sMORE", big);
	cr_assert_eq(strlen(e.msg), ERR_MSG_MAX - 1);
	cr_assert_eq(e.msg[ERR_MSG_MAX - 1], '\0');
}

Test(err_wrap, prefixes_context_and_keeps_errno)
{
	struct cordon_err e = fresh();
	(void)err_set(&e, EXDEV, "inner");
	e.exit_code = EXIT_NOT_FOUND;
	cr_assert_eq(err_wrap(&e, "outer %d", 2), -EXDEV);
	cr_assert_str_eq(e.msg, "outer 2: inner");
	cr_assert_eq(e.err, EXDEV);
	cr_assert_eq(e.exit_code, EXIT_NOT_FOUND, "wrap must not reset the exit code");
	cr_assert_eq(err_wrap(&e, "top"), -EXDEV);
	cr_assert_str_eq(e.msg, "top: outer 2: inner");
}

Test(err_wrap, empty_prefix_leaves_message)
{
	struct cordon_err e = fresh();
	(void)err_set(&e, EIO, "inner");
	cr_assert_eq(err_wrap(&e, "%s", ""), -EIO);
	cr_assert_str_eq(e.msg, "inner");
}

Test(err_wrap, no_errno_gives_einval)
{
	struct cordon_err e;
	memset(&e, 0, sizeof(e));
	strcpy(e.msg, "m");
	cr_assert_eq(err_wrap(&e, "ctx"), -EINVAL);
	cr_assert_str_eq(e.msg, "ctx: m");
}

Test(err_wrap, truncation_keeps_nul)
{
	struct cordon_err e = fresh();
	char big[ERR_MSG_MAX];
	memset(big, 'c', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	(void)err_set(&e, EIO, "%s", big);
	cr_assert_eq(err_wrap(&e, "prefix"), -EIO);
	cr_assert_eq(strncmp(e.msg, "prefix: ccc", 11), 0);
	cr_assert_eq(strlen(e.msg), ERR_MSG_MAX - 1);

	/* An unterminated message (as it could arrive over the wire) is read
	 * no further than the record. */
	memset(e.msg, 'd', sizeof(e.msg));
	(void)err_wrap(&e, "p");
	cr_assert_eq(strlen(e.msg), ERR_MSG_MAX - 1);
	cr_assert_eq(strncmp(e.msg, "p: ddd", 6), 0);
}

static void capture_print(const struct cordon_err *e, char *buf, size_t len)
{
	int pfd[2];
	cr_assert_eq(pipe(pfd), 0);
	int saved = dup(STDERR_FILENO);
	cr_assert_geq(saved, 0);
	cr_assert_eq(dup2(pfd[1], STDERR_FILENO), STDERR_FILENO);
	err_print(e);
	cr_assert_eq(dup2(saved, STDERR_FILENO), STDERR_FILENO);
	close(saved);
	close(pfd[1]);
	ssize_t n = read(pfd[0], buf, len - 1);
	close(pfd[0]);
	cr_assert_geq(n, 0);
	buf[n] = '\0';
}

Test(err_print, one_line_with_prefix)
{
	struct cordon_err e = fresh();
	(void)err_set(&e, EINVAL, "--tmp bogus: expected private or host");
	char buf[512];
	capture_print(&e, buf, sizeof(buf));
	cr_assert_str_eq(buf, "cordon: --tmp bogus: expected private or host\n");
}

Test(err_print, unterminated_message_is_bounded)
{
	struct cordon_err e = fresh();
	memset(e.msg, 'q', sizeof(e.msg));
	char buf[1024];
	capture_print(&e, buf, sizeof(buf));
	cr_assert_eq(strlen(buf), 8 + ERR_MSG_MAX + 1);
	cr_assert_eq(buf[8 + ERR_MSG_MAX], '\n');
}
