/* test_policy.c: policy_parse in both formats, every kind of refusal (file,
 * line, column, key in the message), and through cli_parse how flags
 * extend or override a policy file. */
#include <criterion/criterion.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "input/cli.h"
#include "input/policy.h"

struct parsed {
	struct config c;
	struct cordon_err e;
	int rc;
};

static void parse(struct parsed *p, const char *text)
{
	memset(p, 0, sizeof(*p));
	cli_defaults(&p->c);
	p->rc = policy_parse(text, strlen(text), "p.json", "/base", "/run", &p->c, &p->e);
}

static void expect_ok(struct parsed *p)
{
	cr_assert_eq(p->rc, 0, "policy_parse failed: %s", p->e.msg);
}

/* The message starts with the file, line and column, then the key. */
static void expect_refused(struct parsed *p, const char *prefix, const char *also)
{
	cr_assert_lt(p->rc, 0, "accepted, wanted a refusal starting with '%s'", prefix);
	cr_assert_eq(p->e.exit_code, EXIT_CORDON_FAILED);
	cr_assert_eq(strncmp(p->e.msg, prefix, strlen(prefix)), 0,
		     "message '%s' does not start with '%s'", p->e.msg, prefix);
	if (also)
		cr_assert_not_null(strstr(p->e.msg, also), "message '%s' lacks '%s'", p->e.msg, also);
	config_free(&p->c);
}

Test(policy, every_cordon_key)
{
	struct parsed p;
	cr_assert_eq(setenv("HOME", "/home/u", 1), 0);
	parse(&p, "{\"write\": [\"~/src\", \"rel\", \"/abs\"], \"read_only\": [\"~\"],"
		  " \"deny_read\": [\"secrets/*.pem\"], \"protect\": [\".hg\"],"
		  " \"default_protect\": false, \"protect_missing\": \"mount\", \"tmp\": \"host\","
		  " \"tmp_size\": \"64M\", \"full_write\": true, \"cwd\": \"rel\", \"cache\": \"none\","
		  " \"network\": {\"mode\": \"none\", \"allow\": [], \"deny\": [], \"upstream\": null,"
		  "   \"attribution_token\": null, \"allow_unix_sockets\": true},"
		  " \"net_log\": \"net.log\", \"env\": {\"set\": {\"CI\": \"1\"}, \"unset\": [\"AWS\"],"
		  "   \"clear\": true}, \"pid_ns\": \"isolate\", \"timeout\": 600, \"kill_after\": 3,"
		  " \"die_with_parent\": true, \"limit_memory\": 1048576, \"limit_pids\": 64,"
		  " \"limit_cpu\": 5, \"report\": \"r.json\", \"require_landlock\": true,"
		  " \"allow_no_landlock\": false, \"verbose\": true}");
	expect_ok(&p);
	cr_assert_eq(p.c.write.n, 3);
	cr_assert_str_eq(p.c.write.v[0], "/home/u/src");
	cr_assert_str_eq(p.c.write.v[1], "/base/rel");
	cr_assert_str_eq(p.c.write.v[2], "/abs");
	cr_assert_eq(p.c.write.nfile, 3);
	cr_assert_str_eq(p.c.read_only.v[0], "/home/u");
	cr_assert_str_eq(p.c.deny_read.v[0], "/base/secrets/*.pem");
	cr_assert_str_eq(p.c.protect.v[0], ".hg");
	cr_assert_eq(p.c.default_protect, 0);
	cr_assert_eq(p.c.protect_missing, PROTECT_MISSING_MOUNT);
	cr_assert_eq(p.c.tmp, TMP_HOST);
	cr_assert_eq(p.c.tmp_size, 64ULL << 20);
	cr_assert_eq(p.c.full_write, 1);
	cr_assert_str_eq(p.c.cwd, "/base/rel");
	cr_assert_eq(p.c.net, NET_NONE);
	cr_assert_eq(p.c.allow_unix_sockets, 1);
	cr_assert_str_eq(p.c.net_log, "/base/net.log");
	cr_assert_eq(p.c.nenv, 2);
	cr_assert_eq(p.c.nenv_file, 2);
	cr_assert_str_eq(p.c.env[0].key, "AWS");
	cr_assert_null(p.c.env[0].value);
	cr_assert_str_eq(p.c.env[1].key, "CI");
	cr_assert_str_eq(p.c.env[1].value, "1");
	cr_assert_eq(p.c.clear_env, 1);
	cr_assert_eq(p.c.timeout, 600);
	cr_assert_eq(p.c.kill_after, 3);
	cr_assert_eq(p.c.die_with_parent, 1);
	cr_assert_eq(p.c.limit_memory, 1048576);
	cr_assert_eq(p.c.limit_pids, 64);
	cr_assert_eq(p.c.limit_cpu, 5);
	cr_assert_str_eq(p.c.report, "/base/r.json");
	cr_assert_eq(p.c.require_landlock, 1);
	cr_assert_eq(p.c.allow_no_landlock, 0);
	cr_assert_eq(p.c.verbose, 1);
	cr_assert_eq(p.c.policy_srt, 0);
	cr_assert_eq(p.c.warnings.n, 0);
	config_free(&p.c);
}

