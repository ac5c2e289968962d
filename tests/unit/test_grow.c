/* test_grow.c: the growing-array helper. */
#include <criterion/criterion.h>

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#include "grow.h"

struct item {
	int a;
	long b;
};

Test(grow, first_call_allocates)
{
	struct item *v = NULL;
	size_t cap = 0;
	cr_assert_eq(grow_reserve(&v, &cap, 1, sizeof(*v)), 0);
	cr_assert_not_null(v);
	cr_assert_geq(cap, 1);
	v[0] = (struct item){ 1, 2 };
	free(v);
}

Test(grow, no_realloc_within_capacity)
{
	struct item *v = NULL;
	size_t cap = 0;
	cr_assert_eq(grow_reserve(&v, &cap, 3, sizeof(*v)), 0);
	struct item *was = v;
	size_t had = cap;
	cr_assert_eq(grow_reserve(&v, &cap, had, sizeof(*v)), 0);
	cr_assert_eq(v, was, "moved although it had room");
	cr_assert_eq(cap, had);
	free(v);
}

/* n appends: the content survives every move, and the number of
 * reallocations is logarithmic, not linear. */
Test(grow, geometric_and_keeps_content)
{
	int *v = NULL;
	size_t cap = 0, n = 0, moves = 0;
	for (int i = 0; i < 100000; i++) {
		size_t had = cap;
		cr_assert_eq(grow_reserve(&v, &cap, n + 1, sizeof(*v)), 0);
		if (cap != had) {
			moves++;
			cr_assert_geq(cap, 2 * had, "grew from %zu to %zu only", had, cap);
		}
		v[n++] = i;
	}
	cr_assert_leq(moves, 20, "%zu reallocations for 100000 appends", moves);
	for (size_t i = 0; i < n; i++)
		cr_assert_eq(v[i], (int)i);
	free(v);
}

Test(grow, jumps_to_a_large_need)
{
	char *v = NULL;
	size_t cap = 0;
	cr_assert_eq(grow_reserve(&v, &cap, 1000, 1), 0);
	cr_assert_geq(cap, 1000);
	v[999] = 'x';
	free(v);
}

/* A size past SIZE_MAX is refused before realloc.  (realloc's own failure
 * is not provoked: the sanitizer build aborts on an impossible size.) */
Test(grow, overflow_refused_unchanged)
{
	struct item *v = NULL;
	size_t cap = 0;
	cr_assert_eq(grow_reserve(&v, &cap, 4, sizeof(*v)), 0);
	struct item *was = v;
	size_t had = cap;
	cr_assert_eq(grow_reserve(&v, &cap, SIZE_MAX / sizeof(*v) + 1, sizeof(*v)), -ENOMEM);
	cr_assert_eq(v, was);
	cr_assert_eq(cap, had);
	cr_assert_eq(grow_reserve(&v, &cap, SIZE_MAX, 2), -ENOMEM);
	cr_assert_eq(v, was);
	free(v);
}
