/* test_pathquery.c: explain --path's verdicts (plan/pathquery.h) on a plan
 * made by hand: / read-only, the root /w, its protected .git (bound) and
 * .codex (missing, watched), a --read-only carve-out, a --deny-read mask,
 * the private /tmp, /dev and /proc; and the git dir rule lookup. */
#include <criterion/criterion.h>

#include <string.h>

#include "plan/gitdir.h"
#include "plan/mount_plan.h"
#include "plan/pathquery.h"

static struct mount_op ops[] = {
	{ MOUNT_RO_BIND, "/", "/", -1, 0, 0 },
	{ MOUNT_DEV, NULL, "/dev", -1, 0, 0 },
	{ MOUNT_PROC, NULL, "/proc", -1, 0, 0 },
	{ MOUNT_TMPFS, NULL, "/tmp", -1, 01777, 0 },
	{ MOUNT_BIND_FD, NULL, "/w", 5, 0, 0 },
	{ MOUNT_RO_BIND_FD, NULL, "/w/ro", 6, 0, 0 },
	{ MOUNT_MASK_DIR, NULL, "/w/secret", -1, 0, 0 },
	{ MOUNT_RO_BIND_FD, NULL, "/w/.git", 7, 0, 0 },
};
static const struct mount_plan plan = { ops, sizeof(ops) / sizeof(ops[0]) };
static struct protect_action acts[] = {
	{ PROTECT_BIND, "/w/.git", 0, 7, 0, NULL, NULL },
	{ PROTECT_WATCH, "/w/.codex", 1, -1, 0, NULL, NULL },
};
static const struct protect_decision dec = { .v = acts, .n = 2 };
static struct rpath roots[] = { { .path = "/w", .fd = 5, .dev = 1, .ino = 1, .is_dir = 1 } };
static const char *const ro[] = { "/w/ro" };

static struct pathquery_verdict ask(const char *path, enum pathquery_kind k, int git_commit)
{
	struct pathquery_rules r = { &plan, &dec, roots, 1, ro, 1, git_commit, 0, NULL, 0, 1 };
	struct pathquery_verdict v;
	pathquery_decide(&r, path, k, &v);
	return v;
}

Test(pathquery, inside_the_root)
{
	struct pathquery_verdict v = ask("/w/src/a.c", PATHQUERY_MISSING, 0);
	cr_expect(v.read_ok && v.write_ok);
	cr_expect(strstr(v.write_why, "writable root /w"), "%s", v.write_why);
	cr_expect_eq(v.connect_ok, -1);
}

Test(pathquery, outside_names_the_directory_to_add)
{
	struct pathquery_verdict v = ask("/home/me/.npmrc", PATHQUERY_OTHER, 0);
	cr_expect(v.read_ok && !v.write_ok);
	cr_expect_str_eq(v.allow, "-w /home/me");
	v = ask("/home/me/proj", PATHQUERY_DIR, 0);
	cr_expect_str_eq(v.allow, "-w /home/me/proj", "a directory is named itself");
	v = ask("/x", PATHQUERY_MISSING, 0);
	cr_expect_str_eq(v.allow, "-w /");
}

Test(pathquery, read_only_carve_out_and_mask)
{
	struct pathquery_verdict v = ask("/w/ro/f", PATHQUERY_OTHER, 0);
	cr_expect(v.read_ok && !v.write_ok);
	cr_expect_str_eq(v.allow, "leave out --read-only /w/ro");
	v = ask("/w/secret/key", PATHQUERY_OTHER, 0);
	cr_expect(!v.read_ok && !v.write_ok);
	cr_expect(strstr(v.read_why, "--deny-read /w/secret"), "%s", v.read_why);
}

Test(pathquery, protected_names)
{
	struct pathquery_verdict v = ask("/w/.codex/config.toml", PATHQUERY_MISSING, 0);
	cr_expect(!v.write_ok, "a watched name is refused though its root is writable");
	cr_expect(strstr(v.write_why, "stops the run"), "%s", v.write_why);
	cr_expect(strstr(v.allow, "--unprotect .codex"), "%s", v.allow);
	v = ask("/w/.codexx", PATHQUERY_MISSING, 0);
	cr_expect(v.write_ok, "a name beside it is not it");
}

Test(pathquery, git_default_and_commit_modes)
{
	struct pathquery_verdict v = ask("/w/.git/refs/heads/x", PATHQUERY_MISSING, 0);
	cr_expect(!v.write_ok);
	cr_expect(strncmp(v.allow, "--git commit", 12) == 0, "%s", v.allow);
	v = ask("/w/.git/config", PATHQUERY_OTHER, 0);
	cr_expect(!v.write_ok);
	cr_expect(strstr(v.allow, "not allowed in any mode"), "config: %s", v.allow);
	/* commit mode: the plan binds .git writable onto itself */
	ops[7].kind = MOUNT_BIND;
	v = ask("/w/.git/refs/heads/x", PATHQUERY_MISSING, 1);
	cr_expect(v.write_ok, "%s", v.write_why);
	v = ask("/w/.git/hooks/pre-commit", PATHQUERY_MISSING, 1);
	cr_expect(!v.write_ok, "a missing hooks dir is watched: refused");
	ops[7].kind = MOUNT_RO_BIND_FD;
}

Test(pathquery, private_tmp_dev_proc)
{
	struct pathquery_verdict v = ask("/tmp/x", PATHQUERY_MISSING, 0);
	cr_expect(v.write_ok && strstr(v.write_why, "--tmp host"), "%s", v.write_why);
	cr_expect(ask("/dev/null", PATHQUERY_OTHER, 0).write_ok);
	v = ask("/proc/sys/kernel/x", PATHQUERY_OTHER, 0);
	cr_expect(!v.write_ok && strstr(v.allow, "any mode"));
}

Test(pathquery, sockets)
{
	struct pathquery_verdict v = ask("/run/docker.sock", PATHQUERY_SOCKET, 0);
	cr_expect_eq(v.connect_ok, 0);
	cr_expect(strstr(v.connect_why, "--allow-unix-socket PATH"), "%s", v.connect_why);
}

Test(pathquery, git_rules)
{
	cr_expect_str_eq(pathquery_git_rule("config")->path, "config");
	cr_expect_str_eq(pathquery_git_rule("hooks/pre-commit")->path, "hooks");
	cr_expect_str_eq(pathquery_git_rule("modules/lib/hooks/x")->path, "hooks");
	cr_expect_str_eq(pathquery_git_rule("modules/lib/refs/heads/m")->path, "refs");
	cr_expect_str_eq(pathquery_git_rule("objects/info/alternates")->path, "objects/info/alternates");
	cr_expect_str_eq(pathquery_git_rule("objects/ab/cdef")->path, "objects/*");
	cr_expect_str_eq(pathquery_git_rule("MERGE_HEAD")->path, "MERGE_*");
	cr_expect_eq(pathquery_git_rule("description"), NULL, "not listed: data");
	cr_expect_eq(pathquery_git_rule("worktrees/wt/config.worktree")->role, GITDIR_CODE);
}
