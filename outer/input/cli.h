/* cli.h: command-line parsing into struct config.  No filesystem access but
 * the --policy file (policy.h), no printing, no exit; every error is a
 * cordon_err naming the flag (or the policy file, line, column and key). */
#ifndef CORDON_CLI_H
#define CORDON_CLI_H

#include "config.h"
#include "err.h"

/* Parse argv into *c (zeroed by the caller).  0 or -errno with *e filled. */
int cli_parse(int argc, char *const argv[], struct config *c, struct cordon_err *e)
	__attribute__((warn_unused_result));

/* The defaults every config starts from. */
void cli_defaults(struct config *c);

/* Apply the long option NAME (without "--") with VALUE (NULL for an option
 * that takes none) to *c, with the checks the flag gets.  VALUE must live as
 * long as *c. */
/* --proxy-upstream's value into c->proxy_upstream (without credentials)
 * and c->proxy_upstream_auth ("USER:PASS" decoded, or NULL).  -EINVAL with
 * a message that never repeats the value (it may hold a password). */
int cli_upstream_split(struct config *c, const char *v, struct cordon_err *e)
	__attribute__((warn_unused_result));

int cli_apply(struct config *c, const char *name, const char *value, struct cordon_err *e)
	__attribute__((warn_unused_result));

/* The --help text. */
extern const char cli_usage[];

#endif
