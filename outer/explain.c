/* explain.c: see explain.h. */
#include "explain.h"

#include <stdio.h>
#include <unistd.h>
#include "explain_print.h"
#include "hostpaths/protect.h"
#include "prepare.h"
#include "supervise.h"

void explain_verbose(const struct argv *a)
{
	fputs("cordon: bwrap", stderr);
	for (size_t i = 1; i < a->n; i++)
		fprintf(stderr, " %s", a->v[i]);
	fputc('\n', stderr);
}

int explain_run(const struct config *c, struct cordon_err *e)
{
	struct prepared p;
	/* What a run from here would pass on (run.c). */
	struct inner_term t = { isatty(STDIN_FILENO) || isatty(STDOUT_FILENO), supervise_ignored() };
	int r;
	prepare_init(&p);
	if ((r = prepare_open(c, &t, &p, e)) == 0 &&
	    (r = protect_explain(&p.res, e)) == 0 &&
	    (r = prepare_argv(c, &p, e)) == 0)
		r = explain_print(stdout, c, &p.res, &p.argv, e);
	prepare_free(&p);
	return r;
}
