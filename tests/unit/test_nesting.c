/* test_nesting.c: telling a cordon sandbox from the host. */
#include <criterion/criterion.h>

#include "observe/nesting.h"

Test(nesting, inside_only_with_both_signs)
{
	cr_assert(nesting_inside_cordon("cordon-inner\n", 4026532179U));
	cr_assert(nesting_inside_cordon("cordon-inner", 4026532179U));
	cr_assert(!nesting_inside_cordon("cordon-inner\n", NESTING_INIT_USERNS_INO),
		  "a PID 1 of that name on the host's user namespace is no sandbox of ours");
	cr_assert(!nesting_inside_cordon("systemd\n", 4026532179U), "another container");
	cr_assert(!nesting_inside_cordon("cordon-inner-x\n", 4026532179U));
	cr_assert(!nesting_inside_cordon(NULL, 4026532179U));
	cr_assert(!nesting_inside_cordon("cordon-inner\n", 0));
}
