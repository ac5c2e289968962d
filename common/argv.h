/* argv.h: a growable NULL-terminated argument vector.  cordon never builds a
 * command string: every exec gets an argv built here, element by element. */
#ifndef CORDON_ARGV_H
#define CORDON_ARGV_H

#include <stddef.h>
#include "sys.h"

struct argv {
	char **v;     /* v[n] == NULL once anything was pushed; owned strings */
	size_t n;
	size_t cap;
};

/* Append a copy of s.  -ENOMEM on failure, leaving *a unchanged. */
int argv_push(struct argv *a, const char *s) WUR;
/* Append the decimal form of an int (descriptor numbers in bwrap argv). */
int argv_push_int(struct argv *a, long v) WUR;
void argv_free(struct argv *a);

#endif
