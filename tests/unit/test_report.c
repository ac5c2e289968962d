/* test_report.c: the report's contents for each way a run ends, read back
 * with jansson; the write never follows a link left at the report's path. */
#include <criterion/criterion.h>

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "input/cli.h"
#include "report.h"

static char dir[64], file[96];

static void setup(void)
{
	(void)snprintf(dir, sizeof(dir), "/tmp/test_report.XXXXXX");
	cr_assert_not_null(mkdtemp(dir));
	(void)snprintf(file, sizeof(file), "%s/r.json", dir);
}

static void teardown(void)
{
	char p[128];
	(void)snprintf(p, sizeof(p), "%s/r.json", dir);
	(void)unlink(p);
	(void)snprintf(p, sizeof(p), "%s/target", dir);
	(void)unlink(p);
	(void)rmdir(dir);
}

static json_t *write_and_read(struct report *r, const struct config *c, int status,
			      const struct cordon_err *err)
{
	struct cordon_err e = { 0 };
	cr_assert_eq(report_write(r, c, NULL, NULL, status, err, &e), 0, "%s", e.msg);
	report_close(r);
	json_error_t je;
	json_t *root = json_load_file(file, 0, &je);
	cr_assert_not_null(root, "report is not JSON: %s", je.text);
	return root;
}

static const char *str(json_t *root, const char *key)
{
	return json_string_value(json_object_get(root, key));
}

TestSuite(report, .init = setup, .fini = teardown);

Test(report, normal_exit_with_policy_and_rusage)
{
	struct report r;
	struct cordon_err e;
	char *cmd[] = { "make", "-j2", NULL };
	struct config c = { .cmd = cmd };
	cli_defaults(&c);
	report_init(&r);
	cr_assert_eq(report_open(&r, file, &e), 0, "%s", e.msg);
	r.out.started = 1;
	r.out.have_rusage = 1;
	r.out.rusage.ru_utime.tv_sec = 2;
	report_add_net(&r, 1, "registry.npmjs.org", 443, NULL);
	report_add_net(&r, 0, "evil.example", 443, "not in the allowlist");
	json_t *root = write_and_read(&r, &c, 0, NULL);
	cr_assert_str_eq(str(root, "reason"), "exited");
	cr_assert_eq(json_integer_value(json_object_get(root, "status")), 0);
	cr_assert(json_is_null(json_object_get(root, "signal")));
	cr_assert_str_eq(json_string_value(json_array_get(json_object_get(root, "command"), 1)), "-j2");
	json_t *ru = json_object_get(root, "rusage");
	cr_assert_float_eq(json_number_value(json_object_get(ru, "user_s")), 2.0, 1e-9);
	json_t *net = json_object_get(root, "network");
	cr_assert_eq(json_integer_value(json_object_get(net, "allowed")), 1);
	cr_assert_eq(json_integer_value(json_object_get(net, "refused")), 1);
	json_t *ref = json_array_get(json_object_get(net, "refusals"), 0);
	cr_assert_str_eq(str(ref, "host"), "evil.example");
	json_t *pol = json_object_get(root, "policy");
	cr_assert_str_eq(str(json_object_get(pol, "effective"), "tmp"), "private");
	cr_assert_str_eq(str(json_array_get(json_object_get(pol, "paths"), 0), "path"), "/");
	json_decref(root);
	config_free(&c);
}

