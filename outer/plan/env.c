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

#define ENV_PROXY_URL "http://127.0.0.1:3128"

static int env_named_by_op(const struct config *c, const char *key)
{
	for (size_t i = 0; i < c->nenv; i++)
		if (strcmp(c->env[i].key, key) == 0)
			return 1;
	return 0;
}

/* A path ssh's ProxyCommand (run by a shell) reads as one word. */
static int env_shell_safe(const char *p)
{
	for (; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		      (*p >= '0' && *p <= '9') || strchr("/._+-", *p)))
			return 0;
	return 1;
}

static const char *const env_proxy_key_list[] = {
	"http_proxy", "https_proxy", "HTTP_PROXY", "HTTPS_PROXY", "all_proxy", "ALL_PROXY",
	"no_proxy", "NO_PROXY", "NODE_USE_ENV_PROXY", "YARN_HTTP_PROXY", "YARN_HTTPS_PROXY",
	"JAVA_TOOL_OPTIONS", "GIT_SSH_COMMAND",
};

int env_is_proxy_key(const char *entry)
{
	for (size_t i = 0; i < sizeof(env_proxy_key_list) / sizeof(env_proxy_key_list[0]); i++)
		if (key_matches(entry, env_proxy_key_list[i]))
			return 1;
	return 0;
}

/* s single-quoted for sh, appended to out: 0 or -ENOMEM. */
static int env_sh_quote(const char *s, char **out, size_t *len)
{
	size_t need = 3;
	for (const char *p = s; *p; p++)
		need += *p == '\'' ? 4 : 1;
	char *n = realloc(*out, *len + need);
	if (!n)
		return -ENOMEM;
	*out = n;
	n += *len;
	*n++ = '\'';
	for (const char *p = s; *p; p++) {
		if (*p == '\'') {
			memcpy(n, "'\\''", 4);
			n += 4;
		} else {
			*n++ = *p;
		}
	}
	*n++ = '\'';
	*n = '\0';
	*len += need - 1;
	return 0;
}

/* GIT_SSH_COMMAND through cordon-connect.  A command the caller set
 * themselves (their key, their options, a wrapper) is kept, with the
 * ProxyCommand appended: git runs it with sh, so the option follows the
 * user's words and comes before the host git adds.  ssh takes the first
 * value of an option it is given: a ProxyCommand of the user's own wins.
 * GIT_SSH (a program, run without sh) becomes the command's first word,
 * quoted, since GIT_SSH_COMMAND would otherwise silently replace it. */
static int env_git_ssh(struct argv *env, const char *connect_path)
{
	const char *own = env_get(env, "GIT_SSH_COMMAND"), *prog = env_get(env, "GIT_SSH");
	char *v = NULL;
	size_t len = 0;
	int r = 0;
	if (own && *own)
		v = strdup(own);
	else if (prog && *prog)
		r = env_sh_quote(prog, &v, &len);
	else
		v = strdup("ssh");
	if (r < 0 || !v) {
		free(v);
		return -ENOMEM;
	}
	len = strlen(v) + strlen(connect_path) + 32;
	char *full = malloc(len);
	if (!full) {
		free(v);
		return -ENOMEM;
	}
	(void)snprintf(full, len, "%s -o ProxyCommand='%s %%h %%p'", v, connect_path);
	free(v);
	r = env_set(env, "GIT_SSH_COMMAND", full);
	free(full);
	return r;
}

