/* test_env.c: the command's environment from a base and the ordered
 * --setenv/--unsetenv/--clear-env operations. */
#include <criterion/criterion.h>

#include <stdlib.h>
#include <string.h>

#include "plan/env.h"

static struct config cfg(struct env_op *ops, size_t n, int clear)
{
	struct config c;
	memset(&c, 0, sizeof(c));
	c.env = ops;
	c.nenv = n;
	c.clear_env = clear;
	return c;
}

static void build(char *const *base, const struct config *c, struct argv *out)
{
	struct cordon_err e;
	memset(&e, 0, sizeof(e));
	cr_assert_eq(env_build(base, c, out, &e), 0, "env_build: %s", e.msg);
	/* An empty environment may come back as v == NULL (callers map it to
	 * an empty envp); otherwise it is NULL-terminated. */
	if (out->n)
		cr_assert_null(out->v[out->n]);
}

/* The value of key in env, NULL if absent; fails on a duplicate key. */
static const char *get(const struct argv *a, const char *key)
{
	size_t kl = strlen(key);
	const char *found = NULL;
	for (size_t i = 0; i < a->n; i++) {
		if (strncmp(a->v[i], key, kl) == 0 && a->v[i][kl] == '=') {
			cr_assert_null(found, "%s appears twice", key);
			found = a->v[i] + kl + 1;
		}
	}
	return found;
}

static void expect_no_duplicates(const struct argv *a)
{
	for (size_t i = 0; i < a->n; i++) {
		const char *eq = strchr(a->v[i], '=');
		cr_assert_not_null(eq, "entry without '=': %s", a->v[i]);
		size_t kl = (size_t)(eq - a->v[i]);
		for (size_t j = i + 1; j < a->n; j++)
			cr_assert(strncmp(a->v[j], a->v[i], kl + 1) != 0, "duplicate key in %s and %s",
				  a->v[i], a->v[j]);
	}
}

static char *const base[] = { "HOME=/home/u", "PATH=/usr/bin:/bin", "TMPDIR=/home/u/tmp",
			      "SECRET=s3", NULL };

Test(env, passthrough_and_tmpdir_forced)
{
	struct config c = cfg(NULL, 0, 0);
	struct argv a;
	build(base, &c, &a);
	cr_assert_str_eq(get(&a, "HOME"), "/home/u");
	cr_assert_str_eq(get(&a, "PATH"), "/usr/bin:/bin");
	cr_assert_str_eq(get(&a, "SECRET"), "s3");
	cr_assert_str_eq(get(&a, "TMPDIR"), "/tmp", "the caller's TMPDIR leaked through");
	cr_assert_eq(a.n, 4);
	expect_no_duplicates(&a);
	argv_free(&a);
}

Test(env, tmpdir_added_when_base_has_none)
{
	char *const b[] = { "A=1", NULL };
	struct config c = cfg(NULL, 0, 0);
	struct argv a;
	build(b, &c, &a);
	cr_assert_str_eq(get(&a, "TMPDIR"), "/tmp");
	cr_assert_str_eq(get(&a, "A"), "1");
	cr_assert_eq(a.n, 2);
	argv_free(&a);
}

Test(env, null_base)
{
	struct config c = cfg(NULL, 0, 0);
	struct argv a;
	build(NULL, &c, &a);
	cr_assert_eq(a.n, 1);
	cr_assert_str_eq(a.v[0], "TMPDIR=/tmp");
	argv_free(&a);
}

Test(env, set_overrides_without_duplicates)
{
	struct env_op ops[] = { { "HOME", "/sandbox" }, { "NEW", "n" } };
	struct config c = cfg(ops, 2, 0);
	struct argv a;
	build(base, &c, &a);
	cr_assert_str_eq(get(&a, "HOME"), "/sandbox");
	cr_assert_str_eq(get(&a, "NEW"), "n");
	cr_assert_eq(a.n, 5);
	expect_no_duplicates(&a);
	argv_free(&a);
}

Test(env, set_replaces_every_copy_of_a_duplicated_base_key)
{
	char *const b[] = { "K=1", "K=2", "L=x", NULL };
	struct env_op ops[] = { { "K", "3" } };
	struct config c = cfg(ops, 1, 0);
	struct argv a;
	build(b, &c, &a);
	cr_assert_str_eq(get(&a, "K"), "3");
	expect_no_duplicates(&a);
	argv_free(&a);
}

Test(env, unset_removes)
{
	struct env_op ops[] = { { "SECRET", NULL }, { "ABSENT", NULL } };
	struct config c = cfg(ops, 2, 0);
	struct argv a;
	build(base, &c, &a);
	cr_assert_null(get(&a, "SECRET"));
	cr_assert_str_eq(get(&a, "HOME"), "/home/u");
	cr_assert_eq(a.n, 3);
	argv_free(&a);
}

