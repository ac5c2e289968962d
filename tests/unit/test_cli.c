/* test_cli.c: cli_parse, every flag in each of its forms, and every refusal:
 * a refusal returns <0 with a message that starts with the flag and an exit
 * code of 125. */
#include <criterion/criterion.h>

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "input/cli.h"

#define MAXARGS 32

struct parsed {
	char *argv[MAXARGS];
	int argc;
	struct config c;
	struct cordon_err e;
	int rc;
};

/* Parse "cordon" followed by the given arguments (NULL-terminated). */
static struct parsed *parse(struct parsed *p, ...)
{
	va_list ap;
	memset(p, 0, sizeof(*p));
	p->argv[p->argc++] = "cordon";
	va_start(ap, p);
	for (char *s; (s = va_arg(ap, char *)) != NULL;) {
		cr_assert_lt(p->argc, MAXARGS - 1);
		p->argv[p->argc++] = s;
	}
	va_end(ap);
	p->argv[p->argc] = NULL;
	p->rc = cli_parse(p->argc, p->argv, &p->c, &p->e);
	return p;
}

#define PARSE(p, ...) parse((p), __VA_ARGS__, (char *)NULL)

static void expect_ok(struct parsed *p)
{
	cr_assert_eq(p->rc, 0, "cli_parse failed: %s", p->e.msg);
}

static void expect_refused(struct parsed *p, const char *prefix)
{
	cr_assert_lt(p->rc, 0, "accepted, wanted a refusal starting with '%s'", prefix);
	cr_assert_eq(p->rc, -p->e.err);
	cr_assert_eq(p->e.exit_code, EXIT_CORDON_FAILED);
	cr_assert_eq(strncmp(p->e.msg, prefix, strlen(prefix)), 0,
		     "message '%s' does not start with '%s'", p->e.msg, prefix);
	config_free(&p->c);
}

static void expect_cmd(struct parsed *p, int first)
{
	cr_assert_not_null(p->c.cmd);
	cr_assert_eq(p->c.cmd, p->argv + first, "command should start at argv[%d]", first);
}

/* ---- defaults and the command ------------------------------------------ */

Test(cli, defaults)
{
	struct parsed p;
	PARSE(&p, "true");
	expect_ok(&p);
	cr_assert_eq(p.c.mode, MODE_RUN);
	cr_assert_eq(p.c.default_protect, 1);
	cr_assert_eq(p.c.tmp, TMP_PRIVATE);
	cr_assert_eq(p.c.net, NET_NONE);
	cr_assert_eq(p.c.pid, PID_AUTO);
	cr_assert_eq(p.c.full_write, 0);
	cr_assert_eq(p.c.write.n, 0);
	cr_assert_eq(p.c.read_only.n, 0);
	cr_assert_eq(p.c.deny_read.n, 0);
	cr_assert_eq(p.c.protect.n, 0);
	cr_assert_null(p.c.cwd);
	cr_assert_eq(p.c.nenv, 0);
	cr_assert_eq(p.c.clear_env, 0);
	cr_assert_eq(p.c.verbose, 0);
	cr_assert_eq(p.c.timeout, 0);
	cr_assert_eq(p.c.require_landlock, 0);
	cr_assert_eq(p.c.allow_unix_sockets, 0);
	cr_assert_eq(p.c.protect_missing, PROTECT_MISSING_WATCH, "watch is the default");
	expect_cmd(&p, 1);
	cr_assert_str_eq(p.c.cmd[0], "true");
	cr_assert_null(p.c.cmd[1]);
	config_free(&p.c);
}

Test(cli, protect_missing_modes)
{
	struct parsed p;
	PARSE(&p, "--protect-missing", "mount", "true");
	expect_ok(&p);
	cr_assert_eq(p.c.protect_missing, PROTECT_MISSING_MOUNT);
	config_free(&p.c);
	PARSE(&p, "--protect-missing=watch", "true");
	expect_ok(&p);
	cr_assert_eq(p.c.protect_missing, PROTECT_MISSING_WATCH);
	config_free(&p.c);
	expect_refused(PARSE(&p, "--protect-missing", "create", "true"), "--protect-missing create");
}