Test(report, each_way_a_run_ends)
{
	static const struct {
		int status, started, timed_out, forwarded, have_error, violation;
		const char *reason;
		int signal;
		int cpu;
	} cases[] = {
		{ 124, 1, 1, 0, 0, 0, "timeout", 0, 0 },
		{ 152, 1, 0, 0, 0, 0, "cpu_limit", 0, 1 }, /* killed by cordon, not the signal */
		{ 152, 1, 0, 0, 0, 0, "signaled", 24, 0 }, /* one process's RLIMIT_CPU */
		{ 137, 1, 0, 0, 0, 0, "signaled", 9, 0 },
		{ 130, 1, 0, 0, 0, 0, "exited", 0, 0 },  /* `exit 130`: not SIGINT */
		{ 130, 1, 0, 0, 0, 0, "signaled", 2, 0 },
		{ 159, 1, 0, 0, 0, 0, "exited", 0, 0 },
		{ 143, 1, 0, SIGTERM, 0, 0, "terminated", 0, 0 },
		{ 1, 1, 0, 0, 0, 1, "violation", 0, 0 },
		{ 127, 0, 0, 0, 1, 0, "not_found", 0, 0 },
		{ 126, 0, 0, 0, 1, 0, "not_executable", 0, 0 },
		{ 125, 0, 0, 0, 0, 0, "setup_failed", 0, 0 },
		{ 125, 1, 0, 0, 0, 0, "exited", 0, 0 }, /* the command's own 125 */
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct report r;
		struct cordon_err e;
		report_init(&r);
		cr_assert_eq(report_open(&r, file, &e), 0, "%s", e.msg);
		r.out.started = cases[i].started;
		r.out.timed_out = cases[i].timed_out;
		r.out.cpu_exceeded = cases[i].cpu;
		r.out.forwarded = cases[i].forwarded;
		r.out.have_error = cases[i].have_error;
		/* How the command ended, as outcome_command_end gives it. */
		r.out.have_end = 1;
		r.out.end = (struct wstatus_end){ cases[i].signal != 0,
						  cases[i].signal ? cases[i].signal : cases[i].status };
		if (cases[i].violation)
			report_add_violation(&r, "protected_name", ".git", "/w/.git",
					     "/w/.git.cordon-quarantine-1", "a directory");
		json_t *root = write_and_read(&r, NULL, cases[i].status, NULL);
		cr_assert_str_eq(str(root, "reason"), cases[i].reason, "case %zu", i);
		cr_assert_eq(json_integer_value(json_object_get(root, "signal")), cases[i].signal, "case %zu", i);
		cr_assert(json_is_null(json_object_get(root, "policy")));
		if (cases[i].timed_out)
			cr_assert_str_eq(str(root, "timeout_ended_by"), "term");
		else
			cr_assert(json_is_null(json_object_get(root, "timeout_ended_by")));
		if (cases[i].violation) {
			json_t *v = json_array_get(json_object_get(root, "violations"), 0);
			cr_assert_str_eq(str(v, "path"), "/w/.git");
			cr_assert_str_eq(str(v, "name"), ".git");
			cr_assert_str_eq(str(v, "quarantined"), "/w/.git.cordon-quarantine-1");
		}
		json_decref(root);
	}
}

Test(report, a_link_at_the_path_is_replaced_not_followed)
{
	char target[128];
	(void)snprintf(target, sizeof(target), "%s/target", dir);
	FILE *f = fopen(target, "w");
	cr_assert_not_null(f);
	cr_assert_eq(fputs("precious\n", f) >= 0, 1);
	cr_assert_eq(fclose(f), 0);
	cr_assert_eq(symlink(target, file), 0);
	struct report r;
	struct cordon_err e;
	report_init(&r);
	cr_assert_eq(report_open(&r, file, &e), 0, "%s", e.msg);
	struct cordon_err err = { EIO, 125, "bwrap could not build the sandbox" };
	json_t *root = write_and_read(&r, NULL, 125, &err);
	cr_assert_str_eq(str(root, "error"), "bwrap could not build the sandbox");
	json_decref(root);
	char buf[32] = { 0 };
	f = fopen(target, "r");
	cr_assert_not_null(f);
	cr_assert_not_null(fgets(buf, sizeof(buf), f));
	cr_assert_eq(fclose(f), 0);
	cr_assert_str_eq(buf, "precious\n");
}

Test(report, a_missing_directory_is_refused)
{
	struct report r;
	struct cordon_err e;
	report_init(&r);
	cr_assert_lt(report_open(&r, "/nonexistent/dir/r.json", &e), 0);
	cr_assert_not_null(strstr(e.msg, "--report /nonexistent/dir/r.json"), "%s", e.msg);
	report_close(&r);
	report_init(&r);
	cr_assert_lt(report_open(&r, "/tmp/", &e), 0);
	report_close(&r);
}

Test(report, net_decisions_from_the_bridge)
{
	struct report r;
	report_init(&r);
	const struct wire_bridge_decision d[] = {
		{ WIRE_BRIDGE_ALLOW, 443, 0, "allowed", "93.184.216.34", "ok.test" },
		{ WIRE_BRIDGE_DENY, 80, 0, "unlisted", "", "bad.test" },
		{ WIRE_BRIDGE_FAILED, 0, 0, "bad-request", "", "" },
	};
	for (size_t i = 0; i < sizeof(d) / sizeof(d[0]); i++)
		report_add_net_decision(&r, &d[i]);
	cr_assert_eq(r.net_allowed, 1);
	cr_assert_eq(r.net_refused, 2, "deny and error count as refused");
	cr_assert_eq(r.nrefusals, 2);
	cr_assert_str_eq(r.refusals[0].host, "bad.test");
	cr_assert_eq(r.refusals[0].port, 80);
	cr_assert_str_eq(r.refusals[0].reason, "unlisted");
	cr_assert_str_eq(r.refusals[1].host, "", "no host parsed: none named");
	cr_assert_str_eq(r.refusals[1].reason, "bad-request");
	report_add_net_decision(NULL, &d[0]); /* no report: ignored */
	report_close(&r);
}
