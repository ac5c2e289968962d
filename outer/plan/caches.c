/* caches.c: see caches.h. */
#include "plan/caches.h"

#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "path.h"
#include "plan/env.h"

/* Each tool's own variable and its directory under the cache directory
 * ("" for the directory itself).  Not CARGO_HOME: it holds cargo's
 * configuration, credentials and the crates already downloaded beside its
 * registry cache, and moving it would hide all three (an offline build of a
 * project whose crates are in ~/.cargo would fail); cargo's build output
 * goes to the project's target/ anyway.  pnpm's store: see pnpm_store. */
static const struct {
	const char *var, *sub;
} table[] = {
	{ "XDG_CACHE_HOME", "" },
	{ "GOCACHE", "go-build" },
	{ "GOMODCACHE", "go-mod" },
	{ "npm_config_cache", "npm" },
	{ "PIP_CACHE_DIR", "pip" },
	{ "YARN_CACHE_FOLDER", "yarn" },
	{ "CCACHE_DIR", "ccache" },
	{ "PRE_COMMIT_HOME", "pre-commit" },
};

#define GO_DEFAULT_PROXY "https://proxy.golang.org,direct"

static const char *envp_get(char *const *env, const char *key)
{
	size_t kl = strlen(key);
	for (char *const *p = env; p && *p; p++)
		if (strncmp(*p, key, kl) == 0 && (*p)[kl] == '=')
			return *p + kl + 1;
	return NULL;
}

int caches_base(char *const *env, const char *home, char *out, size_t outlen,
		size_t *must_exist)
{
	char base[4096], raw[4096];
	const char *xdg = envp_get(env, "XDG_CACHE_HOME");
	const char *h = envp_get(env, "HOME");
	int n;
	if (xdg && xdg[0] == '/') {
		if (path_clean(xdg, base, sizeof(base)) < 0)
			return -ENAMETOOLONG;
		*must_exist = path_depth(base) ? path_depth(base) - 1 : 0;
		n = snprintf(raw, sizeof(raw), "%s/cordon", base);
	} else {
		if (!h || h[0] != '/')
			h = home;
		if (!h || h[0] != '/')
			return -ENOENT;
		if (path_clean(h, base, sizeof(base)) < 0)
			return -ENAMETOOLONG;
		*must_exist = path_depth(base);
		n = snprintf(raw, sizeof(raw), "%s/.cache/cordon", strcmp(base, "/") == 0 ? "" : base);
	}
	if (n < 0 || (size_t)n >= sizeof(raw) || path_clean(raw, out, outlen) < 0)
		return -ENAMETOOLONG;
	return 0;
}

static uint64_t fnv1a64(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ULL;
	for (; *s; s++) {
		h ^= (unsigned char)*s;
		h *= 0x100000001b3ULL;
	}
	return h;
}

int caches_dir_name(const char *ws, char *out, size_t outlen)
{
	char label[33];
	const char *b = strcmp(ws, "/") == 0 ? "" : path_base(ws);
	size_t n = 0;
	for (; n < sizeof(label) - 1 && b[n]; n++) {
		label[n] = b[n];
		if (!isalnum((unsigned char)b[n]) && !strchr("._-", b[n]))
			label[n] = '_';
	}
	label[n] = '\0';
	int r = snprintf(out, outlen, "%s-%016llx", n ? label : "root",
			 (unsigned long long)fnv1a64(ws));
	return r < 0 || (size_t)r >= outlen ? -ENAMETOOLONG : 0;
}

int caches_goenv_path(char *const *env, char *out, size_t outlen)
{
	const char *v = envp_get(env, "GOENV");
	int n;
	if (v && strcmp(v, "off") == 0)
		return -ENOENT;
	if (v && v[0] == '/')
		n = snprintf(out, outlen, "%s", v);
	else if ((v = envp_get(env, "XDG_CONFIG_HOME")) && v[0] == '/')
		n = snprintf(out, outlen, "%s/go/env", v);
	else if ((v = envp_get(env, "HOME")) && v[0] == '/')
		n = snprintf(out, outlen, "%s/.config/go/env", strcmp(v, "/") == 0 ? "" : v);
	else
		return -ENOENT;
	return n < 0 || (size_t)n >= outlen ? -ENAMETOOLONG : 0;
}