Test(env, key_match_is_whole_key)
{
	char *const b[] = { "AB=1", "A=2", "ABC=3", NULL };
	struct env_op ops[] = { { "AB", NULL } };
	struct config c = cfg(ops, 1, 0);
	struct argv a;
	build(b, &c, &a);
	cr_assert_null(get(&a, "AB"));
	cr_assert_str_eq(get(&a, "A"), "2");
	cr_assert_str_eq(get(&a, "ABC"), "3");
	argv_free(&a);
}

Test(env, clear_env)
{
	struct env_op ops[] = { { "ONLY", "1" } };
	struct config c = cfg(ops, 1, 1);
	struct argv a;
	build(base, &c, &a);
	cr_assert_null(get(&a, "HOME"));
	cr_assert_null(get(&a, "SECRET"));
	cr_assert_str_eq(get(&a, "ONLY"), "1");
	cr_assert_str_eq(get(&a, "TMPDIR"), "/tmp");
	cr_assert_eq(a.n, 2);
	argv_free(&a);
}

Test(env, set_then_unset_same_key)
{
	struct env_op ops[] = { { "X", "1" }, { "X", NULL } };
	struct config c = cfg(ops, 2, 0);
	struct argv a;
	build(base, &c, &a);
	cr_assert_null(get(&a, "X"));
	argv_free(&a);
}

Test(env, unset_then_set_same_key)
{
	struct env_op ops[] = { { "HOME", NULL }, { "HOME", "/h2" } };
	struct config c = cfg(ops, 2, 0);
	struct argv a;
	build(base, &c, &a);
	cr_assert_str_eq(get(&a, "HOME"), "/h2");
	expect_no_duplicates(&a);
	argv_free(&a);
}

Test(env, last_set_wins)
{
	struct env_op ops[] = { { "X", "1" }, { "X", "2" }, { "X", "3" } };
	struct config c = cfg(ops, 3, 0);
	struct argv a;
	build(base, &c, &a);
	cr_assert_str_eq(get(&a, "X"), "3");
	expect_no_duplicates(&a);
	argv_free(&a);
}

Test(env, setenv_tmpdir_kept)
{
	struct env_op ops[] = { { "TMPDIR", "/scratch" } };
	struct config c = cfg(ops, 1, 0);
	struct argv a;
	build(base, &c, &a);
	cr_assert_str_eq(get(&a, "TMPDIR"), "/scratch");
	argv_free(&a);
}

Test(env, unsetenv_tmpdir_not_forced)
{
	struct env_op ops[] = { { "TMPDIR", NULL } };
	struct config c = cfg(ops, 1, 0);
	struct argv a;
	build(base, &c, &a);
	cr_assert_null(get(&a, "TMPDIR"));
	argv_free(&a);
	/* Also with a clear environment: nothing adds it back. */
	c = cfg(ops, 1, 1);
	build(base, &c, &a);
	cr_assert_null(get(&a, "TMPDIR"));
	cr_assert_eq(a.n, 0);
	argv_free(&a);
}

Test(env, base_entries_without_equals_dropped)
{
	char *const b[] = { "GOOD=1", "garbage", NULL };
	struct config c = cfg(NULL, 0, 0);
	struct argv a;
	build(b, &c, &a);
	cr_assert_eq(a.n, 2);
	cr_assert_str_eq(get(&a, "GOOD"), "1");
	for (size_t i = 0; i < a.n; i++)
		cr_assert_str_neq(a.v[i], "garbage");
	argv_free(&a);
}

Test(env, order_of_base_kept)
{
	char *const b[] = { "Z=1", "A=2", "M=3", NULL };
	struct config c = cfg(NULL, 0, 0);
	struct argv a;
	build(b, &c, &a);
	cr_assert_str_eq(a.v[0], "Z=1");
	cr_assert_str_eq(a.v[1], "A=2");
	cr_assert_str_eq(a.v[2], "M=3");
	argv_free(&a);
}

Test(env, get_set_has)
{
	struct argv a = { 0 };
	cr_assert_eq(env_set(&a, "A", "1"), 0);
	cr_assert_eq(env_set(&a, "A", "2"), 0);
	cr_assert_eq(a.n, 1);
	cr_assert_str_eq(env_get(&a, "A"), "2");
	cr_assert_null(env_get(&a, "AB"));
	cr_assert_eq(env_set(&a, "NPM_CONFIG_CACHE", "/c"), 0);
	cr_assert(env_has(&a, "npm_config_cache"));
	cr_assert(!env_has(&a, "Npm_config_cach"));
	cr_assert_str_eq(env_find(&a, "npm_config_cache"), "/c");
	cr_assert_eq(env_set(&a, "xdg_cache_home", "/x"), 0);
	cr_assert(!env_has(&a, "XDG_CACHE_HOME"), "only npm's and pnpm's prefixes ignore case");
	cr_assert_eq(env_set(&a, "npm_config_CACHE", "/d"), 0);
	env_remove_all(&a, "npm_config_cache");
	cr_assert(!env_has(&a, "npm_config_cache"));
	cr_assert_str_eq(env_get(&a, "A"), "2");
	cr_assert(env_key_same("PNPM_CONFIG_STORE_DIR", 21, "pnpm_config_store_dir"));
	cr_assert(!env_key_same("GOCACHEX", 7, "GOCACHEX"), "the length counts");
	argv_free(&a);
}

