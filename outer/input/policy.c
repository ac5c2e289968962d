/* policy.c: see policy.h.  input/ reads nothing but this file.
 *
 * jansson parses; each value is then handed to cli_apply as the flag it
 * stands for, so the file gets exactly the flags' checks and meaning.  The
 * keys of one object are applied in the order of the tables below, not the
 * file's, so "mode" after "allow" always wins whatever the file's order.
 * jansson keeps no positions of values: key_at finds a key's line and column
 * in the (already valid) text for the error message. */
#include "input/policy.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "input/cli.h"
#include "grow.h"

#define POLICY_MAX_BYTES (1 << 20)
#define KEY_DEPTH 4

struct pctx {
	const char *text;
	size_t len;
	const char *name;
	const char *dir;             /* relative paths resolve against it */
	struct config *c;
	struct cordon_err *e;
	const char *keys[KEY_DEPTH]; /* where the walk is, for messages */
	size_t depth;
};

enum kind {
	K_PATHS,    /* array of paths: one flag each */
	K_LIST,     /* array of strings: one flag each */
	K_PATH,     /* one path */
	K_STR,      /* one string */
	K_BOOL,     /* true: flag; false: flag_off (or nothing) */
	K_NUM,      /* whole number */
	K_BYTES,    /* whole number, or a string with K, M or G */
	K_OBJ,      /* an object walked with its own table */
	K_ENV_SET,  /* object of NAME: VALUE */
	K_WARN,     /* srt: not honoured; `flag` says what cordon does instead */
	K_SRT_CRED, /* srt credentials.files / envVars */
};

struct key {
	const char *name;
	enum kind kind;
	const char *flag;      /* cli_apply name; for K_WARN the advice */
	const char *flag_off;  /* K_BOOL false */
	const struct keytab *sub;
};

struct keytab {
	const struct key *v;
	size_t n;
};

#define TAB(a) { (a), sizeof(a) / sizeof((a)[0]) }

/* --- where a key is, for messages ---------------------------------------- */