/* KEY=VALUE in the text of Go's env file (what `go env -w` writes), into
 * out; NULL when absent. */
static const char *goenv_get(const char *text, const char *key, char *out, size_t len)
{
	size_t kl = strlen(key);
	for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		if (strncmp(p, key, kl) != 0 || p[kl] != '=')
			continue;
		size_t vl = strcspn(p + kl + 1, "\n");
		if (vl >= len)
			return NULL;
		memcpy(out, p + kl + 1, vl);
		out[vl] = '\0';
		return out;
	}
	return NULL;
}

/* A Go setting as Go reads it: the environment first, then Go's env file. */
static const char *go_setting(char *const *host_env, const char *goenv, const char *key,
			      char *buf, size_t len)
{
	const char *v = envp_get(host_env, key);
	if (v && v[0])
		return v;
	return goenv ? goenv_get(goenv, key, buf, len) : NULL;
}

/* The host's module cache: GOMODCACHE, else GOPATH's first entry, else
 * ~/go, each from the environment or Go's env file (Go's own rule). */
static int host_modcache(char *const *host_env, const char *goenv, char *out, size_t outlen)
{
	char buf[2048];
	const char *v = go_setting(host_env, goenv, "GOMODCACHE", buf, sizeof(buf));
	int n;
	if (v && v[0] == '/') {
		n = snprintf(out, outlen, "%s", v);
	} else if ((v = go_setting(host_env, goenv, "GOPATH", buf, sizeof(buf))) && v[0] == '/') {
		n = snprintf(out, outlen, "%.*s/pkg/mod", (int)strcspn(v, ":"), v);
	} else if ((v = envp_get(host_env, "HOME")) && v[0] == '/') {
		n = snprintf(out, outlen, "%s/go/pkg/mod", strcmp(v, "/") == 0 ? "" : v);
	} else {
		return -ENOENT;
	}
	if (n < 0 || (size_t)n >= outlen)
		return -ENAMETOOLONG;
	/* GOPROXY is a list separated by ',' and '|', of URLs: a path that
	 * needs quoting is left out rather than guessed at. */
	for (const char *p = out; *p; p++)
		if (!isalnum((unsigned char)*p) && !strchr("/._-+@~", *p))
			return -EINVAL;
	return 0;
}

/* The command's GOPROXY or, when it has none, Go's env file's (which the
 * variable set here would otherwise hide), or Go's default. */
static const char *previous_proxy(const struct argv *env, const char *goenv, char *buf,
				  size_t len)
{
	const char *prev = env_get(env, "GOPROXY");
	if ((!prev || !prev[0]) && goenv)
		prev = goenv_get(goenv, "GOPROXY", buf, len);
	return prev && prev[0] ? prev : GO_DEFAULT_PROXY;
}

/* GOPROXY with the host's module cache first. */
static int go_proxy(struct argv *env, char *const *host_env, const char *goenv)
{
	char mod[2048], val[8192], buf[4096];
	if (host_modcache(host_env, goenv, mod, sizeof(mod)) < 0)
		return 0;
	int n = snprintf(val, sizeof(val), "file://%s/cache/download,", mod);
	if (n < 0 || (size_t)n >= sizeof(val))
		return 0;
	const char *prev = previous_proxy(env, goenv, buf, sizeof(buf));
	if (strncmp(prev, val, (size_t)n) == 0)
		return 0; /* there already (a cordon run inside another's environment) */
	int m = snprintf(val + n, sizeof(val) - (size_t)n, "%s", prev);
	if (m < 0 || (size_t)m >= sizeof(val) - (size_t)n)
		return 0;
	return env_set(env, "GOPROXY", val);
}

/* var was set with --setenv. */
static int explicit_op(const struct caches_in *in, const char *var)
{
	for (size_t i = 0; i < in->nops; i++)
		if (in->ops[i].value && env_key_same(in->ops[i].key, strlen(in->ops[i].key), var))
			return 1;
	return 0;
}

/* pnpm (9 and 10) finds its store only through npm_config_store_dir,
 * PNPM_HOME (then PNPM_HOME/store) or XDG_DATA_HOME: no variable of its own.
 * npm warns about an npm_config_store_dir on every command, and
 * XDG_DATA_HOME moves every program's data, so PNPM_HOME, unless the
 * caller has one: that one locates a standalone pnpm itself and stays, and
 * the store is then named through npm_config_store_dir.  A --setenv of
 * either wins. */
