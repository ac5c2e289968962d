/* test_prefix_decide.c: cordon-prefix's decisions (plan/prefix_decide.h):
 * the policy's name, which policy and project, the refusals of a policy
 * file, and whether the sandbox a policy makes can write it (from a real
 * mount plan). */
#include <criterion/criterion.h>

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "plan/mount_plan.h"
#include "plan/prefix_decide.h"

static const char who[] = "cordon-prefix";

static void expect_escape(const char *dir, const char *want)
{
	char out[256];
	cr_assert_eq(prefix_escape(dir, out, sizeof(out)), 0, "prefix_escape(%s)", dir);
	cr_assert_str_eq(out, want, "prefix_escape(%s)", dir);
}

Test(prefix_escape, documented_examples)
{
	expect_escape("/home/me/my-app", "home-me-my%2Dapp");
	expect_escape("/home/me/src/my-app", "home-me-src-my%2Dapp");
	expect_escape("/a%b", "a%25b");
	expect_escape("/my proj-x", "my proj%2Dx");
}

Test(prefix_escape, root_has_a_name_of_its_own)
{
	/* Not ".json": "-" is no other directory's name ("/-" is "%2D"). */
	expect_escape("/", "-");
	expect_escape("/-", "%2D");
	expect_escape("/a/b", "a-b");
	expect_escape("/a-b", "a%2Db");
}

Test(prefix_escape, refuses_relative_and_too_long)
{
	char out[8];
	cr_assert_eq(prefix_escape("a/b", out, sizeof(out)), -EINVAL);
	cr_assert_eq(prefix_escape("/abcdefgh", out, sizeof(out)), -ENAMETOOLONG);
	cr_assert_eq(prefix_escape("/a-b-c", out, sizeof(out)), -ENAMETOOLONG); /* a%2Db%2Dc */
	cr_assert_eq(prefix_escape("/abcdefg", out, sizeof(out)), 0);
	cr_assert_str_eq(out, "abcdefg");
}

/* Levels for /p/a/b: the working directory /p/a/b, then /p/a, /p, /. */
static struct prefix_level L[4];
static void levels(int pol_b, int pol_a, int pol_p, int pol_root, int git_b, int git_a, int git_p)
{
	L[0] = (struct prefix_level){ "/p/a/b", "/c/cordon/projects/p-a-b.json", pol_b, git_b };
	L[1] = (struct prefix_level){ "/p/a", "/c/cordon/projects/p-a.json", pol_a, git_a };
	L[2] = (struct prefix_level){ "/p", "/c/cordon/projects/p.json", pol_p, git_p };
	L[3] = (struct prefix_level){ "/", "/c/cordon/projects/-.json", pol_root, 0 };
}

static struct prefix_choice choose_ok(int global)
{
	struct prefix_choice ch;
	struct cordon_err e = { 0 };
	cr_assert_eq(prefix_choose(L, 4, global, "/c/cordon/policy.json", who, &ch, &e), 0, "%s", e.msg);
	return ch;
}

Test(prefix_choose, nearest_project_file_wins)
{
	levels(0, 1, 1, 1, 0, 0, 1);
	struct prefix_choice ch = choose_ok(1);
	cr_assert_eq(ch.source, PREFIX_PROJECT_FILE);
	cr_assert_eq(ch.level, 1);
	cr_assert_eq(ch.project, 1, "the project is the policy's own directory");
}

Test(prefix_choose, planted_git_below_a_policy_changes_nothing)
{
	/* The command made /p/a/b/.git: the policy of /p still applies. */
	levels(0, 0, 1, 0, 1, 0, 1);
	struct prefix_choice ch = choose_ok(0);
	cr_assert_eq(ch.source, PREFIX_PROJECT_FILE);
	cr_assert_eq(ch.level, 2);
	cr_assert_eq(ch.project, 2);
}

Test(prefix_choose, global_with_the_nearest_git)
{
	levels(0, 0, 0, 0, 0, 1, 1);
	struct prefix_choice ch = choose_ok(1);
	cr_assert_eq(ch.source, PREFIX_GLOBAL_FILE);
	cr_assert_eq(ch.project, 1, "the nearest .git, not the outermost");
}

Test(prefix_choose, nothing_the_working_directory)
{
	levels(0, 0, 0, 0, 0, 0, 0);
	struct prefix_choice ch = choose_ok(0);
	cr_assert_eq(ch.source, PREFIX_NO_FILE);
	cr_assert_eq(ch.project, 0);
}