static size_t skip_ws(const char *s, size_t n, size_t i)
{
	while (i < n && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r'))
		i++;
	return i;
}

static size_t skip_string(const char *s, size_t n, size_t i)
{
	for (i++; i < n && s[i] != '"'; i++)
		if (s[i] == '\\')
			i++;
	return i < n ? i + 1 : n;
}

static size_t skip_value(const char *s, size_t n, size_t i)
{
	size_t depth = 0;
	do {
		i = skip_ws(s, n, i);
		if (i >= n)
			return n;
		if (s[i] == '"') {
			i = skip_string(s, n, i);
		} else if (s[i] == '{' || s[i] == '[') {
			depth++;
			i++;
		} else if (s[i] == '}' || s[i] == ']') {
			depth--;
			i++;
		} else if (s[i] == ',' || s[i] == ':') {
			i++;
		} else {
			/* Always one step at least: jansson stops at a NUL
			 * byte, so what follows it need not be JSON. */
			size_t from = i;
			while (i < n && s[i] && !strchr(",]} \t\r\n", s[i]))
				i++;
			i += i == from;
		}
	} while (depth > 0 && i < n);
	return i;
}

/* The offset of the key keys[level] inside the object at i, descending
 * through keys[0..depth); the object's own offset when a key is missing. */
static size_t key_offset(const char *s, size_t n, size_t i, const char *const *keys,
			 size_t level, size_t depth)
{
	i = skip_ws(s, n, i);
	if (level >= depth || i >= n || s[i] != '{')
		return i;
	size_t obj = i++;
	for (;;) {
		i = skip_ws(s, n, i);
		if (i >= n || s[i] != '"')
			return obj;
		size_t kstart = i;
		i = skip_string(s, n, i);
		size_t klen = i - kstart - 2;
		i = skip_ws(s, n, i);
		if (i < n && s[i] == ':')
			i++;
		if (klen == strlen(keys[level]) && memcmp(s + kstart + 1, keys[level], klen) == 0)
			return level + 1 == depth ? kstart
			     : key_offset(s, n, i, keys, level + 1, depth);
		i = skip_ws(s, n, skip_value(s, n, i));
		if (i < n && s[i] == ',')
			i++;
	}
}

static void key_at(const struct pctx *x, int *line, int *col)
{
	size_t off = key_offset(x->text, x->len, 0, x->keys, 0, x->depth);
	*line = 1;
	*col = 1;
	for (size_t i = 0; i < off && i < x->len; i++) {
		if (x->text[i] == '\n') {
			(*line)++;
			*col = 1;
		} else {
			(*col)++;
		}
	}
}

/* The line of item idx of the array at the current key. */
static int item_line(const struct pctx *x, size_t idx)
{
	const char *s = x->text;
	size_t n = x->len, i = key_offset(s, n, 0, x->keys, 0, x->depth);
	if (i < n && s[i] == '"') {
		i = skip_ws(s, n, skip_string(s, n, i));
		i = skip_ws(s, n, i < n && s[i] == ':' ? i + 1 : i);
		i = skip_ws(s, n, i < n && s[i] == '[' ? i + 1 : i);
		for (size_t k = 0; k < idx && i < n; k++) {
			i = skip_ws(s, n, skip_value(s, n, i));
			i = skip_ws(s, n, i < n && s[i] == ',' ? i + 1 : i);
		}
	}
	int line = 1;
	for (size_t k = 0; k < i && k < n; k++)
		line += s[k] == '\n';
	return line;
}

static void key_name(const struct pctx *x, char *buf, size_t size)
{
	buf[0] = '\0';
	for (size_t i = 0; i < x->depth; i++) {
		size_t l = strlen(buf);
		(void)snprintf(buf + l, size - l, "%s%s", i ? "." : "", x->keys[i]);
	}
}

/* e already says what is wrong: put the file, line, column and key first. */
static int wrap(const struct pctx *x)
{
	int line, col;
	char key[128];
	key_at(x, &line, &col);
	key_name(x, key, sizeof(key));
	return err_wrap(x->e, "%s:%d:%d: %s", x->name, line, col, key);
}

static int fail(const struct pctx *x, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(const struct pctx *x, const char *fmt, ...)
{
	char msg[ERR_MSG_MAX];
	va_list ap;
	va_start(ap, fmt);
	(void)vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	(void)err_set(x->e, EINVAL, "%s", msg);
	return wrap(x);
}

/* --- values -------------------------------------------------------------- */

/* Keep s alive as long as the config; NULL (and s freed) without memory. */
static char *own(struct pctx *x, char *s)
{
	struct config *c = x->c;
	if (!s || grow_reserve(&c->owned, &c->capowned, c->nowned + 1, sizeof(*c->owned)) < 0) {
		free(s);
		(void)err_set(x->e, ENOMEM, "out of memory reading %s", x->name);
		return NULL;
	}
	c->owned[c->nowned++] = s;
	return s;
}

/* *out is never NULL, even on an error. */
static int string_of(const struct pctx *x, const json_t *v, const char **out)
{
	*out = "";
	if (!json_is_string(v))
		return fail(x, "expected a string");
	*out = json_string_value(v);
	if (strlen(*out) != json_string_length(v))
		return fail(x, "contains a NUL character");
	return 0;
}

/* "~" and "~/..." expand to $HOME; a relative path is taken from x->dir:
 * in cordon's format the policy file's directory, so that the file means
 * the same from any working directory; in srt's the run's working
 * directory, as srt itself resolves it (normalizePathForSandbox:
 * path.resolve(process.cwd(), ...)), so that a ~/.srt-settings.json with
 * allowWrite ["."] means the project, not the home directory. */
static int path_of(struct pctx *x, const json_t *v, const char **out)
{
	const char *s = NULL;
	int r = string_of(x, v, &s);
	if (r < 0)
		return r;
	const char *base = x->dir, *rest = s;
	if (s[0] == '~') {
		if (s[1] != '\0' && s[1] != '/')
			return fail(x, "%s: only ~ and ~/ expand (to $HOME), not ~user", s);
		base = getenv("HOME");
		if (!base || base[0] != '/')
			return fail(x, "%s: HOME is not set to an absolute path", s);
		rest = s[1] ? s + 2 : "";
	} else if (s[0] == '/' || s[0] == '\0') {
		base = NULL;
	}
	char *p = NULL;
	int n = base ? asprintf(&p, "%s%s%s", base, rest[0] ? "/" : "", rest)
		     : asprintf(&p, "%s", s);
	if (n < 0)
		p = NULL;
	*out = own(x, p);
	return *out ? 0 : -ENOMEM;
}

static int strlist_push(struct pctx *x, struct strlist *l, const char *s)
{
	if (grow_reserve(&l->v, &l->cap, l->n + 1, sizeof(*l->v)) < 0)
		return err_set(x->e, ENOMEM, "out of memory reading %s", x->name);
	l->v[l->n++] = s;
	return 0;
}

/* Which flag this key stood for, for explain's "why". */
static int note_origin(struct pctx *x, const char *flag)
{
	char key[128];
	key_name(x, key, sizeof(key));
	const char *k = own(x, strdup(key));
	if (!k)
		return -ENOMEM;
	int r = strlist_push(x, &x->c->policy_flags, flag);
	return r < 0 ? r : strlist_push(x, &x->c->policy_keys, k);
}

static int apply(struct pctx *x, const char *flag, const char *value)
{
	int r = cli_apply(x->c, flag, value, x->e);
	return r < 0 ? wrap(x) : note_origin(x, flag);
}

static int apply_copy(struct pctx *x, const char *flag, const char *value)
{
	if (!value)
		return fail(x, "internal: no value");
	const char *s = own(x, strdup(value));
	return s ? apply(x, flag, s) : -ENOMEM;
}

/* One string value as FLAG's argument: a path (resolved as path_of does)
 * or a string as it is. */
static int apply_value(struct pctx *x, int is_path, const char *flag, const json_t *v)
{
	const char *s = NULL;
	int r = is_path ? path_of(x, v, &s) : string_of(x, v, &s);
	if (r < 0)
		return r;
	return is_path ? apply(x, flag, s) : apply_copy(x, flag, s);
}

/* Where a writable root of the file came from, "FILE:LINE", for the
 * warning on a root that holds the home directory (plan/resolve.c). */
static int note_write_from(struct pctx *x, size_t idx)
{
	char *at = NULL;
	if (asprintf(&at, "%s:%d", x->name, item_line(x, idx)) < 0)
		at = NULL;
	const char *o = own(x, at);
	return o ? strlist_push(x, &x->c->write_from, o) : -ENOMEM;
}

static int apply_list(struct pctx *x, const struct key *k, const json_t *v)
{
	if (!json_is_array(v))
		return fail(x, "expected an array of strings");
	size_t i;
	const json_t *item;
	json_array_foreach(v, i, item) {
		int r = apply_value(x, k->kind == K_PATHS, k->flag, item);
		if (r == 0 && strcmp(k->flag, "write") == 0)
			r = note_write_from(x, i);
		if (r < 0)
			return r;
	}
	return 0;
}

static int apply_number(struct pctx *x, const struct key *k, const json_t *v)
{
	if (json_is_integer(v)) {
		char num[32];
		(void)snprintf(num, sizeof(num), "%lld", (long long)json_integer_value(v));
		return apply_copy(x, k->flag, num);
	}
	if (k->kind == K_BYTES && json_is_string(v))
		return apply_value(x, 0, k->flag, v);
	return fail(x, "expected a whole number%s", k->kind == K_BYTES ? " or a string such as \"512M\"" : "");
}

static int apply_env_set(struct pctx *x, const json_t *v)
{
	if (!json_is_object(v))
		return fail(x, "expected an object of NAME: VALUE");
	const char *name;
	const json_t *val;
	json_object_foreach((json_t *)v, name, val) {
		const char *s = NULL;
		x->keys[x->depth++] = name;
		int r = string_of(x, val, &s);
		if (r == 0 && (!name[0] || strchr(name, '=')))
			r = fail(x, "a variable name cannot be empty or contain '='");
		char *kv = NULL;
		if (r == 0 && asprintf(&kv, "%s=%s", name, s) < 0)
			kv = NULL;
		if (r == 0)
			r = (kv = own(x, kv)) ? apply(x, "setenv", kv) : -ENOMEM;
		x->depth--;
		if (r < 0)
			return r;
	}
	return 0;
}

/* An srt setting that changes nothing here, so needs no warning. */
static int inert(const json_t *v)
{
	return json_is_null(v) || json_is_false(v) || (json_is_array(v) && json_array_size(v) == 0) ||
	       (json_is_object(v) && json_object_size(v) == 0);
}

static int warn(struct pctx *x, const char *advice)
{
	char key[128], *line = NULL;
	key_name(x, key, sizeof(key));
	if (asprintf(&line, "%s: srt's %s is not honoured: %s", x->name, key, advice) < 0)
		line = NULL;
	const char *s = own(x, line);
	if (!s)
		return -ENOMEM;
	return strlist_push(x, &x->c->warnings, s);
}

/* srt's credentials.files ({path, mode}) and envVars ({name, mode}): "deny"
 * is --deny-read or --unsetenv; "mask" (a sentinel the proxy swaps back)
 * has no counterpart, so the credential is denied instead. */
static int apply_srt_cred(struct pctx *x, const struct key *k, const json_t *v)
{
	int files = strcmp(k->name, "files") == 0;
	if (!json_is_array(v))
		return fail(x, "expected an array of objects");
	size_t i;
	const json_t *item;
	json_array_foreach(v, i, item) {
		const json_t *target = json_object_get(item, files ? "path" : "name");
		const json_t *mode = json_object_get(item, "mode");
		const char *m = NULL;
		int r;
		if (!json_is_object(item) || !target || !mode)
			return fail(x, "expected objects with \"%s\" and \"mode\"", files ? "path" : "name");
		if ((r = string_of(x, mode, &m)) < 0)
			return r;
		if (strcmp(m, "deny") != 0 && strcmp(m, "mask") != 0)
			return fail(x, "mode %s: expected deny or mask", m);
		if ((r = apply_value(x, files, files ? "deny-read" : "unsetenv", target)) < 0)
			return r;
		if (strcmp(m, "mask") == 0 &&
		    (r = warn(x, files ? "a masked file is made unreadable (--deny-read) instead"
				       : "a masked variable is removed (--unsetenv) instead")) < 0)
			return r;
	}
	return 0;
}

static int walk(struct pctx *x, const json_t *obj, const struct keytab *t);

static int apply_key(struct pctx *x, const struct key *k, const json_t *v)
{
	switch (k->kind) {
	case K_PATHS:
	case K_LIST:
		return apply_list(x, k, v);
	case K_PATH:
	case K_STR:
		return apply_value(x, k->kind == K_PATH, k->flag, v);
	case K_BOOL:
		if (!json_is_boolean(v))
			return fail(x, "expected true or false");
		if (json_is_true(v))
			return k->flag ? apply(x, k->flag, NULL) : 0;
		return k->flag_off ? apply(x, k->flag_off, NULL) : 0;
	case K_NUM:
	case K_BYTES:
		return apply_number(x, k, v);
	case K_OBJ:
		return walk(x, v, k->sub);
	case K_ENV_SET:
		return apply_env_set(x, v);
	case K_WARN:
		return inert(v) ? 0 : warn(x, k->flag);
	case K_SRT_CRED:
		return apply_srt_cred(x, k, v);
	}
	return fail(x, "internal: unhandled key kind");
}

/* Unknown keys first (a typo must not pass because a later key failed),
 * then the known ones in the table's order. */
static int walk(struct pctx *x, const json_t *obj, const struct keytab *t)
{
	if (!json_is_object(obj))
		return fail(x, "expected an object");
	if (x->depth + 1 >= KEY_DEPTH)
		return fail(x, "nested too deep");
	const char *name;
	const json_t *v;
	json_object_foreach((json_t *)obj, name, v) {
		size_t i = 0;
		while (i < t->n && strcmp(t->v[i].name, name) != 0)
			i++;
		if (i == t->n) {
			x->keys[x->depth++] = name;
			int r = fail(x, "unknown key%s", x->c->policy_srt ? " in srt's format" : "");
			x->depth--;
			return r;
		}
	}
	for (size_t i = 0; i < t->n; i++) {
		v = json_object_get(obj, t->v[i].name);
		if (!v || json_is_null(v))
			continue; /* null: as if absent ("upstream": null) */
		x->keys[x->depth++] = t->v[i].name;
		int r = apply_key(x, &t->v[i], v);
		x->depth--;
		if (r < 0)
			return r;
	}
	return 0;
}

/* --- the two formats ----------------------------------------------------- */

static const struct key network_keys[] = {
	{ "allow", K_LIST, "allow-domain", NULL, NULL },
	{ "deny", K_LIST, "deny-domain", NULL, NULL },
	{ "upstream", K_STR, "proxy-upstream", NULL, NULL },
	{ "attribution_token", K_STR, "attribution-token", NULL, NULL },
	{ "allow_unix_sockets", K_BOOL, "allow-unix-sockets", NULL, NULL },
	{ "unix_sockets", K_PATHS, "allow-unix-socket", NULL, NULL },
	{ "mode", K_STR, "net", NULL, NULL }, /* last: an explicit mode wins over "allow" */
};
static const struct keytab network_tab = TAB(network_keys);

static const struct key env_keys[] = {
	{ "clear", K_BOOL, "clear-env", NULL, NULL },
	{ "unset", K_LIST, "unsetenv", NULL, NULL },
	{ "set", K_ENV_SET, NULL, NULL, NULL },
};
static const struct keytab env_tab = TAB(env_keys);

static const struct key cordon_keys[] = {
	{ "write", K_PATHS, "write", NULL, NULL },
	{ "read_only", K_PATHS, "read-only", NULL, NULL },
	{ "deny_read", K_PATHS, "deny-read", NULL, NULL },
	{ "protect", K_LIST, "protect", NULL, NULL },
	{ "unprotect", K_LIST, "unprotect", NULL, NULL },
	{ "default_protect", K_BOOL, NULL, "no-default-protect", NULL },
	{ "protect_missing", K_STR, "protect-missing", NULL, NULL },
	{ "tmp", K_STR, "tmp", NULL, NULL },
	{ "tmp_size", K_BYTES, "tmp-size", NULL, NULL },
	{ "full_write", K_BOOL, "full-write", NULL, NULL },
	{ "cwd", K_PATH, "cwd", NULL, NULL },
	{ "cache", K_STR, "cache", NULL, NULL },
	{ "git", K_STR, "git", NULL, NULL },
	{ "network", K_OBJ, NULL, NULL, &network_tab },
	{ "net_log", K_PATH, "net-log", NULL, NULL },
	{ "env", K_OBJ, NULL, NULL, &env_tab },
	{ "pid_ns", K_STR, "pid-ns", NULL, NULL },
	{ "timeout", K_NUM, "timeout", NULL, NULL },
	{ "kill_after", K_NUM, "kill-after", NULL, NULL },
	{ "die_with_parent", K_BOOL, "die-with-parent", NULL, NULL },
	{ "limit_memory", K_BYTES, "limit-memory", NULL, NULL },
	{ "limit_pids", K_NUM, "limit-pids", NULL, NULL },
	{ "limit_cpu", K_NUM, "limit-cpu", NULL, NULL },
	{ "report", K_PATH, "report", NULL, NULL },
	{ "require_landlock", K_BOOL, "require-landlock", NULL, NULL },
	{ "allow_no_landlock", K_BOOL, "allow-no-landlock", NULL, NULL },
	{ "verbose", K_BOOL, "verbose", NULL, NULL },
};
static const struct keytab cordon_tab = TAB(cordon_keys);

static const char ignored[] = "ignored; cordon has no such setting";

static const struct key srt_fs_keys[] = {
	{ "allowWrite", K_PATHS, "write", NULL, NULL },
	{ "denyWrite", K_PATHS, "read-only", NULL, NULL },
	{ "denyRead", K_PATHS, "deny-read", NULL, NULL },
	{ "allowRead", K_WARN, "denyRead paths stay unreadable in full; "
	  "list narrower denyRead paths instead", NULL, NULL },
	{ "allowGitConfig", K_WARN, "all of .git stays read-only", NULL, NULL },
	{ "disabled", K_WARN, "the filesystem policy still applies", NULL, NULL },
};
static const struct keytab srt_fs_tab = TAB(srt_fs_keys);

static const char own_proxy[] = "cordon filters with its own proxy; to relay to "
				"another proxy use --proxy-upstream";

static const struct key srt_net_keys[] = {
	{ "allowedDomains", K_LIST, "allow-domain", NULL, NULL },
	{ "deniedDomains", K_LIST, "deny-domain", NULL, NULL },
	{ "allowAllUnixSockets", K_BOOL, "allow-unix-sockets", NULL, NULL },
	{ "allowUnixSockets", K_PATHS, "allow-unix-socket", NULL, NULL },
	{ "allowLocalBinding", K_WARN, "the command may always listen on its own private "
	  "loopback, which nothing outside the sandbox reaches", NULL, NULL },
	/* cordon never asks: its allowlist is always strict */
	{ "strictAllowlist", K_BOOL, NULL, NULL, NULL },
	{ "deniedDomainReasons", K_WARN, ignored, NULL, NULL },
	{ "allowMachLookup", K_WARN, "macOS only; ignored", NULL, NULL },
	{ "httpProxyPort", K_WARN, own_proxy, NULL, NULL },
	{ "socksProxyPort", K_WARN, own_proxy, NULL, NULL },
	{ "mitmProxy", K_WARN, own_proxy, NULL, NULL },
	{ "parentProxy", K_WARN, own_proxy, NULL, NULL },
	{ "tlsTerminate", K_WARN, "cordon never terminates TLS; connections pass whole", NULL, NULL },
};
static const struct keytab srt_net_tab = TAB(srt_net_keys);

static const struct key srt_cred_keys[] = {
	{ "files", K_SRT_CRED, NULL, NULL, NULL },
	{ "envVars", K_SRT_CRED, NULL, NULL, NULL },
	{ "allowPlaintextInject", K_WARN, ignored, NULL, NULL },
	{ "awsPairs", K_WARN, ignored, NULL, NULL },
	{ "sigv4", K_WARN, ignored, NULL, NULL },
};
static const struct keytab srt_cred_tab = TAB(srt_cred_keys);

static const struct key srt_keys[] = {
	{ "filesystem", K_OBJ, NULL, NULL, &srt_fs_tab },
	{ "network", K_OBJ, NULL, NULL, &srt_net_tab },
	{ "credentials", K_OBJ, NULL, NULL, &srt_cred_tab },
	{ "ignoreViolations", K_WARN, "every violation counts", NULL, NULL },
	{ "enableWeakerNestedSandbox", K_WARN, "cordon never weakens its sandbox", NULL, NULL },
	{ "enableWeakerNetworkIsolation", K_WARN, "macOS only; ignored", NULL, NULL },
	{ "allowAppleEvents", K_WARN, "macOS only; ignored", NULL, NULL },
	{ "allowPty", K_WARN, "macOS only; cordon gives a terminal when it has one", NULL, NULL },
	{ "ripgrep", K_WARN, "cordon searches for nothing; it protects names directly "
	  "inside each writable root", NULL, NULL },
	{ "mandatoryDenySearchDepth", K_WARN, "cordon protects names directly inside each "
	  "writable root", NULL, NULL },
	{ "seccomp", K_WARN, "cordon-inner loads cordon's own filter", NULL, NULL },
	{ "bwrapPath", K_WARN, "cordon finds bwrap itself (cordon doctor says which)", NULL, NULL },
	{ "socatPath", K_WARN, ignored, NULL, NULL },
	{ "javaAgentJarPath", K_WARN, ignored, NULL, NULL },
	{ "windows", K_WARN, "Windows only; ignored", NULL, NULL },
	{ "git", K_WARN, ignored, NULL, NULL },
};
static const struct keytab srt_tab = TAB(srt_keys);

/* srt's settings always have "filesystem", and its "network" holds
 * allowedDomains/deniedDomains; cordon's have neither. */
static int is_srt(const json_t *root)
{
	const json_t *net = json_object_get(root, "network");
	return json_object_get(root, "filesystem") ||
	       (json_is_object(net) && (json_object_get(net, "allowedDomains") ||
					json_object_get(net, "deniedDomains")));
}

/* srt: an empty allowedDomains means no network at all, where its
 * deniedDomains cannot matter. */
static int srt_no_network(const json_t *root)
{
	const json_t *allow = json_object_get(json_object_get(root, "network"), "allowedDomains");
	return !allow || (json_is_array(allow) && json_array_size(allow) == 0);
}

static void mark_file_entries(struct config *c)
{
	struct strlist *lists[] = { &c->write, &c->read_only, &c->deny_read, &c->protect,
				    &c->allow_domain, &c->deny_domain };
	for (size_t i = 0; i < sizeof(lists) / sizeof(lists[0]); i++)
		lists[i]->nfile = lists[i]->n;
	c->nenv_file = c->nenv;
}

int policy_parse(const char *text, size_t len, const char *name, const char *dir,
		 const char *run_dir, struct config *c, struct cordon_err *e)
{
	json_error_t jerr;
	json_t *root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr);
	if (!root)
		return err_set(e, EINVAL, "%s:%d:%d: not valid JSON: %s", name, jerr.line,
			       jerr.column, jerr.text);
	struct pctx x = { text, len, name, dir, c, e, { 0 }, 0 };
	int r;
	if (!json_is_object(root)) {
		r = fail(&x, "the policy must be a JSON object");
	} else {
		c->policy_srt = is_srt(root);
		x.dir = c->policy_srt ? run_dir : dir;
		c->policy_base = own(&x, strdup(x.dir));
		if (!c->policy_base) {
			json_decref(root);
			return -ENOMEM;
		}
		if (c->policy_srt && srt_no_network(root)) {
			json_t *net = json_object_get(root, "network");
			if (json_is_object(net))
				(void)json_object_del(net, "deniedDomains");
		}
		r = walk(&x, root, c->policy_srt ? &srt_tab : &cordon_tab);
	}
	json_decref(root);
	if (r == 0)
		mark_file_entries(c);
	return r;
}

/* The directory relative paths in the file resolve against, absolute. */
static int policy_dir(const char *path, char *dir, size_t size, struct cordon_err *e)
{
	const char *slash = strrchr(path, '/');
	size_t n = slash ? (size_t)(slash - path) : 0;
	char cwd[PATH_MAX];
	if (path[0] == '/') {
		if (n == 0)
			n = 1; /* the file is in / */
		if (n >= size)
			return err_set(e, ENAMETOOLONG, "--policy %s: path is too long", path);
		memcpy(dir, path, n);
		dir[n] = '\0';
		return 0;
	}
	if (!getcwd(cwd, sizeof(cwd)))
		return err_sys(e, errno, "--policy %s: cannot tell the current directory", path);
	int w = snprintf(dir, size, "%s%s%.*s", cwd, n ? "/" : "", (int)n, path);
	if (w < 0 || (size_t)w >= size)
		return err_set(e, ENAMETOOLONG, "--policy %s: path is too long", path);
	return 0;
}

static int read_all(const char *path, char **text, size_t *len, struct cordon_err *e)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return err_sys(e, errno, "--policy %s: cannot open it", path);
	struct stat st;
	int r = 0;
	if (fstat(fd, &st) < 0)
		r = err_sys(e, errno, "--policy %s: cannot stat it", path);
	else if (!S_ISREG(st.st_mode))
		r = err_set(e, EINVAL, "--policy %s: not a regular file", path);
	else if (st.st_size > POLICY_MAX_BYTES)
		r = err_set(e, EFBIG, "--policy %s: larger than %d bytes", path, POLICY_MAX_BYTES);
	char *buf = r == 0 ? malloc((size_t)st.st_size + 1) : NULL;
	if (r == 0 && !buf)
		r = err_set(e, ENOMEM, "out of memory reading %s", path);
	size_t got = 0;
	while (r == 0 && got < (size_t)st.st_size) {
		ssize_t n = read(fd, buf + got, (size_t)st.st_size - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			r = err_sys(e, errno, "--policy %s: cannot read it", path);
		else if (n == 0)
			break; /* shrank meanwhile: parse what is there */
		else
			got += (size_t)n;
	}
	(void)close(fd);
	if (r < 0) {
		free(buf);
		return r;
	}
	*text = buf;
	*len = got;
	return 0;
}

/* The run's working directory, absolute: -C DIR (from the caller's
 * directory when relative), else the caller's own. */
static int policy_run_dir(const char *path, const char *cwd, char *dir, size_t size,
			  struct cordon_err *e)
{
	char here[PATH_MAX];
	if (cwd && cwd[0] == '/') {
		if (strlen(cwd) >= size)
			return err_set(e, ENAMETOOLONG, "--cwd %s: path is too long", cwd);
		memcpy(dir, cwd, strlen(cwd) + 1);
		return 0;
	}
	if (!getcwd(here, sizeof(here)))
		return err_sys(e, errno, "--policy %s: cannot tell the current directory", path);
	int w = snprintf(dir, size, "%s%s%s", here, cwd ? "/" : "", cwd ? cwd : "");
	if (w < 0 || (size_t)w >= size)
		return err_set(e, ENAMETOOLONG, "--policy %s: path is too long", path);
	return 0;
}

int policy_load(const char *path, const char *cwd, struct config *c, struct cordon_err *e)
{
	char dir[PATH_MAX], run_dir[PATH_MAX], *text = NULL;
	size_t len = 0;
	int r = policy_dir(path, dir, sizeof(dir), e);
	if (r == 0)
		r = policy_run_dir(path, cwd, run_dir, sizeof(run_dir), e);
	if (r == 0)
		r = read_all(path, &text, &len, e);
	if (r == 0)
		r = policy_parse(text, len, path, dir, run_dir, c, e);
	free(text);
	if (r == 0)
		c->policy = path;
	return r;
}