Test(cli, git_modes)
{
	struct parsed p;
	PARSE(&p, "true");
	expect_ok(&p);
	cr_assert_eq(p.c.git, GIT_READ_ONLY, "read-only is the default");
	config_free(&p.c);
	PARSE(&p, "--git", "commit", "true");
	expect_ok(&p);
	cr_assert_eq(p.c.git, GIT_COMMIT);
	config_free(&p.c);
	PARSE(&p, "--git=read-only", "true");
	expect_ok(&p);
	cr_assert_eq(p.c.git, GIT_READ_ONLY);
	config_free(&p.c);
	expect_refused(PARSE(&p, "--git", "write", "true"), "--git write");
}

Test(cli, double_dash_ends_options)
{
	struct parsed p;
	PARSE(&p, "-w", "/a", "--", "ls", "-la", "--write", "/b");
	expect_ok(&p);
	expect_cmd(&p, 4);
	cr_assert_str_eq(p.c.cmd[0], "ls");
	cr_assert_str_eq(p.c.cmd[1], "-la");
	cr_assert_str_eq(p.c.cmd[2], "--write");
	cr_assert_null(p.c.cmd[4]);
	cr_assert_eq(p.c.write.n, 1, "the command's own --write was parsed as ours");
	config_free(&p.c);
}

Test(cli, only_the_first_double_dash_is_ours)
{
	struct parsed p;
	PARSE(&p, "--", "--", "-v");
	expect_ok(&p);
	expect_cmd(&p, 2);
	cr_assert_str_eq(p.c.cmd[0], "--");
	cr_assert_eq(p.c.verbose, 0);
	config_free(&p.c);
}

Test(cli, command_after_double_dash_may_look_like_a_flag)
{
	struct parsed p;
	PARSE(&p, "--", "--help");
	expect_ok(&p);
	cr_assert_eq(p.c.mode, MODE_RUN);
	expect_cmd(&p, 2);
	config_free(&p.c);
}

Test(cli, first_operand_stops_parsing)
{
	struct parsed p;
	PARSE(&p, "-v", "ls", "-la", "-w", "/x", "--bogus");
	expect_ok(&p);
	cr_assert_eq(p.c.verbose, 1);
	expect_cmd(&p, 2);
	cr_assert_str_eq(p.c.cmd[1], "-la");
	cr_assert_eq(p.c.write.n, 0);
	config_free(&p.c);
}

Test(cli, lone_dash_is_an_operand)
{
	struct parsed p;
	PARSE(&p, "-", "x");
	expect_ok(&p);
	expect_cmd(&p, 1);
	config_free(&p.c);
}

Test(cli, no_command_refused)
{
	struct parsed p;
	expect_refused(PARSE(&p, "-w", "/a"), "no command given");
	expect_refused(PARSE(&p, "-w", "/a", "--"), "no command given");
	char *argv[] = { "cordon", NULL };
	struct config c;
	struct cordon_err e;
	memset(&c, 0, sizeof(c));
	memset(&e, 0, sizeof(e));
	cr_assert_lt(cli_parse(1, argv, &c, &e), 0);
	cr_assert_eq(e.exit_code, EXIT_CORDON_FAILED);
	config_free(&c);
}

/* ---- subcommands and modes ----------------------------------------------- */

Test(cli, explain)
{
	struct parsed p;
	PARSE(&p, "explain", "-w", "/a", "--", "make", "-j4");
	expect_ok(&p);
	cr_assert_eq(p.c.mode, MODE_EXPLAIN);
	cr_assert_eq(p.c.write.n, 1);
	expect_cmd(&p, 5);
	config_free(&p.c);
	expect_refused(PARSE(&p, "explain"), "no command given");
	expect_refused(PARSE(&p, "explain", "-v"), "no command given");
}