Test(policy, explicit_network_mode_wins_over_allow_whatever_the_order)
{
	struct parsed p;
	parse(&p, "{\"network\": {\"mode\": \"none\", \"allow\": [\"example.com\"]}}");
	expect_ok(&p);
	cr_assert_eq(p.c.net, NET_NONE);
	cr_assert_eq(p.c.allow_domain.n, 1);
	config_free(&p.c);
	parse(&p, "{\"network\": {\"allow\": [\"example.com\"]}}");
	expect_ok(&p);
	cr_assert_eq(p.c.net, NET_PROXY, "an allowlist implies the proxy, as --allow-domain does");
	config_free(&p.c);
}

Test(policy, errors_name_file_line_column_and_key)
{
	struct parsed p;
	parse(&p, "{\n  \"write\": [\"a\"],\n  \"tmp\": \"shared\"\n}");
	expect_refused(&p, "p.json:3:3: tmp: --tmp shared", "expected private or host");
	parse(&p, "{\n \"network\": {\n    \"mode\": \"all\"}}");
	expect_refused(&p, "p.json:3:5: network.mode:", "expected none, proxy or full");
	parse(&p, "{\"env\": {\"set\": {\"A\": 1}}}");
	expect_refused(&p, "p.json:1:18: env.set.A:", "expected a string");
	parse(&p, "{\"timeout\": \"ten\"}");
	expect_refused(&p, "p.json:1:2: timeout:", "whole number");
	parse(&p, "{\"full_write\": 1}");
	expect_refused(&p, "p.json:1:2: full_write:", "true or false");
	parse(&p, "{\"protect\": [\"a/b\"]}");
	expect_refused(&p, "p.json:1:2: protect:", "single file name");
}

Test(policy, unknown_keys_are_errors_at_every_level)
{
	struct parsed p;
	parse(&p, "{\"write\": [], \n\"wirte\": []}");
	expect_refused(&p, "p.json:2:1: wirte: unknown key", NULL);
	parse(&p, "{\"network\": {\"mod\": \"none\"}}");
	expect_refused(&p, "p.json:1:14: network.mod: unknown key", NULL);
	parse(&p, "{\"policy\": \"other.json\"}");
	expect_refused(&p, "p.json:1:2: policy: unknown key", NULL);
}

Test(policy, malformed_json_and_non_objects)
{
	struct parsed p;
	parse(&p, "{\"write\": [\"a\",]}");
	expect_refused(&p, "p.json:1:", "not valid JSON");
	parse(&p, "[]");
	expect_refused(&p, "p.json:1:1: ", "must be a JSON object");
	parse(&p, "{\"tmp\": \"host\", \"tmp\": \"private\"}");
	expect_refused(&p, "p.json:1:", "not valid JSON");
	parse(&p, "");
	expect_refused(&p, "p.json:", "not valid JSON");
	parse(&p, "{\"env\": \"CI=1\"}");
	expect_refused(&p, "p.json:1:2: env: expected an object", NULL);
	parse(&p, "{\"write\": [\"a\\u0000b\"]}");
	expect_refused(&p, "p.json:1:", "not valid JSON"); /* jansson refuses \u0000 */
}

Test(policy, tilde_forms)
{
	struct parsed p;
	cr_assert_eq(setenv("HOME", "/h", 1), 0);
	parse(&p, "{\"write\": [\"~user/x\"]}");
	expect_refused(&p, "p.json:1:2: write:", "~user");
	cr_assert_eq(unsetenv("HOME"), 0);
	parse(&p, "{\"write\": [\"~/x\"]}");
	expect_refused(&p, "p.json:1:2: write:", "HOME");
	parse(&p, "{\"env\": {\"set\": {\"A=B\": \"1\"}}}");
	expect_refused(&p, "p.json:1:18: env.set.A=B:", "'='");
}

Test(policy, null_is_absent)
{
	struct parsed p;
	parse(&p, "{\"cwd\": null, \"network\": {\"upstream\": null}}");
	expect_ok(&p);
	cr_assert_null(p.c.cwd);
	cr_assert_null(p.c.proxy_upstream);
	config_free(&p.c);
}

