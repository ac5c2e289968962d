/* env.c: see env.h. */
#include "plan/env.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static int key_matches(const char *entry, const char *key)
{
	size_t n = strlen(key);
	return strncmp(entry, key, n) == 0 && entry[n] == '=';
}

static void env_remove(struct argv *a, const char *key)
{
	size_t j = 0;
	for (size_t i = 0; i < a->n; i++) {
		if (key_matches(a->v[i], key))
			free(a->v[i]);
		else
			a->v[j++] = a->v[i];
	}
	a->n = j;
	if (a->v)
		a->v[j] = NULL;
}

const char *env_get(const struct argv *a, const char *key)
{
	for (size_t i = 0; i < a->n; i++)
		if (key_matches(a->v[i], key))
			return a->v[i] + strlen(key) + 1;
	return NULL;
}

int env_key_same(const char *key, size_t klen, const char *var)
{
	if (klen != strlen(var))
		return 0;
	if (strncmp(var, "npm_config_", 11) == 0 || strncmp(var, "pnpm_config_", 12) == 0)
		return strncasecmp(key, var, klen) == 0;
	return strncmp(key, var, klen) == 0;
}

static size_t key_len(const char *entry)
{
	const char *eq = strchr(entry, '=');
	return eq ? (size_t)(eq - entry) : strlen(entry);
}

const char *env_find(const struct argv *a, const char *var)
{
	for (size_t i = 0; i < a->n; i++) {
		size_t kl = key_len(a->v[i]);
		if (a->v[i][kl] == '=' && env_key_same(a->v[i], kl, var))
			return a->v[i] + kl + 1;
	}
	return NULL;
}

int env_has(const struct argv *a, const char *var)
{
	return env_find(a, var) != NULL;
}

void env_remove_all(struct argv *a, const char *var)
{
	size_t j = 0;
	for (size_t i = 0; i < a->n; i++) {
		if (env_key_same(a->v[i], key_len(a->v[i]), var))
			free(a->v[i]);
		else
			a->v[j++] = a->v[i];
	}
	a->n = j;
	if (a->v)
		a->v[j] = NULL;
}

int env_set(struct argv *a, const char *key, const char *value)
{
	size_t kl = strlen(key), vl = strlen(value);
	char *s = malloc(kl + vl + 2);
	if (!s)
		return -ENOMEM;
	(void)snprintf(s, kl + vl + 2, "%s=%s", key, value);
	env_remove(a, key);
	int r = argv_push(a, s);
	free(s);
	return r;
}

int env_build(char *const *base, const struct config *c, struct argv *out,
	      struct cordon_err *e)
{
	int tmpdir_set = 0;
	memset(out, 0, sizeof(*out));
	if (!c->clear_env)
		for (char *const *p = base; p && *p; p++)
			if (strchr(*p, '=') && argv_push(out, *p) < 0)
				goto oom;
	for (size_t i = 0; i < c->nenv; i++) {
		const struct env_op *op = &c->env[i];
		if (strcmp(op->key, "TMPDIR") == 0)
			tmpdir_set = 1;
		if (!op->value)
			env_remove(out, op->key);
		else if (env_set(out, op->key, op->value) < 0)
			goto oom;
	}
	if (!tmpdir_set && env_set(out, "TMPDIR", "/tmp") < 0)
		goto oom;
	return 0;
oom:
	argv_free(out);
	return err_set(e, ENOMEM, "out of memory building the environment");
}
