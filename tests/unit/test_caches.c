/* test_caches.c: plan/caches.c, where a workspace's caches live and the
 * variables that name them to the command. */
#include <criterion/criterion.h>

#include <errno.h>
#include <string.h>

#include "plan/caches.h"
#include "plan/env.h"

static void env_of(struct argv *a, char *const *base)
{
	memset(a, 0, sizeof(*a));
	for (char *const *p = base; *p; p++)
		cr_assert_eq(argv_push(a, *p), 0);
}

static void apply_full(struct argv *a, char *const *host, const struct env_op *ops, size_t nops,
		       const char *goenv)
{
	struct cordon_err e = { 0 };
	struct caches_in in = { "/h/.cache/cordon/app-1", host, ops, nops, goenv };
	cr_assert_eq(caches_env(a, &in, &e), 0, "%s", e.msg);
}

static void apply_ops(struct argv *a, char *const *host, const struct env_op *ops, size_t nops)
{
	apply_full(a, host, ops, nops, NULL);
}

static void apply(struct argv *a, char *const *host)
{
	apply_ops(a, host, NULL, 0);
}

Test(caches, base_from_xdg_or_home)
{
	char out[256];
	size_t must;
	char *const xdg[] = { "HOME=/home/u", "XDG_CACHE_HOME=/data//cache/", NULL };
	cr_assert_eq(caches_base(xdg, NULL, out, sizeof(out), &must), 0);
	cr_assert_str_eq(out, "/data/cache/cordon");
	cr_assert_eq(must, 1, "the parent of XDG_CACHE_HOME must exist, not itself");
	char *const home[] = { "HOME=/home/u", NULL };
	cr_assert_eq(caches_base(home, NULL, out, sizeof(out), &must), 0);
	cr_assert_str_eq(out, "/home/u/.cache/cordon");
	cr_assert_eq(must, 2, "cordon never creates a home directory");
	/* The XDG spec: a relative value is ignored. */
	char *const rel[] = { "HOME=/home/u", "XDG_CACHE_HOME=cache", NULL };
	cr_assert_eq(caches_base(rel, NULL, out, sizeof(out), &must), 0);
	cr_assert_str_eq(out, "/home/u/.cache/cordon");
	char *const none[] = { "PATH=/bin", NULL };
	cr_assert_eq(caches_base(none, "/var/lib/svc", out, sizeof(out), &must), 0);
	cr_assert_str_eq(out, "/var/lib/svc/.cache/cordon");
	cr_assert_eq(caches_base(none, NULL, out, sizeof(out), &must), -ENOENT);
	char *const root[] = { "HOME=/", NULL };
	cr_assert_eq(caches_base(root, NULL, out, sizeof(out), &must), 0);
	cr_assert_str_eq(out, "/.cache/cordon");
	cr_assert_eq(caches_base(home, NULL, out, 8, &must), -ENAMETOOLONG);
}

Test(caches, dir_name_is_label_and_hash)
{
	char a[CACHES_NAME_MAX], b[CACHES_NAME_MAX], c[CACHES_NAME_MAX];
	cr_assert_eq(caches_dir_name("/home/u/src/app", a, sizeof(a)), 0);
	cr_assert_eq(caches_dir_name("/home/u/old/app", b, sizeof(b)), 0);
	cr_assert_eq(strncmp(a, "app-", 4), 0, "%s", a);
	cr_assert_eq(strlen(a), 4 + 16);
	cr_assert_str_neq(a, b, "two workspaces of the same name share nothing");
	cr_assert_eq(caches_dir_name("/home/u/src/app", c, sizeof(c)), 0);
	cr_assert_str_eq(a, c, "the same workspace finds its cache again");
	/* Characters that mean something to a shell or a path become '_';
	 * the root directory gets a name. */
	cr_assert_eq(caches_dir_name("/srv/my app;$(x)", a, sizeof(a)), 0);
	cr_assert_eq(strncmp(a, "my_app___x_-", 12), 0, "%s", a);
	cr_assert_eq(caches_dir_name("/", a, sizeof(a)), 0);
	cr_assert_eq(strncmp(a, "root-", 5), 0, "%s", a);
	cr_assert_eq(caches_dir_name("/x/aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
				     a, sizeof(a)), 0);
	cr_assert_eq(strlen(a), 32 + 1 + 16, "the label is cut, the hash kept");
	cr_assert_eq(caches_dir_name("/x/app", a, 10), -ENAMETOOLONG);
}

