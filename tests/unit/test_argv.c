/* test_argv.c: the growable argument vector. */
#include <criterion/criterion.h>

#include <stdio.h>
#include <string.h>

#include "argv.h"

Test(argv, push_copies_and_terminates)
{
	struct argv a = { 0 };
	char s[] = "hello";
	cr_assert_eq(argv_push(&a, s), 0);
	s[0] = 'J';
	cr_assert_eq(a.n, 1);
	cr_assert_str_eq(a.v[0], "hello", "the string was not copied");
	cr_assert_null(a.v[1]);
	argv_free(&a);
}

Test(argv, push_int)
{
	struct argv a = { 0 };
	cr_assert_eq(argv_push_int(&a, 3), 0);
	cr_assert_eq(argv_push_int(&a, -12), 0);
	cr_assert_eq(argv_push_int(&a, 2147483648L), 0);
	cr_assert_str_eq(a.v[0], "3");
	cr_assert_str_eq(a.v[1], "-12");
	cr_assert_str_eq(a.v[2], "2147483648");
	cr_assert_null(a.v[3]);
	argv_free(&a);
}

Test(argv, grows_past_initial_capacity)
{
	struct argv a = { 0 };
	for (int i = 0; i < 1000; i++)
		cr_assert_eq(argv_push_int(&a, i), 0);
	cr_assert_eq(a.n, 1000);
	cr_assert_geq(a.cap, 1001);
	for (int i = 0; i < 1000; i++) {
		char want[16];
		snprintf(want, sizeof(want), "%d", i);
		cr_assert_str_eq(a.v[i], want);
	}
	cr_assert_null(a.v[1000]);
	argv_free(&a);
}

Test(argv, free_resets)
{
	struct argv a = { 0 };
	cr_assert_eq(argv_push(&a, "x"), 0);
	argv_free(&a);
	cr_assert_null(a.v);
	cr_assert_eq(a.n, 0);
	cr_assert_eq(a.cap, 0);
	/* Reusable after free, and freeing an empty one is harmless. */
	cr_assert_eq(argv_push(&a, "y"), 0);
	cr_assert_str_eq(a.v[0], "y");
	argv_free(&a);
	argv_free(&a);
}