Test(cli, doctor_and_reclaim)
{
	struct parsed p;
	PARSE(&p, "doctor");
	expect_ok(&p);
	cr_assert_eq(p.c.mode, MODE_DOCTOR);
	cr_assert_null(p.c.cmd);
	config_free(&p.c);
	PARSE(&p, "reclaim", "-v");
	expect_ok(&p);
	cr_assert_eq(p.c.mode, MODE_RECLAIM);
	cr_assert_eq(p.c.verbose, 1);
	cr_assert_null(p.c.cmd);
	config_free(&p.c);
	expect_refused(PARSE(&p, "doctor", "ls"), "cordon doctor takes no command");
	expect_refused(PARSE(&p, "reclaim", "--", "ls"), "cordon reclaim takes no command");
}

Test(cli, subcommand_only_in_first_place)
{
	struct parsed p;
	PARSE(&p, "-v", "doctor");
	expect_ok(&p);
	cr_assert_eq(p.c.mode, MODE_RUN);
	expect_cmd(&p, 2);
	config_free(&p.c);
	PARSE(&p, "--", "explain");
	expect_ok(&p);
	cr_assert_eq(p.c.mode, MODE_RUN);
	cr_assert_str_eq(p.c.cmd[0], "explain");
	config_free(&p.c);
}

Test(cli, version_and_help)
{
	struct parsed p;
	PARSE(&p, "--version");
	expect_ok(&p);
	cr_assert_eq(p.c.mode, MODE_VERSION);
	config_free(&p.c);
	PARSE(&p, "--help");
	expect_ok(&p);
	cr_assert_eq(p.c.mode, MODE_HELP);
	config_free(&p.c);
	PARSE(&p, "-h");
	expect_ok(&p);
	cr_assert_eq(p.c.mode, MODE_HELP);
	config_free(&p.c);
	/* --help wins over a missing command, and options after it still parse. */
	PARSE(&p, "-w", "/a", "--help", "-v");
	expect_ok(&p);
	cr_assert_eq(p.c.mode, MODE_HELP);
	cr_assert_eq(p.c.verbose, 1);
	config_free(&p.c);
	expect_refused(PARSE(&p, "--version=1"), "--version takes no value");
	expect_refused(PARSE(&p, "--help", "--bogus"), "unknown option --bogus");
	cr_assert_not_null(strstr(cli_usage, "--write"));
}

/* ---- each flag ------------------------------------------------------------ */

Test(cli, write_all_forms)
{
	struct parsed p;
	PARSE(&p, "--write", "/a", "--write=/b", "-w", "/c", "-w/d", "true");
	expect_ok(&p);
	cr_assert_eq(p.c.write.n, 4);
	cr_assert_str_eq(p.c.write.v[0], "/a");
	cr_assert_str_eq(p.c.write.v[1], "/b");
	cr_assert_str_eq(p.c.write.v[2], "/c");
	cr_assert_str_eq(p.c.write.v[3], "/d");
	expect_cmd(&p, 7);
	config_free(&p.c);
}

Test(cli, write_value_may_start_with_dash)
{
	struct parsed p;
	PARSE(&p, "--write", "-v", "true");
	expect_ok(&p);
	cr_assert_eq(p.c.write.n, 1);
	cr_assert_str_eq(p.c.write.v[0], "-v");
	cr_assert_eq(p.c.verbose, 0);
	config_free(&p.c);
}

Test(cli, read_only_and_deny_read)
{
	struct parsed p;
	PARSE(&p, "--read-only", "/a/v", "--read-only=/a/w", "--deny-read", "/a/.env",
	      "--deny-read=/a/*.pem", "true");
	expect_ok(&p);
	cr_assert_eq(p.c.read_only.n, 2);
	cr_assert_str_eq(p.c.read_only.v[0], "/a/v");
	cr_assert_str_eq(p.c.read_only.v[1], "/a/w");
	cr_assert_eq(p.c.deny_read.n, 2);
	cr_assert_str_eq(p.c.deny_read.v[0], "/a/.env");
	cr_assert_str_eq(p.c.deny_read.v[1], "/a/*.pem");
	cr_assert_eq(p.c.write.n, 0);
	config_free(&p.c);
}