Test(caches, every_tool_named)
{
	struct argv a;
	char *const base[] = { "HOME=/h", "PATH=/bin", NULL };
	env_of(&a, base);
	apply(&a, base);
	cr_assert_str_eq(env_get(&a, "XDG_CACHE_HOME"), "/h/.cache/cordon/app-1");
	cr_assert_str_eq(env_get(&a, "GOCACHE"), "/h/.cache/cordon/app-1/go-build");
	cr_assert_str_eq(env_get(&a, "GOMODCACHE"), "/h/.cache/cordon/app-1/go-mod");
	cr_assert_str_eq(env_get(&a, "npm_config_cache"), "/h/.cache/cordon/app-1/npm");
	cr_assert_str_eq(env_get(&a, "PIP_CACHE_DIR"), "/h/.cache/cordon/app-1/pip");
	cr_assert_str_eq(env_get(&a, "YARN_CACHE_FOLDER"), "/h/.cache/cordon/app-1/yarn");
	cr_assert_str_eq(env_get(&a, "PNPM_HOME"), "/h/.cache/cordon/app-1/pnpm",
			 "pnpm keeps its store in PNPM_HOME/store");
	cr_assert_null(env_get(&a, "npm_config_store_dir"), "npm would warn about it");
	cr_assert_str_eq(env_get(&a, "CCACHE_DIR"), "/h/.cache/cordon/app-1/ccache");
	cr_assert_str_eq(env_get(&a, "PRE_COMMIT_HOME"), "/h/.cache/cordon/app-1/pre-commit");
	cr_assert_null(env_get(&a, "CARGO_HOME"), "cargo keeps its configuration and crates");
	cr_assert_str_eq(env_get(&a, "GOPROXY"),
			 "file:///h/go/pkg/mod/cache/download,https://proxy.golang.org,direct");
	cr_assert_str_eq(env_get(&a, "HOME"), "/h");
	argv_free(&a);
}

Test(caches, an_explicit_setting_wins_an_inherited_one_does_not)
{
	struct argv a;
	char *const base[] = { "HOME=/h", "GOCACHE=/w/gocache", "NPM_CONFIG_CACHE=/h/.npm",
			       "PIP_CACHE_DIR=/h/.cache/pip", "XDG_CACHE_HOME=/x", NULL };
	const struct env_op ops[] = { { "GOCACHE", "/w/gocache" }, { "PIP_CACHE_DIR", NULL } };
	env_of(&a, base);
	apply_ops(&a, base, ops, 2);
	cr_assert_str_eq(env_get(&a, "GOCACHE"), "/w/gocache", "--setenv wins");
	cr_assert_null(env_get(&a, "NPM_CONFIG_CACHE"),
		       "an inherited host cache is replaced, in whatever case npm reads it");
	cr_assert_str_eq(env_get(&a, "npm_config_cache"), "/h/.cache/cordon/app-1/npm");
	cr_assert_str_eq(env_get(&a, "PIP_CACHE_DIR"), "/h/.cache/cordon/app-1/pip",
			 "--unsetenv is no setting");
	cr_assert_str_eq(env_get(&a, "XDG_CACHE_HOME"), "/h/.cache/cordon/app-1",
			 "the caller's XDG_CACHE_HOME is the host's cache");
	argv_free(&a);
	const struct env_op npm[] = { { "NPM_CONFIG_CACHE", "/w/npm" } };
	char *const base2[] = { "NPM_CONFIG_CACHE=/w/npm", NULL };
	env_of(&a, base2);
	apply_ops(&a, base2, npm, 1);
	cr_assert_str_eq(env_get(&a, "NPM_CONFIG_CACHE"), "/w/npm");
	cr_assert_null(env_get(&a, "npm_config_cache"), "npm reads both cases: one is set");
	argv_free(&a);
}

