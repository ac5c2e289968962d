/* argv.c: see argv.h. */
#include "argv.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "grow.h"

int argv_push(struct argv *a, const char *s)
{
	if (grow_reserve(&a->v, &a->cap, a->n + 2, sizeof(*a->v)) < 0)
		return -ENOMEM;
	char *copy = strdup(s);
	if (!copy)
		return -ENOMEM;
	a->v[a->n++] = copy;
	a->v[a->n] = NULL;
	return 0;
}

int argv_push_int(struct argv *a, long v)
{
	char buf[24];
	(void)snprintf(buf, sizeof(buf), "%ld", v);
	return argv_push(a, buf);
}

void argv_free(struct argv *a)
{
	for (size_t i = 0; i < a->n; i++)
		free(a->v[i]);
	free(a->v);
	a->v = NULL;
	a->n = a->cap = 0;
}
