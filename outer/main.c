/* main.c: cordon, the supervisor an agent runs.  Argument handling and calls
 * only; the one place that prints an error and exits. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include "input/cli.h"
#include "config.h"
#include "doctor.h"
#include "err.h"
#include "explain.h"
#include "prefix.h"
#include "hostpaths/caches.h"
#include "hostpaths/cgroup.h"
#include "hostpaths/registry_sweep.h"
#include "report.h"
#include "run.h"

static int fail(const struct cordon_err *e)
{
	err_print(e);
	return EXIT_CORDON_FAILED;
}

/* --report: opened before anything runs, so a report that could not be
 * written stops the run (125) instead of going missing. */
static int open_report(struct report *rep, const struct config *c, struct cordon_err *e)
{
	if (!c->report || c->mode != MODE_RUN)
		return 0;
	return report_open(rep, c->report, e);
}

/* Flags or policy refused: the report (if --report was parsed before the
 * refusal) says so. */
static int fail_early(struct report *rep, struct config *c, const struct cordon_err *e)
{
	struct cordon_err re;
	if (open_report(rep, c, &re) < 0 || report_write(rep, NULL, NULL, NULL, EXIT_CORDON_FAILED, e, &re) < 0)
		err_print(&re);
	report_close(rep);
	config_free(c);
	return fail(e);
}

int main(int argc, char **argv)
{
	struct config c = { 0 };
	struct cordon_err e = { 0 };
	/* report_init sets what is read; its arrays (over 100 KiB) are left
	 * untouched until used (no -ftrivial-auto-var-init zeroing). */
	struct report rep __attribute__((uninitialized));
	/* cordon-prefix and cordon-sh: the config's strings point into it. */
	struct prefix_run pr = PREFIX_RUN_INIT;
	int status;

	report_init(&rep);
	if ((prefix_wanted(argc, argv, &pr) ? prefix_parse(&pr, argc, argv, &c, &e)
					    : cli_parse(argc, argv, &c, &e)) < 0) {
		status = fail_early(&rep, &c, &e);
		prefix_free(&pr);
		return status;
	}
	if (open_report(&rep, &c, &e) < 0) {
		report_close(&rep);
		config_free(&c);
		prefix_free(&pr);
		return fail(&e);
	}
	for (size_t i = 0; i < c.warnings.n; i++)
		fprintf(stderr, "cordon: warning: %s\n", c.warnings.v[i]);
	switch (c.mode) {
	case MODE_VERSION:
		printf("cordon %s\n", CORDON_VERSION);
		status = 0;
		break;
	case MODE_HELP:
		fputs(cli_usage, stdout);
		status = 0;
		break;
	case MODE_RUN:
		status = run_sandbox(&c, &rep, &e);
		if (status < 0)
			status = fail(&e);
		break;
	case MODE_EXPLAIN:
		status = explain_run(&c, &e);
		if (status < 0)
			status = fail(&e);
		break;
	case MODE_DOCTOR:
		status = doctor_run();
		break;
	case MODE_RECLAIM:
		status = registry_reclaim(stdout, &e);
		/* Killed runs' cgroups too (hostpaths/cgroup.h). */
		if (status >= 0)
			cgroup_sweep();
		if (status >= 0 && c.reclaim_caches)
			status = caches_reclaim(stdout, &e);
		if (status < 0)
			status = fail(&e);
		break;
	default:
		(void)err_set(&e, ENOSYS, "this subcommand is not available in this version");
		status = fail(&e);
		break;
	}
	report_close(&rep);
	config_free(&c);
	prefix_free(&pr);
	if (fflush(stdout) != 0 && status == 0)
		status = 1;
	return status;
}