Test(prefix_choose, root_file_applies_last)
{
	levels(0, 0, 0, 1, 0, 0, 1);
	struct prefix_choice ch = choose_ok(1);
	cr_assert_eq(ch.source, PREFIX_PROJECT_FILE);
	cr_assert_eq(ch.level, 3);
}

Test(prefix_choose, unreadable_nearer_file_refuses)
{
	/* /p/a's file cannot be looked at: it may be the one that applies. */
	levels(0, -EACCES, 1, 0, 0, 0, 0);
	struct prefix_choice ch;
	struct cordon_err e = { 0 };
	cr_assert_eq(prefix_choose(L, 4, 0, "/c/cordon/policy.json", who, &ch, &e), -EACCES);
	cr_assert(strstr(e.msg, "cannot look for policy /c/cordon/projects/p-a.json"), "%s", e.msg);
	/* Nearer one found first: the unreadable one further up is not asked. */
	levels(1, -EACCES, 0, 0, 0, 0, 0);
	cr_assert_eq(choose_ok(0).level, 0);
	/* policy.json that cannot be looked at, and no project file. */
	levels(0, 0, 0, 0, 0, 0, 0);
	cr_assert_eq(prefix_choose(L, 4, -EACCES, "/c/cordon/policy.json", who, &ch, &e), -EACCES);
	cr_assert(strstr(e.msg, "/c/cordon/policy.json"), "%s", e.msg);
}

static struct prefix_entry entry(const char *what, mode_t type, mode_t perm, uid_t uid, nlink_t nl,
				 int want_dir, const char *real)
{
	struct prefix_entry f;
	memset(&f, 0, sizeof(f));
	f.what = what;
	f.path = "/c/cordon/projects/p.json";
	f.real = real;
	f.st.st_mode = type | perm;
	f.st.st_uid = uid;
	f.st.st_nlink = nl;
	f.want_dir = want_dir;
	return f;
}

static void judged(struct prefix_entry f, int want, const char *msg)
{
	struct cordon_err e = { 0 };
	cr_assert_eq(prefix_judge_private(&f, 1000, "/p", who, &e), want, "%s", e.msg);
	if (msg)
		cr_assert(strstr(e.msg, msg), "message '%s' lacks '%s'", e.msg, msg);
	if (want)
		cr_assert(strncmp(e.msg, "cordon-prefix: ", 15) == 0, "%s", e.msg);
}

Test(prefix_judge_private, accepts_the_callers_private_file)
{
	judged(entry("policy", S_IFREG, 0600, 1000, 1, 0, "/c/cordon/projects/p.json"), 0, NULL);
	judged(entry("policy", S_IFREG, 0644, 1000, 1, 0, "/c/x.json"), 0, NULL);
	judged(entry("the policy directory", S_IFDIR, 0755, 1000, 3, 1, "/c/cordon"), 0, NULL);
}

Test(prefix_judge_private, refusals_in_order)
{
	judged(entry("policy", S_IFLNK, 0777, 1000, 1, 0, "/c/x"), -EPERM, "is a symbolic link");
	judged(entry("policy", S_IFIFO, 0600, 1000, 1, 0, "/c/x"), -EPERM, "is not a regular file");
	judged(entry("the policy directory", S_IFREG, 0700, 1000, 1, 1, "/c/x"), -EPERM,
	       "is not a directory");
	judged(entry("policy", S_IFREG, 0600, 0, 1, 0, "/c/x"), -EPERM,
	       "belongs to uid 0, not to you (uid 1000)");
	judged(entry("policy", S_IFREG, 0620, 1000, 1, 0, "/c/x"), -EPERM,
	       "writable by group or others (mode 620)");
	judged(entry("policy", S_IFREG, 0602, 1000, 1, 0, "/c/x"), -EPERM, "(mode 602)");
	judged(entry("the policy directory", S_IFDIR, 0777, 1000, 2, 1, "/c/x"), -EPERM,
	       "is writable by group or others (mode 777)");
	judged(entry("policy", S_IFREG, 0600, 1000, 2, 0, "/c/x"), -EPERM, "has 2 names");
	judged(entry("policy", S_IFREG, 0600, 1000, 1, 0, "/p/cfg/x.json"), -EPERM,
	       "is inside the project /p");
	/* Only under it: /pp is not inside /p. */
	judged(entry("policy", S_IFREG, 0600, 1000, 1, 0, "/pp/x.json"), 0, NULL);
}

