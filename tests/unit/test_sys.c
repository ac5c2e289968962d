/* test_sys.c: the syscall wrappers of common/sys.c that have no other
 * module's tests around them. */
#include <criterion/criterion.h>

#include <errno.h>
#include <string.h>

#include "sys.h"

Test(sys, random_hex_is_hex_of_the_length_asked)
{
	char a[17], b[17];
	cr_assert_eq(sys_random_hex(a, 8), 0);
	cr_assert_eq(strlen(a), 16);
	cr_assert_eq(strspn(a, "0123456789abcdef"), 16, "%s", a);
	cr_assert_eq(sys_random_hex(b, 8), 0);
	cr_assert_str_neq(a, b, "two draws of 64 bits");
}

Test(sys, random_hex_refuses_more_than_it_holds)
{
	char big[200];
	cr_assert_eq(sys_random_hex(big, 65), -EINVAL);
	cr_assert_eq(sys_random_hex(big, 64), 0);
	cr_assert_eq(strlen(big), 128);
}