Test(caches, goproxy_reads_the_host_module_cache_first)
{
	struct argv a;
	char *const modcache[] = { "HOME=/h", "GOMODCACHE=/m", "GOPATH=/g", NULL };
	char *const gopath[] = { "HOME=/h", "GOPATH=/g1:/g2", NULL };
	char *const cmd[] = { "GOPROXY=https://corp.example/go|direct", NULL };
	env_of(&a, cmd);
	apply(&a, modcache);
	cr_assert_str_eq(env_get(&a, "GOPROXY"),
			 "file:///m/cache/download,https://corp.example/go|direct",
			 "the caller's proxy stays, after the host's cache");
	/* Applied twice (cordon inside cordon's environment): once only. */
	apply(&a, modcache);
	cr_assert_str_eq(env_get(&a, "GOPROXY"),
			 "file:///m/cache/download,https://corp.example/go|direct");
	argv_free(&a);
	char *const off[] = { "GOPROXY=off", NULL };
	env_of(&a, off);
	apply(&a, gopath);
	cr_assert_str_eq(env_get(&a, "GOPROXY"), "file:///g1/pkg/mod/cache/download,off");
	argv_free(&a);
	/* A path a URL list cannot carry as it is, or no home: no entry. */
	char *const odd[] = { "GOMODCACHE=/a,b", NULL };
	char *const none[] = { "PATH=/bin", NULL };
	char *const empty[] = { NULL };
	env_of(&a, none);
	apply(&a, odd);
	cr_assert_null(env_get(&a, "GOPROXY"));
	apply(&a, empty);
	cr_assert_null(env_get(&a, "GOPROXY"));
	argv_free(&a);
}

Test(caches, goproxy_honours_gos_env_file)
{
	struct argv a;
	char *const host[] = { "HOME=/h", NULL };
	const char *goenv = "GOPRIVATE=corp.example\nGOPROXY=https://corp.example/go\nGOMODCACHE=/m\n";
	env_of(&a, host);
	apply_full(&a, host, NULL, 0, goenv);
	cr_assert_str_eq(env_get(&a, "GOPROXY"), "file:///m/cache/download,https://corp.example/go",
			 "`go env -w` settings are not hidden by the variable cordon sets");
	argv_free(&a);
	char *const cmd[] = { "HOME=/h", "GOPROXY=direct", "GOPATH=/g", NULL };
	env_of(&a, cmd);
	apply_full(&a, cmd, NULL, 0, "GOPATH=/other\n");
	cr_assert_str_eq(env_get(&a, "GOPROXY"), "file:///g/pkg/mod/cache/download,direct",
			 "the environment wins over the env file");
	argv_free(&a);
	env_of(&a, host);
	apply_full(&a, host, NULL, 0, "XGOPROXY=nope\nGOPATH=/g2\n");
	cr_assert_str_eq(env_get(&a, "GOPROXY"),
			 "file:///g2/pkg/mod/cache/download,https://proxy.golang.org,direct");
	argv_free(&a);
}

Test(caches, goenv_path)
{
	char out[256];
	char *const e1[] = { "HOME=/h", NULL };
	cr_assert_eq(caches_goenv_path(e1, out, sizeof(out)), 0);
	cr_assert_str_eq(out, "/h/.config/go/env");
	char *const e2[] = { "HOME=/h", "XDG_CONFIG_HOME=/c", NULL };
	cr_assert_eq(caches_goenv_path(e2, out, sizeof(out)), 0);
	cr_assert_str_eq(out, "/c/go/env");
	char *const e3[] = { "HOME=/h", "GOENV=/etc/goenv", NULL };
	cr_assert_eq(caches_goenv_path(e3, out, sizeof(out)), 0);
	cr_assert_str_eq(out, "/etc/goenv");
	char *const e4[] = { "HOME=/h", "GOENV=off", NULL };
	cr_assert_eq(caches_goenv_path(e4, out, sizeof(out)), -ENOENT);
	char *const e5[] = { NULL };
	cr_assert_eq(caches_goenv_path(e5, out, sizeof(out)), -ENOENT);
}

Test(caches, pnpm_store_beside_a_standalone_pnpm)
{
	struct argv a;
	char *const base[] = { "HOME=/h", "PNPM_HOME=/h/.local/share/pnpm", NULL };
	env_of(&a, base);
	apply(&a, base);
	cr_assert_str_eq(env_get(&a, "PNPM_HOME"), "/h/.local/share/pnpm",
			 "the caller's PNPM_HOME locates pnpm itself and stays");
	cr_assert_str_eq(env_get(&a, "npm_config_store_dir"), "/h/.cache/cordon/app-1/pnpm/store");
	argv_free(&a);
	const struct env_op ops[] = { { "npm_config_store_dir", "/w/store" } };
	char *const set[] = { "HOME=/h", "npm_config_store_dir=/w/store", NULL };
	env_of(&a, set);
	apply_ops(&a, set, ops, 1);
	cr_assert_str_eq(env_get(&a, "npm_config_store_dir"), "/w/store");
	cr_assert_null(env_get(&a, "PNPM_HOME"), "a --setenv store is left alone");
	argv_free(&a);
}