static int project(const char *proj, const char *cwd, const char *home, const char *cfg_real,
		   struct cordon_err *e)
{
	return prefix_check_project(proj, cwd, home, "/h/.config", cfg_real, who, e);
}

Test(prefix_check_project, root_and_home_refused)
{
	struct cordon_err e = { 0 };
	cr_assert_eq(project("/", "/", "/h", "/h/.config", &e), -EPERM);
	cr_assert(strstr(e.msg, "cd into a project (a directory holding .git)"), "%s", e.msg);
	cr_assert_null(strstr(e.msg, ".json"), "no policy for / suggested: %s", e.msg);
	cr_assert_eq(project("/h", "/h", "/h", "/h/.config", &e), -EPERM);
	cr_assert(strstr(e.msg, "the project directory would be /h (no .git above /h)"), "%s", e.msg);
	cr_assert(strstr(e.msg, "write /h/.config/cordon/projects/h.json"), "%s", e.msg);
	/* ~/.git and a deeper working directory: the file for where one is. */
	cr_assert_eq(project("/h", "/h/x-y", "/h", "/h/.config", &e), -EPERM);
	cr_assert(strstr(e.msg, "projects/h-x%2Dy.json"), "%s", e.msg);
	/* / as the project through a /.git, from below. */
	cr_assert_eq(project("/", "/srv", "/h", "/h/.config", &e), -EPERM);
	cr_assert(strstr(e.msg, "projects/srv.json"), "%s", e.msg);
}

Test(prefix_check_project, configuration_inside_refused)
{
	struct cordon_err e = { 0 };
	cr_assert_eq(project("/w", "/w", "/h", "/w/.config", &e), -EPERM);
	cr_assert(strstr(e.msg, "the project /w holds /h/.config, where the policies go"), "%s", e.msg);
	cr_assert_eq(project("/h/src", "/h/src/a", "/h", "/h/.config", &e), 0, "%s", e.msg);
	cr_assert_eq(project("/h/src", "/h/src", "/", "/h/.config", &e), 0, "%s", e.msg);
}

/* --- the policy's writability inside, from a real mount plan -------------- */

static struct prefix_guard_dir chain_v[8];
static struct prefix_guard chain(const char *const *paths, size_t n)
{
	for (size_t i = 0; i < n; i++)
		chain_v[i] = (struct prefix_guard_dir){ (char *)paths[i], 1, 100 + i };
	return (struct prefix_guard){ who, chain_v, n };
}

static const char *const policy_path[] = {
	"/h/.config/cordon/projects/p.json", "/h/.config/cordon/projects", "/h/.config/cordon",
	"/h/.config", "/h", "/",
};
#define NPOL (sizeof(policy_path) / sizeof(policy_path[0]))

static struct rpath rp(const char *path, dev_t dev, ino_t ino)
{
	struct rpath r;
	memset(&r, 0, sizeof(r));
	r.path = (char *)path;
	r.fd = 3;
	r.dev = dev;
	r.ino = ino;
	r.is_dir = 1;
	return r;
}

/* The plan mount_plan_build makes of roots and carve-outs, checked. */
static int check(const struct rpath *roots, size_t nroots, const struct rpath *carves,
		 size_t ncarves, int full_write, struct cordon_err *e)
{
	struct plan_input in = { .roots = roots, .nroots = nroots, .carves = carves,
				 .ncarves = ncarves, .tmp_private = 1, .full_write = full_write };
	struct mount_plan p;
	cr_assert_eq(mount_plan_build(&in, &p, e), 0, "%s", e->msg);
	struct prefix_guard g = chain(policy_path, NPOL);
	int r = prefix_check_not_writable_inside(&g, &p, roots, nroots, e);
	mount_plan_free(&p);
	return r;
}

Test(prefix_not_writable, control_project_only)
{
	struct cordon_err e = { 0 };
	struct rpath roots[] = { rp("/h/src/p", 2, 7), rp("/h/.cache/cordon/x", 2, 8) };
	cr_assert_eq(check(roots, 2, NULL, 0, 0, &e), 0, "%s", e.msg);
	cr_assert_eq(check(NULL, 0, NULL, 0, 0, &e), 0, "%s", e.msg);
	/* A sibling of a directory on the path writes nothing on it. */
	struct rpath sib[] = { rp("/h/.config/other", 2, 9), rp("/h/.configx", 2, 10) };
	cr_assert_eq(check(sib, 2, NULL, 0, 0, &e), 0, "%s", e.msg);
}