int env_add_proxy(const struct config *c, const char *connect_path, struct argv *env,
		  struct cordon_err *e)
{
	static const char *const plain[][2] = {
		{ "http_proxy", ENV_PROXY_URL }, { "https_proxy", ENV_PROXY_URL },
		{ "HTTP_PROXY", ENV_PROXY_URL }, { "HTTPS_PROXY", ENV_PROXY_URL },
		{ "all_proxy", ENV_PROXY_URL }, { "ALL_PROXY", ENV_PROXY_URL },
		{ "no_proxy", "localhost,127.0.0.1,::1" }, { "NO_PROXY", "localhost,127.0.0.1,::1" },
		{ "NODE_USE_ENV_PROXY", "1" },
		{ "YARN_HTTP_PROXY", ENV_PROXY_URL }, { "YARN_HTTPS_PROXY", ENV_PROXY_URL },
	};
	static const char java[] = "-Dhttp.proxyHost=127.0.0.1 -Dhttp.proxyPort=3128 "
				   "-Dhttps.proxyHost=127.0.0.1 -Dhttps.proxyPort=3128";
	if (c->net != NET_PROXY)
		return 0;
	for (size_t i = 0; i < sizeof(plain) / sizeof(plain[0]); i++)
		if (!env_named_by_op(c, plain[i][0]) && env_set(env, plain[i][0], plain[i][1]) < 0)
			goto oom;
	if (!env_named_by_op(c, "YARN_NO_PROXY"))
		env_remove(env, "YARN_NO_PROXY");
	if (!env_named_by_op(c, "JAVA_TOOL_OPTIONS")) {
		const char *old = env_get(env, "JAVA_TOOL_OPTIONS");
		size_t len = (old ? strlen(old) + 1 : 0) + sizeof(java);
		char *v = malloc(len);
		if (!v)
			goto oom;
		(void)snprintf(v, len, "%s%s%s", old ? old : "", old && *old ? " " : "", java);
		int r = env_set(env, "JAVA_TOOL_OPTIONS", v);
		free(v);
		if (r < 0)
			goto oom;
	}
	if (connect_path && env_shell_safe(connect_path) && !env_named_by_op(c, "GIT_SSH_COMMAND") &&
	    env_git_ssh(env, connect_path) < 0)
		goto oom;
	return 0;
oom:
	return err_set(e, ENOMEM, "out of memory building the environment");
}

/* base's entry for the key of entry, NULL if none. */
static const char *env_base_entry(char *const *base, const char *entry)
{
	size_t kl = key_len(entry);
	for (char *const *p = base; p && *p; p++)
		if (strncmp(*p, entry, kl) == 0 && (*p)[kl] == '=')
			return *p;
	return NULL;
}

int env_diff(char *const *base, const struct argv *env, struct env_change **out, size_t *n)
{
	size_t nbase = 0, k = 0;
	for (char *const *p = base; p && *p; p++)
		nbase++;
	*out = NULL;
	*n = 0;
	if (env->n + nbase == 0)
		return 0;
	struct env_change *v = calloc(env->n + nbase, sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < env->n; i++) {
		const char *b = env_base_entry(base, env->v[i]);
		v[k].entry = env->v[i];
		v[k++].op = !b ? ENV_CHANGE_SET : strcmp(b, env->v[i]) == 0 ? ENV_CHANGE_SAME
							       : ENV_CHANGE_REPLACE;
	}
	for (char *const *p = base; p && *p; p++) {
		if (!strchr(*p, '='))
			continue;
		int kept = 0;
		for (size_t i = 0; i < env->n && !kept; i++)
			kept = key_len(env->v[i]) == key_len(*p) &&
			       strncmp(env->v[i], *p, key_len(*p)) == 0;
		if (!kept)
			v[k++] = (struct env_change){ ENV_CHANGE_UNSET, *p };
	}
	*out = v;
	*n = k;
	return 0;
}

const char *env_why(const struct config *c, const char *key)
{
	char entry[64];
	if (strcmp(key, "TMPDIR") == 0)
		return "default: the caller's TMPDIR may name a directory the sandbox hides or "
		       "makes read-only; /tmp is the sandbox's own";
	if (strcmp(key, "PWD") == 0)
		return "the working directory (-C, else the current one), as bwrap sets it";
	if (c->net != NET_PROXY)
		return NULL;
	if (strcmp(key, "YARN_NO_PROXY") == 0)
		return "--net proxy: Yarn refuses to run with it";
	if (strcmp(key, "GIT_SSH_COMMAND") == 0)
		return "--net proxy: ssh (git's) through cordon-connect, a CONNECT to the proxy";
	if (strcmp(key, "JAVA_TOOL_OPTIONS") == 0)
		return "--net proxy: the JVM's proxy properties, after the caller's options";
	(void)snprintf(entry, sizeof(entry), "%s=", key);
	if (env_is_proxy_key(entry))
		return "--net proxy: clients go through cordon's proxy";
	return NULL;
}