/* Every variable caches_env sets has its reason (explain lists it), in the
 * case npm reads too; others have none. */
Test(caches, every_variable_set_has_a_reason)
{
	const char *keys[] = { "XDG_CACHE_HOME", "GOCACHE", "GOMODCACHE", "npm_config_cache",
			       "NPM_CONFIG_CACHE", "PIP_CACHE_DIR", "YARN_CACHE_FOLDER", "CCACHE_DIR",
			       "PRE_COMMIT_HOME", "PNPM_HOME", "npm_config_store_dir", "GOPROXY" };
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		const char *w = caches_env_why(keys[i]);
		cr_assert(w && strncmp(w, "--cache private", 15) == 0, "%s", keys[i]);
	}
	cr_assert_null(caches_env_why("HOME"));
	cr_assert_null(caches_env_why("GOPATH"));
}

Test(caches, prune_names_only_what_caches_dir_name_makes)
{
	char name[CACHES_NAME_MAX];
	const char *ws[] = { "/home/u/src/app", "/", "/w/a b$c", "/x/very-long-name-of-a-workspace-directory-indeed" };
	for (size_t i = 0; i < sizeof(ws) / sizeof(ws[0]); i++) {
		cr_assert_eq(caches_dir_name(ws[i], name, sizeof(name)), 0);
		cr_assert(caches_name_is_ours(name), "%s", name);
	}
	const char *not[] = { "mine", "app-0123456789abcdeF", "app-0123456789abcde", "app_0123456789abcdef",
			      "a/b-0123456789abcdef", "app-0123456789abcdef.workspace", ".pruned", "..",
			      "-0123456789abcde", "a b-0123456789abcdef" };
	for (size_t i = 0; i < sizeof(not) / sizeof(not[0]); i++)
		cr_assert_not(caches_name_is_ours(not[i]), "%s", not[i]);
}

Test(caches, prune_verdict_each_branch)
{
	const long long day = 24 * 3600;
	struct caches_entry f = { 1, 29 * day, CACHES_WS_PRESENT };
	cr_assert_eq(caches_prune_verdict(&f), CACHES_KEEP, "used within 30 days");
	f.unused_s = 30 * day;
	cr_assert_eq(caches_prune_verdict(&f), CACHES_REMOVE_UNUSED);
	f.ws = CACHES_WS_UNKNOWN;
	cr_assert_eq(caches_prune_verdict(&f), CACHES_REMOVE_UNUSED, "no record: its age decides");
	f = (struct caches_entry){ 1, 0, CACHES_WS_GONE };
	cr_assert_eq(caches_prune_verdict(&f), CACHES_REMOVE_GONE, "gone, even if used today");
	f = (struct caches_entry){ 1, 0, CACHES_WS_UNKNOWN };
	cr_assert_eq(caches_prune_verdict(&f), CACHES_KEEP);
	f = (struct caches_entry){ 0, 400 * day, CACHES_WS_GONE };
	cr_assert_eq(caches_prune_verdict(&f), CACHES_KEEP, "not cordon's: never");
}

Test(caches, prune_due_once_a_day)
{
	cr_assert(caches_prune_due_after(-1), "never pruned, or a stamp in the future");
	cr_assert_not(caches_prune_due_after(0));
	cr_assert_not(caches_prune_due_after(CACHES_PRUNE_EVERY_S - 1));
	cr_assert(caches_prune_due_after(CACHES_PRUNE_EVERY_S));
}

Test(caches, a_record_counts_only_when_it_hashes_to_the_name)
{
	char name[CACHES_NAME_MAX], ws[4096];
	cr_assert_eq(caches_dir_name("/home/u/app", name, sizeof(name)), 0);
	cr_assert(caches_record_matches(name, "/home/u/app\n", 12, ws, sizeof(ws)));
	cr_assert_str_eq(ws, "/home/u/app");
	cr_assert(caches_record_matches(name, "/home/u/app", 11, ws, sizeof(ws)));
	cr_assert_not(caches_record_matches(name, "/home/u/other\n", 14, ws, sizeof(ws)),
		      "a record naming another workspace (edited) is no record");
	cr_assert_not(caches_record_matches(name, "home/u/app\n", 11, ws, sizeof(ws)));
	cr_assert_not(caches_record_matches(name, "/home/u/app\0x", 13, ws, sizeof(ws)));
	cr_assert_not(caches_record_matches(name, "", 0, ws, sizeof(ws)));
}
