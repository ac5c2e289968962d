/* test_bwrap_argv.c: the bwrap command line for a plan: the namespace and
 * privilege flags, each mount kind's form, and the two "--" that separate
 * bwrap's options, cordon-inner and the command. */
#include <criterion/criterion.h>

#include <string.h>

#include "plan/bwrap_argv.h"

static char *const no_args[] = { NULL };
static char *const inner_args[] = { "--ctrl-fd", "5", NULL };
static char *const cmd_ls[] = { "ls", "-la", "--", "--color", NULL };

static struct bwrap_opts opts(void)
{
	struct bwrap_opts o = {
		.bwrap_name = "bwrap",
		.new_session = 0,
		.share_pid = 0,
		.info_fd = -1,
		.userns_block_fd = -1,
		.inner_exec = "/proc/self/fd/7",
		.inner_args = no_args,
		.cmd = cmd_ls,
	};
	return o;
}

static void build(const struct mount_plan *p, const struct bwrap_opts *o, struct argv *a)
{
	struct cordon_err e;
	memset(&e, 0, sizeof(e));
	memset(a, 0, sizeof(*a));
	cr_assert_eq(bwrap_argv_build(p, o, a, &e), 0, "bwrap_argv_build: %s", e.msg);
	cr_assert_not_null(a->v);
	cr_assert_null(a->v[a->n]);
}

static size_t count(const struct argv *a, size_t end, const char *s)
{
	size_t c = 0;
	for (size_t i = 0; i < end; i++)
		if (strcmp(a->v[i], s) == 0)
			c++;
	return c;
}

static size_t first_dashdash(const struct argv *a)
{
	for (size_t i = 0; i < a->n; i++)
		if (strcmp(a->v[i], "--") == 0)
			return i;
	cr_assert_fail("no -- in the bwrap argv");
	return 0;
}

/* The exact option set bwrap gets with an empty plan, compared as a set. */
static void expect_options(const struct argv *a, const char *const *want, size_t nwant)
{
	size_t end = first_dashdash(a);
	cr_assert_str_eq(a->v[0], "bwrap");
	cr_assert_eq(end - 1, nwant, "bwrap got %zu option words, want %zu", end - 1, nwant);
	for (size_t i = 0; i < nwant; i++)
		cr_assert_eq(count(a, end, want[i]), 1, "option %s appears %zu times, want once",
			     want[i], count(a, end, want[i]));
}

static const struct mount_plan empty_plan = { NULL, 0 };

Test(bwrap_argv, default_namespaces_and_privileges)
{
	struct bwrap_opts o = opts();
	struct argv a;
	build(&empty_plan, &o, &a);
	static const char *const want[] = {
		"--unshare-user", "--unshare-pid", "--unshare-ipc", "--unshare-uts",
		"--unshare-cgroup-try", "--unshare-net", "--die-with-parent", "--as-pid-1",
		"--cap-drop", "ALL",
	};
	expect_options(&a, want, sizeof(want) / sizeof(want[0]));
	size_t i;
	for (i = 1; strcmp(a.v[i], "--cap-drop") != 0; i++)
		;
	cr_assert_str_eq(a.v[i + 1], "ALL");
	cr_assert_eq(count(&a, a.n, "--new-session"), 0);
	cr_assert_eq(count(&a, a.n, "--info-fd"), 0);
	cr_assert_eq(count(&a, a.n, "--share-net"), 0);
	argv_free(&a);
}

Test(bwrap_argv, new_session_and_info_fd)
{
	struct bwrap_opts o = opts();
	o.new_session = 1;
	o.info_fd = 9;
	struct argv a;
	build(&empty_plan, &o, &a);
	static const char *const want[] = {
		"--unshare-user", "--unshare-pid", "--unshare-ipc", "--unshare-uts",
		"--unshare-cgroup-try", "--unshare-net", "--die-with-parent", "--as-pid-1",
		"--cap-drop", "ALL", "--new-session", "--info-fd", "9",
	};
	expect_options(&a, want, sizeof(want) / sizeof(want[0]));
	size_t i;
	for (i = 1; strcmp(a.v[i], "--info-fd") != 0; i++)
		;
	cr_assert_str_eq(a.v[i + 1], "9");
	argv_free(&a);
}