static void proxy(const struct config *c, char *const *b, const char *connect, struct argv *out)
{
	struct cordon_err e;
	build(b, c, out);
	cr_assert_eq(env_add_proxy(c, connect, out, &e), 0, "env_add_proxy: %s", e.msg);
	expect_no_duplicates(out);
}

/* DESIGN section 8's list, both cases, the literal address, an HTTP
 * ALL_PROXY; an inherited proxy (unreachable from the sandbox) replaced. */
Test(env, proxy_variables)
{
	char *const b[] = { "HTTPS_PROXY=http://corp:8080", "YARN_NO_PROXY=x",
			    "JAVA_TOOL_OPTIONS=-Xmx1g", NULL };
	struct config c = cfg(NULL, 0, 0);
	c.net = NET_PROXY;
	struct argv a;
	proxy(&c, b, "/usr/libexec/cordon/cordon-connect", &a);
	static const char *const url_keys[] = {
		"http_proxy", "https_proxy", "HTTP_PROXY", "HTTPS_PROXY", "all_proxy", "ALL_PROXY",
		"YARN_HTTP_PROXY", "YARN_HTTPS_PROXY",
	};
	for (size_t i = 0; i < sizeof(url_keys) / sizeof(url_keys[0]); i++)
		cr_assert_str_eq(get(&a, url_keys[i]), "http://127.0.0.1:3128", "%s", url_keys[i]);
	cr_assert_str_eq(get(&a, "no_proxy"), "localhost,127.0.0.1,::1");
	cr_assert_str_eq(get(&a, "NO_PROXY"), "localhost,127.0.0.1,::1");
	cr_assert_str_eq(get(&a, "NODE_USE_ENV_PROXY"), "1");
	cr_assert_null(get(&a, "YARN_NO_PROXY"), "Yarn refuses YARN_NO_PROXY");
	cr_assert_str_eq(get(&a, "JAVA_TOOL_OPTIONS"),
			 "-Xmx1g -Dhttp.proxyHost=127.0.0.1 -Dhttp.proxyPort=3128 "
			 "-Dhttps.proxyHost=127.0.0.1 -Dhttps.proxyPort=3128");
	cr_assert_str_eq(get(&a, "GIT_SSH_COMMAND"),
			 "ssh -o ProxyCommand='/usr/libexec/cordon/cordon-connect %h %p'");
	cr_assert_str_eq(get(&a, "TMPDIR"), "/tmp");
	argv_free(&a);
}

Test(env, proxy_explicit_setenv_wins)
{
	struct env_op ops[] = { { "HTTPS_PROXY", "http://mine:1" }, { "GIT_SSH_COMMAND", "ssh -v" },
				{ "JAVA_TOOL_OPTIONS", NULL }, { "YARN_NO_PROXY", "keep" } };
	struct config c = cfg(ops, 4, 1);
	c.net = NET_PROXY;
	struct argv a;
	proxy(&c, NULL, "/x/cordon-connect", &a);
	cr_assert_str_eq(get(&a, "HTTPS_PROXY"), "http://mine:1");
	cr_assert_str_eq(get(&a, "GIT_SSH_COMMAND"), "ssh -v");
	cr_assert_null(get(&a, "JAVA_TOOL_OPTIONS"), "an --unsetenv wins too");
	cr_assert_str_eq(get(&a, "YARN_NO_PROXY"), "keep");
	cr_assert_str_eq(get(&a, "https_proxy"), "http://127.0.0.1:3128");
	argv_free(&a);
}

Test(env, proxy_only_with_net_proxy_and_safe_connect_path)
{
	struct config c = cfg(NULL, 0, 0);
	struct argv a;
	c.net = NET_FULL;
	proxy(&c, base, "/x/cordon-connect", &a);
	cr_assert_null(get(&a, "HTTP_PROXY"));
	cr_assert_null(get(&a, "GIT_SSH_COMMAND"));
	argv_free(&a);
	c.net = NET_PROXY;
	proxy(&c, base, "/x y/cordon-connect", &a);
	cr_assert_null(get(&a, "GIT_SSH_COMMAND"), "a path with a space would split");
	cr_assert_str_eq(get(&a, "HTTP_PROXY"), "http://127.0.0.1:3128");
	argv_free(&a);
	proxy(&c, base, "/x/it's", &a);
	cr_assert_null(get(&a, "GIT_SSH_COMMAND"));
	argv_free(&a);
	proxy(&c, base, NULL, &a);
	cr_assert_null(get(&a, "GIT_SSH_COMMAND"));
	argv_free(&a);
}