Test(cli, protect_and_no_default_protect)
{
	struct parsed p;
	PARSE(&p, "--protect", ".hg", "--protect=.svn", "--no-default-protect", "true");
	expect_ok(&p);
	cr_assert_eq(p.c.protect.n, 2);
	cr_assert_str_eq(p.c.protect.v[0], ".hg");
	cr_assert_str_eq(p.c.protect.v[1], ".svn");
	cr_assert_eq(p.c.default_protect, 0);
	config_free(&p.c);
	expect_refused(PARSE(&p, "--no-default-protect=yes", "true"),
		       "--no-default-protect takes no value");
}

Test(cli, default_protect_list)
{
	const char *want[] = { ".git", ".codex", ".agents", ".aws" };
	size_t n = 0;
	while (config_default_protect[n])
		n++;
	cr_assert_eq(n, 4);
	for (size_t i = 0; i < n; i++)
		cr_assert_str_eq(config_default_protect[i], want[i]);
}

Test(cli, protect_refuses_paths)
{
	struct parsed p;
	expect_refused(PARSE(&p, "--protect", "a/b", "true"), "--protect a/b:");
	expect_refused(PARSE(&p, "--protect", "/x", "true"), "--protect /x:");
	expect_refused(PARSE(&p, "--protect", "..", "true"), "--protect ..:");
	expect_refused(PARSE(&p, "--protect", ".", "true"), "--protect .:");
	expect_refused(PARSE(&p, "--protect=", "true"), "--protect");
	cr_assert_eq(p.e.err, EINVAL);
	PARSE(&p, "--protect", "..x", "true");
	expect_ok(&p);
	config_free(&p.c);
}

Test(cli, tmp)
{
	struct parsed p;
	PARSE(&p, "--tmp", "host", "true");
	expect_ok(&p);
	cr_assert_eq(p.c.tmp, TMP_HOST);
	config_free(&p.c);
	PARSE(&p, "--tmp=host", "--tmp=private", "true");
	expect_ok(&p);
	cr_assert_eq(p.c.tmp, TMP_PRIVATE, "the later flag should win");
	config_free(&p.c);
	expect_refused(PARSE(&p, "--tmp", "bogus", "true"), "--tmp bogus: ");
	expect_refused(PARSE(&p, "--tmp=", "true"), "--tmp : ");
	expect_refused(PARSE(&p, "--tmp", "Private", "true"), "--tmp Private: ");
}

Test(cli, full_write)
{
	struct parsed p;
	PARSE(&p, "--full-write", "true");
	expect_ok(&p);
	cr_assert_eq(p.c.full_write, 1);
	config_free(&p.c);
	expect_refused(PARSE(&p, "--full-write=1", "true"), "--full-write takes no value");
}

Test(cli, cwd_all_forms)
{
	struct parsed p;
	PARSE(&p, "--cwd", "/a", "true");
	expect_ok(&p);
	cr_assert_str_eq(p.c.cwd, "/a");
	config_free(&p.c);
	PARSE(&p, "--cwd=/b", "true");
	expect_ok(&p);
	cr_assert_str_eq(p.c.cwd, "/b");
	config_free(&p.c);
	PARSE(&p, "-C", "/c", "true");
	expect_ok(&p);
	cr_assert_str_eq(p.c.cwd, "/c");
	config_free(&p.c);
	PARSE(&p, "-C/d", "-C", "/e", "true");
	expect_ok(&p);
	cr_assert_str_eq(p.c.cwd, "/e");
	config_free(&p.c);
}

