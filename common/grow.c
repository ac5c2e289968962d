/* grow.c: see grow.h. */
#include "grow.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define GROW_MIN 8

int grow_reserve(void *arrayp, size_t *cap, size_t need, size_t elem)
{
	if (need <= *cap)
		return 0;
	if (elem == 0 || need > SIZE_MAX / elem)
		return -ENOMEM;
	size_t ncap = *cap <= SIZE_MAX / 2 / elem ? *cap * 2 : need;
	if (ncap < GROW_MIN && GROW_MIN <= SIZE_MAX / elem)
		ncap = GROW_MIN;
	if (ncap < need)
		ncap = need;
	/* The array's pointer is read and written as bytes: it is a T *, not
	 * a void *, and every object pointer has the same representation
	 * here (POSIX), so memcpy moves it without breaking aliasing rules. */
	void *v;
	memcpy(&v, arrayp, sizeof(v));
	void *nv = realloc(v, ncap * elem);
	if (!nv)
		return -ENOMEM;
	memcpy(arrayp, &nv, sizeof(nv));
	*cap = ncap;
	/* nv is the caller's now, through the memcpy (which cppcheck does
	 * not follow). */
	/* cppcheck-suppress memleak */
	return 0;
}