Test(bwrap_argv, userns_block_fd_follows_the_info_fd)
{
	struct bwrap_opts o = opts();
	o.info_fd = 9;
	o.userns_block_fd = 10;
	struct argv a;
	build(&empty_plan, &o, &a);
	size_t i;
	for (i = 1; strcmp(a.v[i], "--info-fd") != 0; i++)
		;
	cr_assert_str_eq(a.v[i + 1], "9");
	cr_assert_str_eq(a.v[i + 2], "--userns-block-fd");
	cr_assert_str_eq(a.v[i + 3], "10");
	cr_assert_eq(count(&a, first_dashdash(&a), "--userns-block-fd"), 1);
	argv_free(&a);

	/* bwrap refuses --userns-block-fd without --info-fd: never one alone. */
	o.info_fd = -1;
	build(&empty_plan, &o, &a);
	cr_assert_eq(count(&a, a.n, "--userns-block-fd"), 0);
	argv_free(&a);
}

Test(bwrap_argv, info_fd_zero_is_a_descriptor)
{
	struct bwrap_opts o = opts();
	o.info_fd = 0;
	struct argv a;
	build(&empty_plan, &o, &a);
	cr_assert_eq(count(&a, first_dashdash(&a), "--info-fd"), 1);
	argv_free(&a);
}

Test(bwrap_argv, share_pid_drops_pid_namespace_flags)
{
	struct bwrap_opts o = opts();
	o.share_pid = 1;
	struct argv a;
	build(&empty_plan, &o, &a);
	static const char *const want[] = {
		"--unshare-user", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try",
		"--unshare-net", "--die-with-parent", "--cap-drop", "ALL",
	};
	expect_options(&a, want, sizeof(want) / sizeof(want[0]));
	argv_free(&a);
}

/* --net full: the host's network namespace, every other namespace kept. */
Test(bwrap_argv, share_net_drops_only_the_network_namespace)
{
	struct bwrap_opts o = opts();
	o.share_net = 1;
	struct argv a;
	build(&empty_plan, &o, &a);
	static const char *const want[] = {
		"--unshare-user", "--unshare-pid", "--unshare-ipc", "--unshare-uts",
		"--unshare-cgroup-try", "--die-with-parent", "--as-pid-1", "--cap-drop", "ALL",
	};
	expect_options(&a, want, sizeof(want) / sizeof(want[0]));
	cr_assert_eq(count(&a, first_dashdash(&a), "--unshare-net"), 0);
	argv_free(&a);
}

/* The words one mount op turns into, found after the fixed options. */
static void expect_op(const struct mount_op *op, const char *const *want, size_t nwant)
{
	struct mount_plan p = { (struct mount_op *)op, 1 };
	struct bwrap_opts o = opts();
	struct argv a;
	build(&p, &o, &a);
	size_t start = 1;
	while (strcmp(a.v[start], "ALL") != 0)
		start++;
	start++;
	size_t end = first_dashdash(&a);
	cr_assert_eq(end - start, nwant, "mount op gave %zu words, want %zu", end - start, nwant);
	for (size_t i = 0; i < nwant; i++)
		cr_assert_str_eq(a.v[start + i], want[i], "word %zu", i);
	argv_free(&a);
}

#define EXPECT_OP(op, ...) do { \
	static const char *const w_[] = { __VA_ARGS__ }; \
	expect_op((op), w_, sizeof(w_) / sizeof(w_[0])); \
} while (0)