/* A caller's own GIT_SSH_COMMAND keeps working: cordon's ProxyCommand is
 * appended to it (NETWORK-CLIENTS.md: preserve it, as Codex does); a
 * GIT_SSH program becomes its quoted first word. */
Test(env, proxy_keeps_the_callers_git_ssh)
{
	struct config c = cfg(NULL, 0, 0);
	c.net = NET_PROXY;
	struct argv a;
	char *const own[] = { "GIT_SSH_COMMAND=ssh -i ~/.ssh/deploy -o IdentitiesOnly=yes", NULL };
	proxy(&c, own, "/x/cordon-connect", &a);
	cr_assert_str_eq(get(&a, "GIT_SSH_COMMAND"), "ssh -i ~/.ssh/deploy -o IdentitiesOnly=yes "
						     "-o ProxyCommand='/x/cordon-connect %h %p'");
	argv_free(&a);
	char *const prog[] = { "GIT_SSH=/opt/my ssh/it's", NULL };
	proxy(&c, prog, "/x/cordon-connect", &a);
	cr_assert_str_eq(get(&a, "GIT_SSH_COMMAND"),
			 "'/opt/my ssh/it'\\''s' -o ProxyCommand='/x/cordon-connect %h %p'");
	cr_assert_str_eq(get(&a, "GIT_SSH"), "/opt/my ssh/it's", "left for tools that read it");
	argv_free(&a);
	char *const empty[] = { "GIT_SSH_COMMAND=", NULL };
	proxy(&c, empty, "/x/cordon-connect", &a);
	cr_assert_str_eq(get(&a, "GIT_SSH_COMMAND"), "ssh -o ProxyCommand='/x/cordon-connect %h %p'");
	argv_free(&a);
}

/* explain's environment: each variable of the command's against the
 * caller's, and the reason cordon gives for its own. */
Test(env_diff, set_replaced_same_and_unset)
{
	char *const caller[] = { "HOME=/home/u", "GOCACHE=/home/u/.cache/go-build", "GONE=1",
				 "NOEQUALS", NULL };
	struct argv a = { 0 };
	cr_assert_eq(argv_push(&a, "HOME=/home/u"), 0);
	cr_assert_eq(argv_push(&a, "GOCACHE=/c/go-build"), 0);
	cr_assert_eq(argv_push(&a, "TMPDIR=/tmp"), 0);
	struct env_change *d;
	size_t n;
	cr_assert_eq(env_diff(caller, &a, &d, &n), 0);
	cr_assert_eq(n, 4);
	cr_assert(d[0].op == ENV_CHANGE_SAME && strcmp(d[0].entry, "HOME=/home/u") == 0);
	cr_assert(d[1].op == ENV_CHANGE_REPLACE && strcmp(d[1].entry, "GOCACHE=/c/go-build") == 0);
	cr_assert(d[2].op == ENV_CHANGE_SET && strcmp(d[2].entry, "TMPDIR=/tmp") == 0);
	cr_assert(d[3].op == ENV_CHANGE_UNSET && strcmp(d[3].entry, "GONE=1") == 0);
	free(d);
	cr_assert_eq(env_diff(NULL, &a, &d, &n), 0);
	cr_assert_eq(n, 3, "no caller's environment (--clear-env): everything is set");
	for (size_t i = 0; i < n; i++)
		cr_assert_eq(d[i].op, ENV_CHANGE_SET);
	free(d);
	argv_free(&a);
	struct argv none = { 0 };
	cr_assert_eq(env_diff(NULL, &none, &d, &n), 0);
	cr_assert(n == 0 && d == NULL);
}

Test(env_why, tmpdir_always_and_the_proxy_only_with_net_proxy)
{
	struct config c = cfg(NULL, 0, 0);
	cr_assert_not_null(env_why(&c, "TMPDIR"));
	c.net = NET_NONE;
	cr_assert_null(env_why(&c, "HTTPS_PROXY"));
	cr_assert_null(env_why(&c, "HOME"));
	c.net = NET_PROXY;
	const char *keys[] = { "http_proxy", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY", "NODE_USE_ENV_PROXY",
			       "YARN_HTTP_PROXY", "YARN_NO_PROXY", "JAVA_TOOL_OPTIONS", "GIT_SSH_COMMAND" };
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		const char *w = env_why(&c, keys[i]);
		cr_assert(w && strncmp(w, "--net proxy", 11) == 0, "%s", keys[i]);
	}
	cr_assert_null(env_why(&c, "HOME"));
}