static void refused(const struct rpath *roots, size_t nroots, const struct rpath *carves,
		    size_t ncarves, int full_write, const char *is)
{
	struct cordon_err e = { 0 };
	cr_assert_eq(check(roots, nroots, carves, ncarves, full_write, &e), -EPERM,
		     "should refuse (%s writable)", is);
	char want[128];
	(void)snprintf(want, sizeof(want), "(%s is", is);
	cr_assert(strstr(e.msg, "cordon-prefix: policy /h/.config/cordon/projects/p.json is writable "
			 "inside the sandbox it makes"), "%s", e.msg);
	cr_assert(strstr(e.msg, want), "message '%s' lacks '%s'", e.msg, want);
}

Test(prefix_not_writable, home_config_or_policy_dir_refused)
{
	/* Named: the writable mount, the entry to take out of the policy. */
	struct rpath home[] = { rp("/h", 2, 1) };
	refused(home, 1, NULL, 0, 0, "/h");
	struct rpath config[] = { rp("/h/src/p", 2, 7), rp("/h/.config", 2, 2) };
	refused(config, 2, NULL, 0, 0, "/h/.config");
	struct rpath dir[] = { rp("/h/.config/cordon/projects", 2, 3) };
	refused(dir, 1, NULL, 0, 0, "/h/.config/cordon/projects");
	struct rpath file[] = { rp("/h/.config/cordon/projects/p.json", 2, 4) };
	refused(file, 1, NULL, 0, 0, "/h/.config/cordon/projects/p.json");
	refused(NULL, 0, NULL, 0, 1, "/");
}

Test(prefix_not_writable, carve_out_below_a_writable_directory_still_refused)
{
	/* write ~/.config, read_only ~/.config/cordon: cordon/ itself is
	 * read-only, but ~/.config is writable, the directory it sits in. */
	struct rpath roots[] = { rp("/h/.config", 2, 2) };
	struct rpath carves[] = { rp("/h/.config/cordon", 2, 5) };
	refused(roots, 1, carves, 1, 0, "/h/.config");
	/* The same path read-only over the root: nothing on the path is. */
	struct rpath same[] = { rp("/h/.config", 2, 2) };
	struct cordon_err e = { 0 };
	cr_assert_eq(check(roots, 1, same, 1, 0, &e), 0, "%s", e.msg);
}

Test(prefix_not_writable, another_name_of_a_directory_on_the_path)
{
	/* /srv/cfg is /h/.config under another name (a host bind mount):
	 * chain_v gives /h/.config (dev 1, ino 103). */
	struct rpath roots[] = { rp("/srv/cfg", 1, 103) };
	struct cordon_err e = { 0 };
	cr_assert_eq(check(roots, 1, NULL, 0, 0, &e), -EPERM);
	cr_assert(strstr(e.msg, "(/h/.config is, as the writable root /srv/cfg)"), "%s", e.msg);
}

Test(prefix_not_writable, tmp_and_dev_count_as_writable)
{
	const char *const in_tmp[] = { "/tmp/c/p.json", "/tmp/c", "/tmp", "/" };
	const char *const in_shm[] = { "/dev/shm/p.json", "/dev/shm", "/dev", "/" };
	struct plan_input in = { .tmp_private = 1 };
	struct mount_plan p;
	struct cordon_err e = { 0 };
	cr_assert_eq(mount_plan_build(&in, &p, &e), 0);
	struct prefix_guard g = chain(in_tmp, 4);
	cr_assert_eq(prefix_check_not_writable_inside(&g, &p, NULL, 0, &e), -EPERM);
	cr_assert(strstr(e.msg, "(/tmp is)"), "%s", e.msg);
	g = chain(in_shm, 4);
	cr_assert_eq(prefix_check_not_writable_inside(&g, &p, NULL, 0, &e), -EPERM);
	mount_plan_free(&p);
}

Test(prefix_not_writable, unknown_plan_refuses)
{
	/* No mount covers the path (not a plan from mount_plan_build). */
	struct mount_plan empty = { NULL, 0 };
	struct prefix_guard g = chain(policy_path, NPOL);
	struct cordon_err e = { 0 };
	cr_assert_eq(prefix_check_not_writable_inside(&g, &empty, NULL, 0, &e), -EPERM);
	cr_assert_eq(prefix_check_not_writable_inside(NULL, &empty, NULL, 0, &e), 0,
		     "no policy file: nothing to check");
}
