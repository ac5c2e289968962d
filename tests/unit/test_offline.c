/* test_offline.c: plan/offline.c, fewer retries without a network. */
#include <criterion/criterion.h>

#include <string.h>

#include "plan/env.h"
#include "plan/offline.h"

Test(offline, retries_off_unless_the_caller_set_them)
{
	struct argv a = { 0 };
	struct cordon_err e = { 0 };
	cr_assert_eq(argv_push(&a, "HOME=/h"), 0);
	cr_assert_eq(argv_push(&a, "PIP_RETRIES=3"), 0);
	cr_assert_eq(argv_push(&a, "NPM_CONFIG_FETCH_RETRIES=5"), 0);
	cr_assert_eq(offline_env(&a, &e), 0);
	cr_assert_str_eq(env_get(&a, "PIP_RETRIES"), "3");
	cr_assert_null(env_get(&a, "npm_config_fetch_retries"), "npm reads any case");
	cr_assert_str_eq(env_get(&a, "CARGO_NET_RETRY"), "0");
	argv_free(&a);
	cr_assert_eq(argv_push(&a, "pip_retries=3"), 0);
	cr_assert_eq(offline_env(&a, &e), 0);
	cr_assert_str_eq(env_get(&a, "PIP_RETRIES"), "0", "pip reads upper case only");
	cr_assert_str_eq(env_get(&a, "npm_config_fetch_retries"), "0");
	argv_free(&a);
}

Test(offline, every_variable_set_has_a_reason)
{
	cr_assert_not_null(offline_env_why("npm_config_fetch_retries"));
	cr_assert_not_null(offline_env_why("NPM_CONFIG_FETCH_RETRIES"));
	cr_assert_not_null(offline_env_why("PIP_RETRIES"));
	cr_assert_not_null(offline_env_why("CARGO_NET_RETRY"));
	cr_assert_null(offline_env_why("PATH"));
}