Test(bwrap_argv, mount_kinds)
{
	struct mount_op op;
	op = (struct mount_op){ MOUNT_RO_BIND, "/", "/", -1, 0, 0 };
	EXPECT_OP(&op, "--ro-bind", "/", "/");
	op = (struct mount_op){ MOUNT_BIND, "/", "/", -1, 0, 0 };
	EXPECT_OP(&op, "--bind", "/", "/");
	op = (struct mount_op){ MOUNT_DEV, NULL, "/dev", -1, 0, 0 };
	EXPECT_OP(&op, "--dev", "/dev");
	op = (struct mount_op){ MOUNT_PROC, NULL, "/proc", -1, 0, 0 };
	EXPECT_OP(&op, "--proc", "/proc");
	op = (struct mount_op){ MOUNT_TMPFS, NULL, "/tmp", -1, 01777, 0 };
	EXPECT_OP(&op, "--perms", "1777", "--tmpfs", "/tmp");
	op = (struct mount_op){ MOUNT_TMPFS, NULL, "/t", -1, 0755, 0 };
	EXPECT_OP(&op, "--perms", "0755", "--tmpfs", "/t");
	op = (struct mount_op){ MOUNT_TMPFS, NULL, "/tmp", -1, 01777, 1048576 };
	EXPECT_OP(&op, "--perms", "1777", "--size", "1048576", "--tmpfs", "/tmp");
	op = (struct mount_op){ MOUNT_REMOUNT_RO, NULL, "/dev", -1, 0, 0 };
	EXPECT_OP(&op, "--remount-ro", "/dev");
	op = (struct mount_op){ MOUNT_BIND_FD, NULL, "/w/a", 12, 0, 0 };
	EXPECT_OP(&op, "--bind-fd", "12", "/w/a");
	op = (struct mount_op){ MOUNT_RO_BIND_FD, NULL, "/w/a/.git", 13, 0, 0 };
	EXPECT_OP(&op, "--ro-bind-fd", "13", "/w/a/.git");
	op = (struct mount_op){ MOUNT_MASK_FILE, NULL, "/w/a/.env", 14, 0, 0 };
	EXPECT_OP(&op, "--perms", "0000", "--ro-bind-data", "14", "/w/a/.env");
	op = (struct mount_op){ MOUNT_MASK_DIR, NULL, "/w/secret", -1, 0, 0 };
	EXPECT_OP(&op, "--perms", "0000", "--tmpfs", "/w/secret", "--remount-ro", "/w/secret");
	op = (struct mount_op){ MOUNT_CHDIR, NULL, "/w/a", -1, 0, 0 };
	EXPECT_OP(&op, "--chdir", "/w/a");
}

Test(bwrap_argv, plan_order_is_kept)
{
	struct mount_op ops[] = {
		{ MOUNT_RO_BIND, "/", "/", -1, 0, 0 },
		{ MOUNT_DEV, NULL, "/dev", -1, 0, 0 },
		{ MOUNT_BIND_FD, NULL, "/w", 5, 0, 0 },
		{ MOUNT_CHDIR, NULL, "/w", -1, 0, 0 },
	};
	struct mount_plan p = { ops, 4 };
	struct bwrap_opts o = opts();
	struct argv a;
	build(&p, &o, &a);
	size_t start = 1;
	while (strcmp(a.v[start], "ALL") != 0)
		start++;
	static const char *const want[] = {
		"--ro-bind", "/", "/", "--dev", "/dev", "--bind-fd", "5", "/w", "--chdir", "/w", "--",
	};
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		cr_assert_str_eq(a.v[start + 1 + i], want[i], "word %zu", i);
	argv_free(&a);
}

Test(bwrap_argv, inner_then_command_last)
{
	struct mount_op ops[] = { { MOUNT_RO_BIND, "/", "/", -1, 0, 0 } };
	struct mount_plan p = { ops, 1 };
	struct bwrap_opts o = opts();
	o.inner_args = inner_args;
	struct argv a;
	build(&p, &o, &a);
	size_t dd = first_dashdash(&a);
	static const char *const tail[] = {
		"--", "/proc/self/fd/7", "--ctrl-fd", "5", "--", "ls", "-la", "--", "--color",
	};
	size_t nt = sizeof(tail) / sizeof(tail[0]);
	cr_assert_eq(a.n - dd, nt, "tail has %zu words, want %zu", a.n - dd, nt);
	for (size_t i = 0; i < nt; i++)
		cr_assert_str_eq(a.v[dd + i], tail[i], "tail word %zu", i);
	argv_free(&a);
}

Test(bwrap_argv, no_inner_args)
{
	struct bwrap_opts o = opts();
	o.inner_args = NULL;
	struct argv a;
	build(&empty_plan, &o, &a);
	size_t dd = first_dashdash(&a);
	cr_assert_str_eq(a.v[dd + 1], "/proc/self/fd/7");
	cr_assert_str_eq(a.v[dd + 2], "--");
	cr_assert_str_eq(a.v[dd + 3], "ls");
	cr_assert_eq(a.n, dd + 7);
	argv_free(&a);
}
