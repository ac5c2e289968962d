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
#include "hostpaths/caches.h"
#include "hostpaths/registry_sweep.h"
#include "run.h"

static int fail(const struct cordon_err *e)
{
	err_print(e);
	return EXIT_CORDON_FAILED;
}

int main(int argc, char **argv)
{
	struct config c = { 0 };
	struct cordon_err e = { 0 };
	int status;

	if (cli_parse(argc, argv, &c, &e) < 0) {
		config_free(&c);
		return fail(&e);
	}
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
		status = run_sandbox(&c, &e);
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
	config_free(&c);
	if (fflush(stdout) != 0 && status == 0)
		status = 1;
	return status;
}