Test(cli, net)
{
	struct parsed p;
	PARSE(&p, "--net", "none", "true");
	expect_ok(&p);
	cr_assert_eq(p.c.net, NET_NONE);
	config_free(&p.c);
	PARSE(&p, "--net=none", "true");
	expect_ok(&p);
	cr_assert_eq(p.c.net, NET_NONE);
	config_free(&p.c);
	expect_refused(PARSE(&p, "--net", "bogus", "true"), "--net bogus: ");
	cr_assert_eq(p.e.err, EINVAL);
	expect_refused(PARSE(&p, "--net=", "true"), "--net : ");
	PARSE(&p, "--net", "proxy", "true");
	expect_ok(&p);
	cr_assert_eq(p.c.net, NET_PROXY);
	config_free(&p.c);
	PARSE(&p, "--net=full", "true");
	expect_ok(&p);
	cr_assert_eq(p.c.net, NET_FULL);
	config_free(&p.c);
}

/* The proxy's settings need the proxy; a token needs an upstream to go to. */
Test(cli, proxy_settings)
{
	struct parsed p;
	PARSE(&p, "--allow-domain", "a.test", "--deny-domain", "b.a.test", "--net-log", "/l",
	      "--proxy-upstream", "tcp:127.0.0.1:1", "--attribution-token", "t", "true");
	expect_ok(&p);
	cr_assert_eq(p.c.net, NET_PROXY, "--allow-domain implies --net proxy");
	cr_assert_eq(p.c.deny_domain.n, 1);
	cr_assert_str_eq(p.c.proxy_upstream, "tcp:127.0.0.1:1");
	cr_assert_str_eq(p.c.attribution_token, "t");
	config_free(&p.c);
	expect_refused(PARSE(&p, "--deny-domain", "b.test", "true"), "--deny-domain, --proxy-upstream");
	expect_refused(PARSE(&p, "--net", "full", "--net-log", "/l", "true"), "--deny-domain");
	expect_refused(PARSE(&p, "--net", "proxy", "--attribution-token", "t", "true"),
		       "--attribution-token needs --proxy-upstream");
}

/* Credentials in --proxy-upstream are split off at once: the spec that
 * explain, the report and the bridge's argv show never holds them. */
Test(cli, proxy_upstream_credentials)
{
	static const char *const ok[][3] = {
		{ "tcp:alice:s3cret@127.0.0.1:3129", "tcp:127.0.0.1:3129", "alice:s3cret" },
		{ "tcp:alice:p@ss:w/d@[::1]:1", "tcp:[::1]:1", "alice:p@ss:w/d" },
		{ "tcp:a%40b:c%25d%3A@h.test:8", "tcp:h.test:8", "a@b:c%d:" },
		{ "unix:bob:pw@/run/p@x.sock", "unix:/run/p@x.sock", "bob:pw" },
		{ "unix:/run/p@x.sock", "unix:/run/p@x.sock", NULL },
		{ "tcp:127.0.0.1:3129", "tcp:127.0.0.1:3129", NULL },
	};
	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		struct parsed p;
		PARSE(&p, "--net", "proxy", "--proxy-upstream", ok[i][0], "true");
		expect_ok(&p);
		cr_assert_str_eq(p.c.proxy_upstream, ok[i][1], "%s", ok[i][0]);
		if (ok[i][2])
			cr_assert_str_eq(p.c.proxy_upstream_auth, ok[i][2], "%s", ok[i][0]);
		else
			cr_assert_null(p.c.proxy_upstream_auth, "%s", ok[i][0]);
		config_free(&p.c);
	}
	static const char *const bad[] = {
		"tcp:nopass@h:1", "tcp::pw@h:1", "tcp:a%3Ab:pw@h:1", "tcp:a:p%0d%0aX:1@h:1",
		"tcp:a:p%4@h:1", "unix:relative", "unix:a:pw/x@/p",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct parsed p;
		expect_refused(PARSE(&p, "--net", "proxy", "--proxy-upstream", bad[i], "true"),
			       "--proxy-upstream");
		cr_assert_null(strstr(p.e.msg, "pw"), "the message never repeats a password: %s",
			       p.e.msg);
	}
}