/* ---- srt's format -------------------------------------------------------- */

Test(policy, srt_keys_map_to_flags)
{
	struct parsed p;
	cr_assert_eq(setenv("HOME", "/h", 1), 0);
	parse(&p, "{\"filesystem\": {\"allowWrite\": [\".\", \"/w\"], \"denyWrite\": [\"/w/ro\"],"
		  " \"denyRead\": [\"~/.ssh\"]},"
		  " \"network\": {\"allowedDomains\": [], \"deniedDomains\": [\"evil.com\"],"
		  "   \"allowAllUnixSockets\": true, \"allowUnixSockets\": [], \"strictAllowlist\": true},"
		  " \"credentials\": {\"files\": [{\"path\": \"~/.aws/credentials\", \"mode\": \"deny\"}],"
		  "   \"envVars\": [{\"name\": \"GH_TOKEN\", \"mode\": \"deny\"}]}}");
	expect_ok(&p);
	cr_assert_eq(p.c.policy_srt, 1);
	cr_assert_eq(p.c.write.n, 2);
	cr_assert_str_eq(p.c.write.v[0], "/run/.", "srt: relative to the run's working directory");
	cr_assert_str_eq(p.c.policy_base, "/run");
	cr_assert_eq(p.c.write_from.n, 2);
	cr_assert_str_eq(p.c.write_from.v[1], "p.json:1", "%s", p.c.write_from.v[1]);
	cr_assert_str_eq(p.c.read_only.v[0], "/w/ro");
	cr_assert_eq(p.c.deny_read.n, 2);
	cr_assert_str_eq(p.c.deny_read.v[0], "/h/.ssh");
	cr_assert_str_eq(p.c.deny_read.v[1], "/h/.aws/credentials");
	cr_assert_eq(p.c.net, NET_NONE, "srt: an empty allowedDomains is no network");
	cr_assert_eq(p.c.deny_domain.n, 0, "nothing to deny without network");
	cr_assert_eq(p.c.allow_unix_sockets, 1);
	cr_assert_eq(p.c.nenv, 1);
	cr_assert_str_eq(p.c.env[0].key, "GH_TOKEN");
	cr_assert_null(p.c.env[0].value);
	cr_assert_eq(p.c.warnings.n, 0, "every key given was honoured");
	config_free(&p.c);
}

/* Each writable root of the file knows its line, for the warning on a root
 * that holds the home directory; cordon's format stays file-relative. */
Test(policy, write_entries_know_their_line)
{
	struct parsed p;
	parse(&p, "{\n  \"write\": [\n    \"a\",\n\n    \"b\"\n  ],\n  \"tmp\": \"host\"\n}");
	expect_ok(&p);
	cr_assert_eq(p.c.policy_srt, 0);
	cr_assert_str_eq(p.c.policy_base, "/base");
	cr_assert_str_eq(p.c.write.v[0], "/base/a");
	cr_assert_eq(p.c.write_from.n, 2);
	cr_assert_str_eq(p.c.write_from.v[0], "p.json:3");
	cr_assert_str_eq(p.c.write_from.v[1], "p.json:5");
	config_free(&p.c);
	cr_assert_eq(setenv("HOME", "/h", 1), 0);
	parse(&p, "{\"filesystem\": {\"allowWrite\": [\"./src\", \"build\", \"~/x\"]}}");
	expect_ok(&p);
	cr_assert_str_eq(p.c.write.v[0], "/run/./src");
	cr_assert_str_eq(p.c.write.v[1], "/run/build");
	cr_assert_str_eq(p.c.write.v[2], "/h/x", "~ is still HOME");
	config_free(&p.c);
}

Test(policy, srt_domains_ask_for_the_proxy)
{
	struct parsed p;
	parse(&p, "{\"network\": {\"allowedDomains\": [\"*.npmjs.org\"], \"deniedDomains\": [\"x.org\"]}}");
	expect_ok(&p);
	cr_assert_eq(p.c.policy_srt, 1);
	cr_assert_eq(p.c.net, NET_PROXY);
	cr_assert_str_eq(p.c.allow_domain.v[0], "*.npmjs.org");
	cr_assert_str_eq(p.c.deny_domain.v[0], "x.org");
	config_free(&p.c);
}

