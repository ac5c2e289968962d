/* offline.c: see offline.h. */
#include "plan/offline.h"

#include <errno.h>
#include <stddef.h>
#include <string.h>
#include "plan/env.h"

static const struct {
	const char *var, *value;
} table[] = {
	{ "npm_config_fetch_retries", "0" }, /* npm, and yarn 1 through npm's settings */
	{ "PIP_RETRIES", "0" },
	{ "CARGO_NET_RETRY", "0" },
};

int offline_env(struct argv *env, struct cordon_err *e)
{
	for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++)
		if (!env_has(env, table[i].var) && env_set(env, table[i].var, table[i].value) < 0)
			return err_set(e, ENOMEM, "out of memory building the environment");
	return 0;
}

const char *offline_env_why(const char *key)
{
	for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++)
		if (env_key_same(key, strlen(key), table[i].var))
			return "--net none: no retries (nothing can be reached: the tool fails at once "
			       "with its own message)";
	return NULL;
}