Test(cli, allow_unix_sockets)
{
	struct parsed p;
	PARSE(&p, "--allow-unix-sockets", "true");
	expect_ok(&p);
	cr_assert_eq(p.c.allow_unix_sockets, 1);
	config_free(&p.c);
	expect_refused(PARSE(&p, "--allow-unix-sockets=1", "true"),
		       "--allow-unix-sockets takes no value");
}

Test(cli, pid_ns)
{
	struct parsed p;
	PARSE(&p, "--pid-ns", "isolate", "true");
	expect_ok(&p);
	cr_assert_eq(p.c.pid, PID_ISOLATE);
	config_free(&p.c);
	PARSE(&p, "--pid-ns=isolate", "true");
	expect_ok(&p);
	config_free(&p.c);
	expect_refused(PARSE(&p, "--pid-ns", "bogus", "true"), "--pid-ns bogus: ");
	cr_assert_eq(p.e.err, EINVAL);
	PARSE(&p, "--pid-ns=inherit", "true");
	expect_ok(&p);
	cr_assert_eq(p.c.pid, PID_INHERIT);
	config_free(&p.c);
	PARSE(&p, "--pid-ns", "auto", "true");
	expect_ok(&p);
	cr_assert_eq(p.c.pid, PID_AUTO);
	config_free(&p.c);
	PARSE(&p, "true");
	expect_ok(&p);
	cr_assert_eq(p.c.pid, PID_AUTO, "auto is the default");
	config_free(&p.c);
}

Test(cli, setenv_unsetenv_clear_env_in_order)
{
	struct parsed p;
	PARSE(&p, "--setenv", "A=1", "--unsetenv", "B", "--setenv=C=x=y", "--unsetenv=A",
	      "--setenv", "D=", "--clear-env", "true");
	expect_ok(&p);
	cr_assert_eq(p.c.clear_env, 1);
	cr_assert_eq(p.c.nenv, 5);
	cr_assert_str_eq(p.c.env[0].key, "A");
	cr_assert_str_eq(p.c.env[0].value, "1");
	cr_assert_str_eq(p.c.env[1].key, "B");
	cr_assert_null(p.c.env[1].value);
	cr_assert_str_eq(p.c.env[2].key, "C");
	cr_assert_str_eq(p.c.env[2].value, "x=y");
	cr_assert_str_eq(p.c.env[3].key, "A");
	cr_assert_null(p.c.env[3].value);
	cr_assert_str_eq(p.c.env[4].key, "D");
	cr_assert_str_eq(p.c.env[4].value, "");
	config_free(&p.c);
	expect_refused(PARSE(&p, "--clear-env=1", "true"), "--clear-env takes no value");
}

Test(cli, setenv_needs_key_and_equals)
{
	struct parsed p;
	expect_refused(PARSE(&p, "--setenv", "NOEQUALS", "true"), "--setenv NOEQUALS: ");
	expect_refused(PARSE(&p, "--setenv", "=v", "true"), "--setenv =v: ");
	expect_refused(PARSE(&p, "--setenv=", "true"), "--setenv : ");
	expect_refused(PARSE(&p, "--setenv", "A=1", "--setenv", "bad", "true"), "--setenv bad: ");
}

Test(cli, unsetenv_needs_a_name)
{
	struct parsed p;
	expect_refused(PARSE(&p, "--unsetenv", "", "true"), "--unsetenv : ");
	expect_refused(PARSE(&p, "--unsetenv", "A=B", "true"), "--unsetenv A=B: ");
}