Test(policy, srt_keys_not_honoured_are_warned_by_name)
{
	struct parsed p;
	parse(&p, "{\"filesystem\": {\"allowWrite\": [], \"denyWrite\": [], \"denyRead\": [],"
		  " \"allowRead\": [\"/x\"], \"allowGitConfig\": true},"
		  " \"network\": {\"allowedDomains\": [], \"deniedDomains\": [], \"allowLocalBinding\": true,"
		  "   \"allowUnixSockets\": [\"/run/docker.sock\"], \"httpProxyPort\": 3128},"
		  " \"enableWeakerNestedSandbox\": true, \"allowPty\": false,"
		  " \"credentials\": {\"files\": [{\"path\": \"/k\", \"mode\": \"mask\"}]}}");
	expect_ok(&p);
	const char *want[] = { "filesystem.allowRead", "filesystem.allowGitConfig",
			       "network.allowLocalBinding",
			       "network.httpProxyPort", "credentials.files",
			       "enableWeakerNestedSandbox" };
	cr_assert_eq(p.c.warnings.n, sizeof(want) / sizeof(want[0]));
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		int found = 0;
		for (size_t j = 0; j < p.c.warnings.n; j++)
			found |= strstr(p.c.warnings.v[j], want[i]) != NULL;
		cr_assert(found, "no warning names %s", want[i]);
	}
	cr_assert_str_eq(p.c.deny_read.v[0], "/k", "a masked file is denied instead");
	cr_assert_eq(p.c.allow_unix_socket.n, 1, "allowUnixSockets maps to --allow-unix-socket");
	cr_assert_str_eq(p.c.allow_unix_socket.v[0], "/run/docker.sock");
	config_free(&p.c);
}

Test(policy, srt_unknown_key_is_an_error)
{
	struct parsed p;
	parse(&p, "{\"filesystem\": {\"allowWrites\": []}}");
	expect_refused(&p, "p.json:1:17: filesystem.allowWrites: unknown key in srt's format", NULL);
}

/* ---- through cli_parse: flags extend lists, override single values ---- */

static char policy_path[64];

static void write_policy(const char *text)
{
	(void)snprintf(policy_path, sizeof(policy_path), "/tmp/test_policy.%d.json", (int)getpid());
	FILE *f = fopen(policy_path, "w");
	cr_assert_not_null(f);
	cr_assert_eq(fputs(text, f) >= 0, 1);
	cr_assert_eq(fclose(f), 0);
}

Test(policy, flags_extend_lists_and_override_values)
{
	write_policy("{\"write\": [\"/p\"], \"tmp\": \"host\", \"timeout\": 60,"
		     " \"env\": {\"set\": {\"A\": \"file\"}}}");
	char *argv[] = { "cordon", "--policy", policy_path, "-w", "/f", "--tmp", "private",
			 "--timeout", "5", "--setenv", "A=flag", "--", "true", NULL };
	struct config c = { 0 };
	struct cordon_err e = { 0 };
	int r = cli_parse(13, argv, &c, &e);
	(void)unlink(policy_path);
	cr_assert_eq(r, 0, "%s", e.msg);
	cr_assert_eq(c.write.n, 2);
	cr_assert_str_eq(c.write.v[0], "/p");
	cr_assert_str_eq(c.write.v[1], "/f");
	cr_assert_eq(c.write.nfile, 1);
	cr_assert_eq(c.tmp, TMP_PRIVATE);
	cr_assert_eq(c.timeout, 5);
	cr_assert_eq(c.nenv, 2, "later --setenv wins in env_build, the file's comes first");
	cr_assert_str_eq(c.env[1].value, "flag");
	cr_assert_str_eq(c.cmd[0], "true");
	cr_assert_str_eq(c.policy, policy_path);
	config_free(&c);
}

Test(policy, flag_checks_see_the_file)
{
	/* --attribution-token needs --proxy-upstream: the file may supply it. */
	write_policy("{\"network\": {\"upstream\": \"tcp:127.0.0.1:3128\"}}");
	char *argv[] = { "cordon", "explain", "--policy", policy_path, "--attribution-token", "t",
			 "--", "true", NULL };
	struct config c = { 0 };
	struct cordon_err e = { 0 };
	int r = cli_parse(8, argv, &c, &e);
	(void)unlink(policy_path);
	cr_assert_lt(r, 0);
	cr_assert_null(strstr(e.msg, "needs --proxy-upstream"), "%s", e.msg);
	config_free(&c);
}

Test(policy, a_missing_file_is_refused)
{
	char *argv[] = { "cordon", "--policy", "/nonexistent/p.json", "--", "true", NULL };
	struct config c = { 0 };
	struct cordon_err e = { 0 };
	cr_assert_lt(cli_parse(5, argv, &c, &e), 0);
	cr_assert_eq(strncmp(e.msg, "--policy /nonexistent/p.json: cannot open it", 44), 0, "%s", e.msg);
	config_free(&c);
}
