/* test_seccomp_bpf.c: the program embedded in cordon-inner is exactly what
 * libseccomp compiles from the rule table now, for both settings. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>
#include "seccomp_bpf.h"
#include "seccomp_policy.h"

static void same_program(int allow_unix)
{
	struct sock_fprog embedded, fresh = { 0, NULL };
	struct seccomp_opts o = { allow_unix };
	struct cordon_err e;
	seccomp_bpf_program(allow_unix, &embedded);
	cr_assert_eq(seccomp_policy_export(&o, &fresh, &e), 0, "%s", e.msg);
	cr_assert_gt(embedded.len, 10);
	cr_assert_eq(embedded.len, fresh.len, "embedded %u instructions, libseccomp %u",
		     embedded.len, fresh.len);
	cr_assert_eq(memcmp(embedded.filter, fresh.filter, fresh.len * sizeof(*fresh.filter)), 0,
		     "the embedded program differs from libseccomp's: rebuild (make)");
	free(fresh.filter);
}

Test(seccomp_bpf, default_matches_libseccomp) { same_program(0); }
Test(seccomp_bpf, allow_unix_matches_libseccomp) { same_program(1); }

Test(seccomp_bpf, the_two_settings_differ)
{
	struct sock_fprog a, b;
	seccomp_bpf_program(0, &a);
	seccomp_bpf_program(1, &b);
	cr_assert(a.len != b.len || memcmp(a.filter, b.filter, a.len * sizeof(*a.filter)) != 0);
}
