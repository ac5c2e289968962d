/* cli.h: command-line parsing into struct config.  Pure: no filesystem access,
 * no printing, no exit; every error is a cordon_err naming the flag. */
#ifndef CORDON_CLI_H
#define CORDON_CLI_H

#include "config.h"
#include "err.h"

/* Parse argv into *c (zeroed by the caller).  0 or -errno with *e filled. */
int cli_parse(int argc, char *const argv[], struct config *c, struct cordon_err *e)
	__attribute__((warn_unused_result));

/* The --help text. */
extern const char cli_usage[];

#endif
