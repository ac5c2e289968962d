/* test_policy_view.c: the rows explain prints, and the "why" of each: flag,
 * policy key or default. */
#include <criterion/criterion.h>

#include <errno.h>
#include <string.h>

#include "plan/policy_view.h"

static const struct view_row *row(const struct policy_view *v, const char *path)
{
	for (size_t i = 0; i < v->n; i++)
		if (strcmp(v->rows[i].path, path) == 0)
			return &v->rows[i];
	cr_assert_fail("no row for %s", path);
	return NULL;
}

static struct rpath rp(const char *path)
{
	return (struct rpath){ .path = (char *)path, .fd = -1, .is_dir = 1 };
}

Test(policy_view, each_access_kind_and_its_origin)
{
	const char *writes[] = { "/w/file", "/w/flag" };
	const char *ros[] = { "/w/flag/vendor" };
	const char *denies[] = { "/w/flag/.env" };
	const char *protects[] = { ".hg" };
	const char *pflags[] = { "write" };
	const char *pkeys[] = { "filesystem.allowWrite" };
	const char *given[] = { "write", "read-only", "deny-read", "protect" };
	struct config c = {
		.write = { .v = writes, .n = 2, .nfile = 1 }, .read_only = { .v = ros, .n = 1 },
		.deny_read = { .v = denies, .n = 1 },
		.protect = { .v = protects, .n = 1 }, .default_protect = 1, .tmp = TMP_PRIVATE,
		.protect_missing = PROTECT_MISSING_WATCH,
		.policy_flags = { .v = pflags, .n = 1 }, .policy_keys = { .v = pkeys, .n = 1 },
		.flags_given = { .v = given, .n = 4 },
	};
	struct rpath roots[] = { rp("/w/file"), rp("/w/flag") };
	struct rpath carves[] = { rp("/w/flag/vendor"), rp("/w/flag/lib") };
	carves[1].pin = 1;
	struct rpath masks[] = { rp("/w/flag/.env") };
	struct resolved r = {
		.roots = roots, .nroots = 2, .carves = carves, .ncarves = 2,
		.masks = masks, .nmasks = 1, .cwd = { .fd = -1 },
	};
	struct protect_action acts[] = {
		{ PROTECT_BIND, "/w/flag/.git", 0, 3, 0, NULL, NULL },
		{ PROTECT_BIND, "/w/flag/hooks", 0, 4, 0, NULL, NULL },
		{ PROTECT_WATCH, "/w/flag/.hg", 1, -1, 0, NULL, NULL },
		{ PROTECT_WATCH, "/w/flag/.bashrc", 2, -1, 0, NULL, NULL },
		{ PROTECT_CREATE, "/w/file/.agents", 3, -1, 0, NULL, NULL },
		{ PROTECT_PIN, "/w/file/.codex", 0, -1, 0, NULL, NULL },
		{ PROTECT_KEEP, "/w/file/.local", 0, -1, 1, NULL, NULL },
		{ PROTECT_CARVE, "/w/file/.local/state/cordon/registry", 0, -1, 1, NULL, NULL },
		{ PROTECT_WATCH, "/w/flag/x", 0, -1, 0, NULL, "/w/flag/.codex" },
		{ PROTECT_WATCH_LINK, "/w/flag/a", 0, -1, 0, NULL, "/w/flag/.codex" },
		{ PROTECT_BIND, "/w/flag/t", 0, 5, 0, NULL, "/w/flag/.codex" },
	};
	struct protect_decision d = { .v = acts, .n = sizeof(acts) / sizeof(acts[0]) };
	struct policy_view v;
	struct cordon_err e;
	cr_assert_eq(policy_view_build(&c, &r, &d, &v, &e), 0);
	cr_assert_eq(row(&v, "/")->access, VIEW_RO);
	cr_assert_str_eq(row(&v, "/")->why, "default: everything not listed is read-only");
	cr_assert_eq(row(&v, "/tmp")->access, VIEW_RW);
	cr_assert_eq(row(&v, "/w/file")->access, VIEW_RW);
	cr_assert_str_eq(row(&v, "/w/file")->why, "policy filesystem.allowWrite");
	cr_assert_str_eq(row(&v, "/w/flag")->why, "--write");
	cr_assert_eq(row(&v, "/w/flag/vendor")->access, VIEW_RO);
	cr_assert_str_eq(row(&v, "/w/flag/vendor")->why, "--read-only");
	cr_assert_eq(row(&v, "/w/flag/lib")->access, VIEW_RW);
	cr_assert_not_null(strstr(row(&v, "/w/flag/lib")->why, "pinned in place"));
	cr_assert_eq(row(&v, "/w/flag/.git")->access, VIEW_PROTECTED);
	cr_assert_str_eq(row(&v, "/w/flag/.git")->why, "default protected name: exists, read-only");
	cr_assert_eq(row(&v, "/w/flag/hooks")->access, VIEW_PROTECTED);
	cr_assert_not_null(strstr(row(&v, "/w/flag/hooks")->why, "git metadata"));
	cr_assert_eq(row(&v, "/w/flag/.hg")->access, VIEW_WATCHED);
	cr_assert_not_null(strstr(row(&v, "/w/flag/.hg")->why, "--protect: missing"));
	cr_assert_eq(row(&v, "/w/file/.codex")->access, VIEW_PROTECTED);
	cr_assert_not_null(strstr(row(&v, "/w/file/.codex")->why, "another run"));
	cr_assert_eq(row(&v, "/w/file/.local")->access, VIEW_RW);
	cr_assert_not_null(strstr(row(&v, "/w/file/.local")->why, "pinned"));
	cr_assert_eq(row(&v, "/w/file/.local/state/cordon/registry")->access, VIEW_RO);
	cr_assert_str_eq(row(&v, "/w/file/.local/state/cordon/registry")->why,
			 "cordon's run registry, kept from the command");
	cr_assert_eq(row(&v, "/w/flag/.bashrc")->access, VIEW_WATCHED);
	cr_assert_not_null(strstr(row(&v, "/w/flag/.bashrc")->why, "default protected dotfile: missing"));
	cr_assert_eq(row(&v, "/w/file/.agents")->access, VIEW_PROTECTED);
	cr_assert_not_null(strstr(row(&v, "/w/file/.agents")->why, "empty read-only mount point"));
	/* the way of another user's link at a protected name (linkwalk.h) */
	cr_assert_eq(row(&v, "/w/flag/x")->access, VIEW_WATCHED);
	cr_assert_not_null(strstr(row(&v, "/w/flag/x")->why, "link /w/flag/.codex leads there"));
	cr_assert_eq(row(&v, "/w/flag/a")->access, VIEW_WATCHED);
	cr_assert_not_null(strstr(row(&v, "/w/flag/a")->why, "on the way"));
	cr_assert_eq(row(&v, "/w/flag/t")->access, VIEW_PROTECTED);
	cr_assert_not_null(strstr(row(&v, "/w/flag/t")->why, "read-only"));
	cr_assert_eq(row(&v, "/w/flag/.env")->access, VIEW_DENIED);
	cr_assert_str_eq(row(&v, "/w/flag/.env")->why, "--deny-read");
	cr_assert_eq(policy_view_retag(&v, "/w/flag", VIEW_CACHE, "cache dir"), 0);
	cr_assert_eq(row(&v, "/w/flag")->access, VIEW_CACHE);
	cr_assert_eq(policy_view_retag(&v, "/nowhere", VIEW_CACHE, "x"), -ENOENT);
	cr_assert_eq(policy_view_add(&v, "/cache", VIEW_CACHE, "--cache %s", "private"), 0);
	cr_assert_str_eq(policy_view_access(row(&v, "/cache")->access), "cache");
	cr_assert_str_eq(row(&v, "/cache")->why, "--cache private");
	policy_view_free(&v);
}

Test(policy_view, full_write_and_scalar_origins)
{
	const char *pflags[] = { "full-write", "tmp" };
	const char *pkeys[] = { "full_write", "tmp" };
	const char *given[] = { "tmp" };
	struct config c = {
		.full_write = 1, .tmp = TMP_PRIVATE,
		.policy_flags = { .v = pflags, .n = 2 }, .policy_keys = { .v = pkeys, .n = 2 },
		.flags_given = { .v = given, .n = 1 },
	};
	struct resolved r = { .cwd = { .fd = -1 } };
	struct policy_view v;
	struct cordon_err e;
	cr_assert_eq(policy_view_build(&c, &r, NULL, &v, &e), 0);
	cr_assert_eq(row(&v, "/")->access, VIEW_RW);
	cr_assert_str_eq(row(&v, "/")->why, "policy full_write");
	cr_assert_not_null(strstr(row(&v, "/tmp")->why, "--tmp"), "a flag overrides the file");
	policy_view_free(&v);
	char buf[64];
	policy_view_origin(&c, "net", buf, sizeof(buf));
	cr_assert_str_eq(buf, "default");
}