Test(cli, verbose_all_forms)
{
	struct parsed p;
	PARSE(&p, "--verbose", "true");
	expect_ok(&p);
	cr_assert_eq(p.c.verbose, 1);
	config_free(&p.c);
	PARSE(&p, "-v", "true");
	expect_ok(&p);
	cr_assert_eq(p.c.verbose, 1);
	config_free(&p.c);
	expect_refused(PARSE(&p, "--verbose=1", "true"), "--verbose takes no value");
	/* Short flags are not bundled: -vw is not -v -w. */
	expect_refused(PARSE(&p, "-vw", "/a", "true"), "unknown option -vw");
}

Test(cli, require_landlock)
{
	struct parsed p;
	PARSE(&p, "--require-landlock", "true");
	expect_ok(&p);
	cr_assert_eq(p.c.require_landlock, 1);
	config_free(&p.c);
}

Test(cli, timeout)
{
	struct parsed p;
	PARSE(&p, "--timeout", "30", "true");
	expect_ok(&p);
	cr_assert_eq(p.c.timeout, 30);
	config_free(&p.c);
	PARSE(&p, "--timeout=604800", "true");
	expect_ok(&p);
	cr_assert_eq(p.c.timeout, 604800);
	config_free(&p.c);
	PARSE(&p, "--timeout", "1", "true");
	expect_ok(&p);
	cr_assert_eq(p.c.timeout, 1);
	config_free(&p.c);
}

Test(cli, timeout_bad_values)
{
	static char *const bad[] = {
		"0", "-1", "-0", "", "abc", "5s", "1.5", "604801", "99999999999999999999999",
		"0x10",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct parsed p;
		char prefix[64];
		snprintf(prefix, sizeof(prefix), "--timeout %s: ", bad[i]);
		expect_refused(PARSE(&p, "--timeout", bad[i], "true"), prefix);
		cr_assert_eq(p.e.err, EINVAL);
	}
}

/* ---- generic refusals ----------------------------------------------------- */

Test(cli, unknown_flags)
{
	struct parsed p;
	expect_refused(PARSE(&p, "--bogus", "true"), "unknown option --bogus");
	expect_refused(PARSE(&p, "--bogus=1", "true"), "unknown option --bogus=1");
	expect_refused(PARSE(&p, "-x", "true"), "unknown option -x");
	expect_refused(PARSE(&p, "--writ", "/a", "true"), "unknown option --writ");
	expect_refused(PARSE(&p, "--write-", "/a", "true"), "unknown option --write-");
	expect_refused(PARSE(&p, "---write", "/a", "true"), "unknown option ---write");
}

Test(cli, missing_values)
{
	static const char *const flags[][2] = {
		{ "--write", "--write needs a value" },
		{ "-w", "--write needs a value" },
		{ "--read-only", "--read-only needs a value" },
		{ "--deny-read", "--deny-read needs a value" },
		{ "--protect", "--protect needs a value" },
		{ "--tmp", "--tmp needs a value" },
		{ "--cwd", "--cwd needs a value" },
		{ "-C", "--cwd needs a value" },
		{ "--net", "--net needs a value" },
		{ "--pid-ns", "--pid-ns needs a value" },
		{ "--setenv", "--setenv needs a value" },
		{ "--unsetenv", "--unsetenv needs a value" },
		{ "--timeout", "--timeout needs a value" },
	};
	for (size_t i = 0; i < sizeof(flags) / sizeof(flags[0]); i++) {
		struct parsed p;
		expect_refused(PARSE(&p, "-v", (char *)flags[i][0]), flags[i][1]);
	}
}

Test(cli, end_of_options_is_no_value)
{
	struct parsed p;
	expect_refused(PARSE(&p, "-w", "--", "true"), "--write needs a value before --");
	expect_refused(PARSE(&p, "--read-only", "--", "true"), "--read-only needs a value before --");
	expect_refused(PARSE(&p, "--net", "--", "true"), "--net needs a value before --");
	expect_ok(PARSE(&p, "-w", "./--", "--", "true"));
	config_free(&p.c);
}