static int pnpm_store(struct argv *env, const struct caches_in *in, const char *dir)
{
	char path[4096];
	if (explicit_op(in, "PNPM_HOME") || explicit_op(in, "npm_config_store_dir"))
		return 0;
	int inherited = env_has(env, "PNPM_HOME");
	int n = snprintf(path, sizeof(path), inherited ? "%s/pnpm/store" : "%s/pnpm", dir);
	if (n < 0 || (size_t)n >= sizeof(path))
		return -ENAMETOOLONG;
	env_remove_all(env, "npm_config_store_dir");
	return env_set(env, inherited ? "npm_config_store_dir" : "PNPM_HOME", path);
}

int caches_env(struct argv *env, const struct caches_in *in, struct cordon_err *e)
{
	char path[4096];
	const char *dir = in->dir;
	for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++) {
		if (explicit_op(in, table[i].var))
			continue;
		env_remove_all(env, table[i].var);
		int n = table[i].sub[0] ? snprintf(path, sizeof(path), "%s/%s", dir, table[i].sub)
					: snprintf(path, sizeof(path), "%s", dir);
		if (n < 0 || (size_t)n >= sizeof(path))
			return err_set(e, ENAMETOOLONG, "cache directory %s: path too long", dir);
		if (env_set(env, table[i].var, path) < 0)
			return err_set(e, ENOMEM, "out of memory building the environment");
	}
	int r = pnpm_store(env, in, dir);
	if (r == -ENAMETOOLONG)
		return err_set(e, ENAMETOOLONG, "cache directory %s: path too long", dir);
	if (r < 0 || go_proxy(env, in->host_env, in->goenv) < 0)
		return err_set(e, ENOMEM, "out of memory building the environment");
	return 0;
}

const char *caches_env_why(const char *key)
{
	size_t kl = strlen(key);
	if (strcmp(key, "GOPROXY") == 0)
		return "--cache private: the host's Go module cache first (read, never "
		       "written), then the caller's GOPROXY";
	if (strcmp(key, "PNPM_HOME") == 0 || env_key_same(key, kl, "npm_config_store_dir"))
		return "--cache private: pnpm's store in the workspace's cache directory";
	for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++)
		if (env_key_same(key, kl, table[i].var))
			return "--cache private: in the workspace's cache directory (the host's "
			       "is read-only inside)";
	return NULL;
}

int caches_name_is_ours(const char *name)
{
	size_t n = strlen(name);
	if (n < 18 || n > 17 + 32 || name[n - 17] != '-')
		return 0;
	for (size_t i = 0; i < n - 17; i++)
		if (!isalnum((unsigned char)name[i]) && !strchr("._-", name[i]))
			return 0;
	for (size_t i = n - 16; i < n; i++)
		if (!isdigit((unsigned char)name[i]) && !(name[i] >= 'a' && name[i] <= 'f'))
			return 0;
	return strcmp(name, ".") != 0 && strcmp(name, "..") != 0;
}

enum caches_verdict caches_prune_verdict(const struct caches_entry *f)
{
	if (!f->ours)
		return CACHES_KEEP;
	if (f->ws == CACHES_WS_GONE)
		return CACHES_REMOVE_GONE;
	if (f->unused_s >= CACHES_UNUSED_S)
		return CACHES_REMOVE_UNUSED;
	return CACHES_KEEP;
}

int caches_prune_due_after(long long since_s)
{
	/* A clock set back (since < 0 from a stamp in the future) is due too:
	 * otherwise a stamp from a wrong date would stop pruning for good. */
	return since_s < 0 || since_s >= CACHES_PRUNE_EVERY_S;
}

int caches_record_matches(const char *name, const char *record, size_t len, char *ws,
			  size_t wslen)
{
	char want[CACHES_NAME_MAX];
	if (len == 0 || len >= wslen || record[0] != '/' || memchr(record, '\0', len))
		return 0;
	memcpy(ws, record, len);
	ws[len] = '\0';
	if (ws[len - 1] == '\n')
		ws[len - 1] = '\0';
	return caches_dir_name(ws, want, sizeof(want)) == 0 && strcmp(want, name) == 0;
}
