/* explain.c: see explain.h. */
#include "explain.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "hostpaths/protect.h"
#include "plan/env.h"
#include "prepare.h"
#include "seccomp_policy.h"
#include "supervise.h"

/* The seccomp rules the command runs under, from the table the filter is
 * compiled from. */
static void print_seccomp(void)
{
	size_t n;
	const struct seccomp_rule_desc *t = seccomp_policy_table(&n);
	printf("\nseccomp rules (everything else allowed):\n");
	for (size_t i = 0; i < n; i++)
		printf("  %-18s %s: %s\n", t[i].syscall, t[i].when,
		       t[i].errno_value ? strerror(t[i].errno_value) : "kills the process");
}

/* One argument per line on stdout, after a header, so scripts
 * (scripts/bench-startup.sh) can replay it exactly. */
static void print_argv(const struct argv *a)
{
	fputs("bwrap argv (one argument per line):\n", stdout);
	for (size_t i = 0; i < a->n; i++)
		printf("%s\n", a->v[i]);
	print_seccomp();
}

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
	    (r = prepare_argv(c, &p, e)) == 0) {
		print_argv(&p.argv);
		if (c->net == NET_PROXY) {
			printf("\nenvironment for --net proxy (a --setenv of the same name wins):\n");
			for (size_t i = 0; i < p.env.n; i++)
				if (env_is_proxy_key(p.env.v[i]))
					printf("  %s\n", p.env.v[i]);
		}
	}
	prepare_free(&p);
	return r;
}