Test(cli, unprotect)
{
	struct parsed p;
	expect_ok(PARSE(&p, "--unprotect", ".vscode", "--unprotect=.git", "--", "true"));
	cr_expect(!config_default_protects(&p.c, ".vscode"));
	cr_expect(!config_default_protects(&p.c, ".git"));
	cr_expect(config_default_protects(&p.c, ".codex"));
	cr_expect(!config_default_protects(&p.c, ".hg"), "not a default name");
	config_free(&p.c);
	expect_refused(PARSE(&p, "--unprotect", ".hg", "--", "true"),
		       "--unprotect .hg: not one of the names cordon protects by default");
	expect_refused(PARSE(&p, "--unprotect", "a/b", "--", "true"), "--unprotect a/b");
}

Test(cli, explain_path)
{
	struct parsed p;
	expect_refused(PARSE(&p, "--path", "/x", "--", "true"), "--path goes with cordon explain");
	expect_ok(PARSE(&p, "explain", "--path", "/x", "--path", "y", "-w", "/tmp"));
	cr_expect_eq(p.c.explain_paths.n, 2);
	cr_expect_str_eq(p.c.cmd[0], "true", "no command needed: any will do");
	config_free(&p.c);
	expect_refused(PARSE(&p, "explain", "--path", ""), "--path needs a non-empty path");
}

Test(cli, empty_paths)
{
	struct parsed p;
	expect_refused(PARSE(&p, "--write", "", "true"), "--write needs a non-empty path");
	expect_refused(PARSE(&p, "--write=", "true"), "--write needs a non-empty path");
	expect_refused(PARSE(&p, "-w", "", "true"), "--write needs a non-empty path");
	expect_refused(PARSE(&p, "--read-only=", "true"), "--read-only needs a non-empty path");
	expect_refused(PARSE(&p, "--deny-read", "", "true"), "--deny-read needs a non-empty path");
	expect_refused(PARSE(&p, "--cwd", "", "true"), "--cwd needs a non-empty path");
	expect_refused(PARSE(&p, "-C", "", "true"), "--cwd needs a non-empty path");
}

Test(cli, overlong_path)
{
	static char longp[PATH_MAX + 2];
	memset(longp, 'a', sizeof(longp) - 1);
	longp[0] = '/';
	struct parsed p;
	expect_refused(PARSE(&p, "--write", longp, "true"), "--write: path is too long");
	cr_assert_eq(p.e.err, ENAMETOOLONG);
}

Test(cli, repeated_parse_is_independent)
{
	/* No global state: a second parse sees nothing of the first. */
	struct parsed p;
	PARSE(&p, "-w", "/a", "-v", "true");
	expect_ok(&p);
	config_free(&p.c);
	PARSE(&p, "true");
	expect_ok(&p);
	cr_assert_eq(p.c.write.n, 0);
	cr_assert_eq(p.c.verbose, 0);
	expect_cmd(&p, 1);
	config_free(&p.c);
}

Test(cli, cache_private_by_default)
{
	struct parsed p;
	PARSE(&p, "--", "true");
	expect_ok(&p);
	cr_assert_eq(p.c.cache, CACHE_PRIVATE);
	config_free(&p.c);
	PARSE(&p, "--cache", "none", "--", "true");
	expect_ok(&p);
	cr_assert_eq(p.c.cache, CACHE_NONE);
	config_free(&p.c);
	PARSE(&p, "--cache=private", "--", "true");
	expect_ok(&p);
	cr_assert_eq(p.c.cache, CACHE_PRIVATE);
	config_free(&p.c);
	expect_refused(PARSE(&p, "--cache", "shared", "--", "true"), "--cache shared: expected");
}

Test(cli, reclaim_caches)
{
	struct parsed p;
	PARSE(&p, "reclaim", "--caches");
	expect_ok(&p);
	cr_assert_eq(p.c.mode, MODE_RECLAIM);
	cr_assert_eq(p.c.reclaim_caches, 1);
	config_free(&p.c);
	expect_refused(PARSE(&p, "--caches", "--", "true"), "--caches goes with cordon reclaim");
}
