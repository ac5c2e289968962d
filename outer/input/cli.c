/* cli.c: see cli.h.  A hand-written parser rather than getopt_long: it keeps
 * no global state (so unit tests can call it repeatedly), never prints, and
 * stops at the first operand so the command's own flags are never ours. */
#include "input/cli.h"
#include "input/policy.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "hex.h"
#include "grow.h"

const char *const config_default_protect[] = { ".git", ".codex", ".agents", ".aws", NULL };
const char *const config_default_dotfiles[] = {
	".bashrc", ".bash_profile", ".profile", ".zshrc", ".zprofile", ".gitconfig", ".gitmodules",
	".ripgreprc", ".mcp.json", ".vscode", ".idea", ".claude", ".cursor", NULL,
};

int config_is_default_name(const char *name)
{
	for (const char *const *d = config_default_protect; *d; d++)
		if (strcmp(*d, name) == 0)
			return 1;
	for (const char *const *d = config_default_dotfiles; *d; d++)
		if (strcmp(*d, name) == 0)
			return 1;
	return 0;
}

int config_default_protects(const struct config *c, const char *name)
{
	if (!c->default_protect || !config_is_default_name(name))
		return 0;
	for (size_t i = 0; i < c->unprotect.n; i++)
		if (strcmp(c->unprotect.v[i], name) == 0)
			return 0;
	return 1;
}

enum opt_id {
	O_WRITE, O_READ_ONLY, O_DENY_READ, O_PROTECT, O_NO_DEFAULT_PROTECT, O_TMP,
	O_FULL_WRITE, O_CWD, O_NET, O_ALLOW_UNIX, O_PID_NS, O_SETENV, O_UNSETENV,
	O_CLEAR_ENV, O_VERBOSE, O_TIMEOUT, O_REQUIRE_LANDLOCK, O_VERSION, O_HELP,
	O_ALLOW_NO_LANDLOCK, O_PROTECT_MISSING, O_CACHE, O_GIT, O_KILL_AFTER, O_ALLOW_DOMAIN,
	O_DENY_DOMAIN, O_PROXY_UPSTREAM, O_ATTRIBUTION_TOKEN, O_NET_LOG, O_POLICY,
	O_REPORT, O_JSON, O_CACHES, O_DIE_WITH_PARENT, O_TMP_SIZE, O_LIMIT_MEMORY,
	O_LIMIT_PIDS, O_LIMIT_CPU, O_EXPLAIN_PATH, O_UNPROTECT, O_ALLOW_UNIX_SOCKET,
};

struct opt {
	const char *name;
	char shortname;
	int has_value;
	enum opt_id id;
};

static const struct opt opts[] = {
	{ "write", 'w', 1, O_WRITE },
	{ "read-only", 0, 1, O_READ_ONLY },
	{ "deny-read", 0, 1, O_DENY_READ },
	{ "protect", 0, 1, O_PROTECT },
	{ "no-default-protect", 0, 0, O_NO_DEFAULT_PROTECT },
	{ "unprotect", 0, 1, O_UNPROTECT },
	{ "tmp", 0, 1, O_TMP },
	{ "full-write", 0, 0, O_FULL_WRITE },
	{ "cwd", 'C', 1, O_CWD },
	{ "net", 0, 1, O_NET },
	{ "allow-unix-sockets", 0, 0, O_ALLOW_UNIX },
	{ "allow-unix-socket", 0, 1, O_ALLOW_UNIX_SOCKET },
	{ "pid-ns", 0, 1, O_PID_NS },
	{ "setenv", 0, 1, O_SETENV },
	{ "unsetenv", 0, 1, O_UNSETENV },
	{ "clear-env", 0, 0, O_CLEAR_ENV },
	{ "verbose", 'v', 0, O_VERBOSE },
	{ "timeout", 0, 1, O_TIMEOUT },
	{ "require-landlock", 0, 0, O_REQUIRE_LANDLOCK },
	{ "allow-no-landlock", 0, 0, O_ALLOW_NO_LANDLOCK },
	{ "protect-missing", 0, 1, O_PROTECT_MISSING },
	{ "cache", 0, 1, O_CACHE },
	{ "git", 0, 1, O_GIT },
	{ "kill-after", 0, 1, O_KILL_AFTER },
	{ "allow-domain", 0, 1, O_ALLOW_DOMAIN },
	{ "deny-domain", 0, 1, O_DENY_DOMAIN },
	{ "proxy-upstream", 0, 1, O_PROXY_UPSTREAM },
	{ "attribution-token", 0, 1, O_ATTRIBUTION_TOKEN },
	{ "net-log", 0, 1, O_NET_LOG },
	{ "policy", 0, 1, O_POLICY },
	{ "report", 0, 1, O_REPORT },
	{ "json", 0, 0, O_JSON },
	{ "path", 0, 1, O_EXPLAIN_PATH },
	{ "caches", 0, 0, O_CACHES },
	{ "die-with-parent", 0, 0, O_DIE_WITH_PARENT },
	{ "tmp-size", 0, 1, O_TMP_SIZE },
	{ "limit-memory", 0, 1, O_LIMIT_MEMORY },
	{ "limit-pids", 0, 1, O_LIMIT_PIDS },
	{ "limit-cpu", 0, 1, O_LIMIT_CPU },
	{ "version", 0, 0, O_VERSION },
	{ "help", 'h', 0, O_HELP },
};

const char cli_usage[] =
"usage: cordon [OPTIONS] [--] COMMAND [ARG...]\n"
"       cordon explain [OPTIONS] [--] COMMAND [ARG...]\n"
"       cordon doctor | cordon reclaim | cordon --version | cordon --help\n"
"       cordon prefix ARGS | cordon shell ARGS   (as cordon-prefix, cordon-sh)\n"
"\n"
"Runs COMMAND with the whole filesystem read-only except the writable roots,\n"
"no network, no capabilities, a fresh PID namespace and a seccomp filter.\n"
"\n"
"  -w, --write PATH         make PATH writable (repeatable); .git .codex .agents\n"
"                           .aws directly inside it stay read-only\n"
"      --read-only PATH     keep PATH read-only inside a writable root\n"
"      --deny-read PATH     make PATH (file, directory or glob) unreadable\n"
"      --protect NAME       protect NAME inside every writable root too\n"
"      --no-default-protect do not protect .git .codex .agents .aws\n"
"      --unprotect NAME     do not protect this one default name (repeatable)\n"
"      --tmp private|host   /tmp is a private tmpfs (default) or the host's,\n"
"                           writable\n"
"      --full-write         the whole filesystem writable (protected names and\n"
"                           denials still hold)\n"
"  -C, --cwd DIR            working directory (default: the current one)\n"
"      --net none           no network but a private loopback (default)\n"
"      --allow-unix-sockets make every host Unix socket the mounts show\n"
"                           reachable.  Dangerous: Docker's or D-Bus's socket\n"
"                           is a way out.  Without it, Unix sockets work among\n"
"                           the command's own processes and reach nothing else\n"
"      --pid-ns auto|isolate|inherit  a fresh PID namespace, or the host's\n"
"                           (auto, the default: the host's only where /proc\n"
"                           cannot be mounted afresh, as in a container)\n"
"      --setenv K=V         set K in the command's environment\n"
"      --unsetenv K         remove K from the command's environment\n"
"      --clear-env          start the command with an empty environment\n"
"      --timeout SECONDS    after SECONDS, SIGTERM to the command, and the end of\n"
"                           the sandbox --kill-after seconds later; exit 124\n"
"      --protect-missing watch|mount  a missing protected name stays absent and\n"
"                           creating it stops the run (watch, the default), or\n"
"                           is an empty read-only mount point (mount)\n"
"      --git read-only|commit  a protected .git: read-only as a whole (default),\n"
"                           or commit: git's own data (objects, refs, index,\n"
"                           HEAD, logs, ...) writable, and what makes git run a\n"
"                           program or read configuration (config, hooks, info,\n"
"                           alternates, ...) read-only, or absent and watched\n"
"      --cache private|none  private (default): Go, npm, pip, yarn, pnpm, ccache,\n"
"                           pre-commit and XDG_CACHE_HOME caches go to a writable\n"
"                           directory per workspace, $XDG_CACHE_HOME/cordon/NAME;\n"
"                           none: they stay where they are (read-only)\n"
"      --kill-after SECONDS after a forwarded SIGTERM/SIGINT/SIGHUP or the\n"
"                           timeout's SIGTERM, SIGKILL the sandbox after SECONDS\n"
"                           (default 10)\n"
"      --net proxy|full     network only through cordon's allowlisting proxy,\n"
"                           or the host's network\n"
"      --allow-domain PAT   allow PAT through the proxy (implies --net proxy):\n"
"                           host, *.host (subdomains), **.host (both), :PORT\n"
"      --deny-domain PAT    refuse PAT even if allowed\n"
"      --proxy-upstream tcp:[USER:PASS@]HOST:PORT|unix:[USER:PASS@]/PATH\n"
"                           send allowed connections to this proxy (with\n"
"                           Proxy-Authorization: Basic when USER:PASS given)\n"
"      --attribution-token T  identify this run to the upstream proxy\n"
"      --net-log FILE       one JSON line per proxied connection\n"
"      --policy FILE        read settings from a JSON policy file (cordon's or\n"
"                           srt's format); flags extend its lists and override\n"
"                           its single values\n"
"      --report FILE        write a JSON run report when the run ends, however\n"
"                           it ends\n"
"      --die-with-parent    end the sandbox when cordon's parent dies\n"
"      --tmp-size BYTES     size of the private /tmp and /dev/shm, each (K, M, G\n"
"                           allowed; default 1 GiB, at most a quarter of the memory)\n"
"      --limit-pids N       at most N tasks in the sandbox (default 4096)\n"
"      --limit-memory BYTES RLIMIT_DATA of each process, and the total of the\n"
"                           sandbox where it gets a cgroup (cordon doctor)\n"
"      --limit-cpu SECONDS  RLIMIT_CPU of each process, and the CPU time of the\n"
"                           whole sandbox where it gets a cgroup (cordon doctor)\n"
"      --require-landlock   refuse to run where Landlock is unavailable\n"
"      --allow-no-landlock  as root, accept a sandbox without Landlock\n"
"  -v, --verbose            say what is set up, on stderr\n"
"\n"
"cordon explain [--json] ...: every path rule and why, network, environment,\n"
"seccomp rules and the bwrap argv; --json as one object.\n"
"cordon explain --path P [--path P2...] [OPTIONS]: may the command of a run\n"
"with OPTIONS read, write (or connect to) P, why, and what would allow it.\n"
"cordon reclaim [--caches]\n"
"\n"
"Exit status: the command's; 128+N if it died of signal N; 124 timeout;\n"
"125 cordon could not build the sandbox (nothing ran); 126 COMMAND is not\n"
"executable; 127 COMMAND was not found.\n";

static const struct opt *opt_long(const char *name, size_t len)
{
	for (size_t i = 0; i < sizeof(opts) / sizeof(opts[0]); i++)
		if (strlen(opts[i].name) == len && strncmp(opts[i].name, name, len) == 0)
			return &opts[i];
	return NULL;
}

static const struct opt *opt_short(char c)
{
	for (size_t i = 0; i < sizeof(opts) / sizeof(opts[0]); i++)
		if (opts[i].shortname == c)
			return &opts[i];
	return NULL;
}

static int list_add(struct strlist *l, const char *s, struct cordon_err *e)
{
	if (grow_reserve(&l->v, &l->cap, l->n + 1, sizeof(*l->v)) < 0)
		return err_set(e, ENOMEM, "out of memory");
	l->v[l->n++] = s;
	return 0;
}

/* Takes ownership of key (freed here on failure; NULL means out of memory). */
static int env_add(struct config *c, char *key, const char *value,
		   struct cordon_err *e)
{
	if (!key || grow_reserve(&c->env, &c->capenv, c->nenv + 1, sizeof(*c->env)) < 0) {
		free(key);
		return err_set(e, ENOMEM, "out of memory");
	}
	c->env[c->nenv].key = key;
	c->env[c->nenv].value = value;
	c->nenv++;
	return 0;
}

static int check_path_value(const char *flag, const char *v, struct cordon_err *e)
{
	if (v[0] == '\0')
		return err_set(e, EINVAL, "%s needs a non-empty path", flag);
	if (strlen(v) >= PATH_MAX)
		return err_set(e, ENAMETOOLONG, "%s: path is too long", flag);
	return 0;
}

/* A protected name is one path component: "a/b", ".", ".." would let the
 * protection land somewhere else than directly inside each root. */
static int check_protect_name(const char *flag, const char *v, struct cordon_err *e)
{
	if (!v[0] || strchr(v, '/') || strcmp(v, ".") == 0 || strcmp(v, "..") == 0)
		return err_set(e, EINVAL,
			       "%s %s: give a single file name such as .git, not a path", flag, v);
	return 0;
}

/* A whole number from 1 to max, for FLAG; BYTES values may end in K, M or G
 * (powers of 1024). */
static int parse_count(const char *flag, const char *v, int bytes,
		       unsigned long long max, unsigned long long *out,
		       struct cordon_err *e)
{
	char *end = NULL;
	errno = 0;
	unsigned long long n = strtoull(v, &end, 10);
	unsigned shift = 0;
	if (bytes && end && end != v && end[0] && !end[1]) {
		shift = end[0] == 'K' || end[0] == 'k' ? 10
		      : end[0] == 'M' || end[0] == 'm' ? 20
		      : end[0] == 'G' || end[0] == 'g' ? 30 : 0;
		if (shift)
			end++;
	}
	if (errno || !end || *end || v[0] < '0' || v[0] > '9' || n == 0 ||
	    n > (max >> shift))
		return err_set(e, EINVAL, "%s %s: expected a whole number%s from 1 to %llu",
			       flag, v, bytes ? " of bytes (K, M, G allowed)" : "", max);
	*out = n << shift;
	return 0;
}

/* Keep s until config_free; NULL (s freed) when out of memory. */
static char *config_own(struct config *c, char *s)
{
	if (!s || grow_reserve(&c->owned, &c->capowned, c->nowned + 1, sizeof(*c->owned)) < 0) {
		free(s);
		return NULL;
	}
	c->owned[c->nowned++] = s;
	return s;
}

/* USER:PASS as in a URL's userinfo: %XX decoded.  The decoded bytes go into
 * an HTTP header (base64), but a control byte in a password is far more
 * likely a pasting accident than a credential: refused. */
static int upstream_userinfo(const char *in, size_t len, char *out, size_t *outlen)
{
	size_t n = 0, colons = 0;
	for (size_t i = 0; i < len; i++) {
		int ch = (unsigned char)in[i];
		if (in[i] == '%') {
			int hi = i + 2 < len ? hex_digit(in[i + 1]) : -1;
			int lo = hi >= 0 ? hex_digit(in[i + 2]) : -1;
			if (lo < 0)
				return -1;
			ch = hi * 16 + lo;
			i += 2;
		} else if (in[i] == ':' && !colons) {
			colons = 1;
			out[n++] = ':'; /* the separator */
			continue;
		}
		if (ch < 0x20 || ch == 0x7f || (ch == ':' && !colons))
			return -1; /* RFC 7617: no ':' in the user name */
		out[n++] = (char)ch;
	}
	if (colons != 1 || out[0] == ':')
		return -1;
	out[n] = '\0';
	*outlen = n;
	return 0;
}

/* --proxy-upstream tcp:[USER:PASS@]HOST:PORT | unix:[USER:PASS@]/PATH.
 * The credentials are split off here, once: c->proxy_upstream never holds
 * them, so explain, the report and the bridge's command line cannot show
 * them (cordon hands them to the bridge in a memfd). */
int cli_upstream_split(struct config *c, const char *v, struct cordon_err *e)
{
	const char *body = strncmp(v, "tcp:", 4) == 0 ? v + 4 : strncmp(v, "unix:", 5) == 0 ? v + 5 : NULL;
	if (!body)
		return err_set(e, EINVAL, "--proxy-upstream: expected tcp:[USER:PASS@]HOST:PORT or "
			       "unix:[USER:PASS@]/PATH");
	/* A host never holds '@' (a password may: the last one ends it); a
	 * unix path may: there, credentials only before the path's '/'. */
	int unix_path = body == v + 5;
	const char *at = unix_path ? strchr(body, '@') : strrchr(body, '@'), *slash = strchr(body, '/');
	if (unix_path && at && slash && slash < at)
		at = NULL;
	c->proxy_upstream_auth = NULL;
	if (!at) {
		if (unix_path && body[0] != '/')
			return err_set(e, EINVAL, "--proxy-upstream unix:PATH: the path must be absolute");
		c->proxy_upstream = v;
		return 0;
	}
	size_t ulen = (size_t)(at - body), alen = 0;
	char *auth = malloc(ulen + 1);
	char *bare = malloc(strlen(v) - ulen);
	if (!auth || !bare || upstream_userinfo(body, ulen, auth, &alen) < 0) {
		int oom = !auth || !bare;
		free(auth);
		free(bare);
		/* The value is not echoed: it holds a password. */
		return oom ? err_set(e, ENOMEM, "out of memory")
			   : err_set(e, EINVAL, "--proxy-upstream: the credentials before '@' must be "
				     "USER:PASSWORD (percent-encode ':', '@' and '%%' inside them; no "
				     "control characters)");
	}
	(void)snprintf(bare, strlen(v) - ulen, "%.*s%s", (int)(body - v), v, at + 1);
	if (!config_own(c, auth)) {
		free(bare);
		return err_set(e, ENOMEM, "out of memory");
	}
	if (!config_own(c, bare))
		return err_set(e, ENOMEM, "out of memory");
	c->proxy_upstream = bare;
	c->proxy_upstream_auth = auth;
	return 0;
}

static int apply(struct config *c, const struct opt *o, const char *value, struct cordon_err *e)
{
	/* cli_parse gives a value to every option that takes one. */
	const char *v = value ? value : "";
	char flag[40] = "--";
	strncat(flag, o->name, sizeof(flag) - 3);

	switch (o->id) {
	case O_WRITE:
	case O_READ_ONLY:
	case O_DENY_READ:
	case O_CWD: {
		int r = check_path_value(flag, v, e);
		if (r < 0)
			return r;
		if (o->id == O_CWD) {
			c->cwd = v;
			return 0;
		}
		struct strlist *l = o->id == O_WRITE ? &c->write
				  : o->id == O_READ_ONLY ? &c->read_only : &c->deny_read;
		return list_add(l, v, e);
	}
	case O_EXPLAIN_PATH: {
		int r = check_path_value(flag, v, e);
		return r < 0 ? r : list_add(&c->explain_paths, v, e);
	}
	case O_PROTECT: {
		int r = check_protect_name(flag, v, e);
		return r < 0 ? r : list_add(&c->protect, v, e);
	}
	case O_UNPROTECT: {
		int r = check_protect_name(flag, v, e);
		if (r < 0)
			return r;
		if (!config_is_default_name(v))
			return err_set(e, EINVAL, "--unprotect %s: not one of the names cordon protects "
				       "by default (a name given with --protect: leave that out)", v);
		return list_add(&c->unprotect, v, e);
	}
	case O_NO_DEFAULT_PROTECT:
		c->default_protect = 0;
		return 0;
	case O_TMP:
		if (strcmp(v, "private") == 0)
			c->tmp = TMP_PRIVATE;
		else if (strcmp(v, "host") == 0)
			c->tmp = TMP_HOST;
		else
			return err_set(e, EINVAL, "--tmp %s: expected private or host", v);
		return 0;
	case O_FULL_WRITE:
		c->full_write = 1;
		return 0;
	case O_NET:
		if (strcmp(v, "none") == 0)
			c->net = NET_NONE;
		else if (strcmp(v, "proxy") == 0)
			c->net = NET_PROXY;
		else if (strcmp(v, "full") == 0)
			c->net = NET_FULL;
		else
			return err_set(e, EINVAL, "--net %s: expected none, proxy or full", v);
		return 0;
	case O_ALLOW_UNIX:
		c->allow_unix_sockets = 1;
		return 0;
	case O_ALLOW_UNIX_SOCKET: {
		int r = check_path_value(flag, v, e);
		return r < 0 ? r : list_add(&c->allow_unix_socket, v, e);
	}
	case O_PID_NS:
		if (strcmp(v, "auto") == 0)
			c->pid = PID_AUTO;
		else if (strcmp(v, "isolate") == 0)
			c->pid = PID_ISOLATE;
		else if (strcmp(v, "inherit") == 0)
			c->pid = PID_INHERIT;
		else
			return err_set(e, EINVAL, "--pid-ns %s: expected auto, isolate or inherit", v);
		return 0;
	case O_SETENV: {
		const char *eq = strchr(v, '=');
		if (!eq || eq == v)
			return err_set(e, EINVAL, "--setenv %s: expected KEY=VALUE", v);
		return env_add(c, strndup(v, (size_t)(eq - v)), eq + 1, e);
	}
	case O_UNSETENV: {
		if (!v[0] || strchr(v, '='))
			return err_set(e, EINVAL, "--unsetenv %s: expected a variable name", v);
		return env_add(c, strdup(v), NULL, e);
	}
	case O_CLEAR_ENV:
		c->clear_env = 1;
		return 0;
	case O_VERBOSE:
		c->verbose = 1;
		return 0;
	case O_TIMEOUT: {
		char *end = NULL;
		errno = 0;
		unsigned long t = strtoul(v, &end, 10);
		if (errno || !end || *end || v[0] == '-' || v[0] == '\0' || t == 0 || t > 86400UL * 7)
			return err_set(e, EINVAL,
				       "--timeout %s: expected whole seconds from 1 to 604800", v);
		c->timeout = (unsigned)t;
		return 0;
	}
	case O_REQUIRE_LANDLOCK:
		c->require_landlock = 1;
		return 0;
	case O_ALLOW_NO_LANDLOCK:
		c->allow_no_landlock = 1;
		return 0;
	case O_PROTECT_MISSING:
		if (strcmp(v, "watch") == 0)
			c->protect_missing = PROTECT_MISSING_WATCH;
		else if (strcmp(v, "mount") == 0)
			c->protect_missing = PROTECT_MISSING_MOUNT;
		else
			return err_set(e, EINVAL, "--protect-missing %s: expected watch or mount", v);
		return 0;
	case O_GIT:
		if (strcmp(v, "read-only") == 0)
			c->git = GIT_READ_ONLY;
		else if (strcmp(v, "commit") == 0)
			c->git = GIT_COMMIT;
		else
			return err_set(e, EINVAL, "--git %s: expected read-only or commit", v);
		return 0;
	case O_CACHE:
		if (strcmp(v, "private") == 0)
			c->cache = CACHE_PRIVATE;
		else if (strcmp(v, "none") == 0)
			c->cache = CACHE_NONE;
		else
			return err_set(e, EINVAL, "--cache %s: expected private or none", v);
		return 0;
	case O_KILL_AFTER: {
		unsigned long long n = 0;
		int r = parse_count(flag, v, 0, 3600, &n, e);
		if (r < 0)
			return r;
		c->kill_after = (unsigned)n;
		return 0;
	}
	case O_ALLOW_DOMAIN:
	case O_DENY_DOMAIN:
		if (!v[0])
			return err_set(e, EINVAL, "%s needs a domain pattern", flag);
		if (o->id == O_ALLOW_DOMAIN && c->net == NET_NONE)
			c->net = NET_PROXY; /* an allowlist implies the proxy */
		return list_add(o->id == O_ALLOW_DOMAIN ? &c->allow_domain : &c->deny_domain, v, e);
	case O_PROXY_UPSTREAM:
		return cli_upstream_split(c, v, e);
	case O_ATTRIBUTION_TOKEN:
		if (!v[0])
			return err_set(e, EINVAL, "--attribution-token needs a value");
		c->attribution_token = v;
		return 0;
	case O_NET_LOG:
	case O_POLICY:
	case O_REPORT: {
		int r = check_path_value(flag, v, e);
		if (r < 0)
			return r;
		*(o->id == O_NET_LOG ? &c->net_log : o->id == O_POLICY ? &c->policy : &c->report) = v;
		return 0;
	}
	case O_JSON:
		c->json = 1;
		return 0;
	case O_CACHES:
		c->reclaim_caches = 1;
		return 0;
	case O_DIE_WITH_PARENT:
		c->die_with_parent = 1;
		return 0;
	case O_TMP_SIZE:
		return parse_count(flag, v, 1, 1ULL << 40, &c->tmp_size, e);
	case O_LIMIT_MEMORY:
		return parse_count(flag, v, 1, 1ULL << 44, &c->limit_memory, e);
	case O_LIMIT_PIDS: {
		unsigned long long n = 0;
		int r = parse_count(flag, v, 0, 4194304, &n, e);
		if (r < 0)
			return r;
		c->limit_pids = (unsigned long)n;
		return 0;
	}
	case O_LIMIT_CPU: {
		unsigned long long n = 0;
		int r = parse_count(flag, v, 0, 86400ULL * 365, &n, e);
		if (r < 0)
			return r;
		c->limit_cpu = (unsigned)n;
		return 0;
	}
	case O_VERSION:
		c->mode = MODE_VERSION;
		return 0;
	case O_HELP:
		c->mode = MODE_HELP;
		return 0;
	}
	return err_set(e, EINVAL, "internal: unhandled option %s", flag);
}

/* Settings the parser knows but this build cannot yet carry out.  A setting
 * named here is refused (125), never silently dropped: the command must not
 * run with less than it asked for.  Each entry goes when its feature lands. */
static int refuse_unbuilt(const struct config *c, struct cordon_err *e)
{
	if ((c->deny_domain.n || c->proxy_upstream || c->net_log) && c->net != NET_PROXY)
		return err_set(e, EINVAL, "--deny-domain, --proxy-upstream and --net-log need "
			       "--net proxy (or an --allow-domain)");
	if (c->attribution_token && !c->proxy_upstream)
		return err_set(e, EINVAL, "--attribution-token needs --proxy-upstream");
	return 0;
}

void cli_defaults(struct config *c)
{
	c->default_protect = 1;
	c->mode = MODE_RUN;
	c->protect_missing = PROTECT_MISSING_WATCH;
	c->cache = CACHE_PRIVATE;
	c->kill_after = 10;
}

int cli_apply(struct config *c, const char *name, const char *value, struct cordon_err *e)
{
	const struct opt *o = opt_long(name, strlen(name));
	if (!o || (o->has_value != (value != NULL)))
		return err_set(e, EINVAL, "internal: no option --%s%s", name, value ? " VALUE" : "");
	return apply(c, o, value, e);
}

/* The flags onto *c; the index of the first operand in *first. */
static int parse_flags(int argc, const char *const argv[], struct config *c, int *first,
		       struct cordon_err *e)
{
	int i = 1;
	if (argc > 1) {
		const char *sub = argv[1];
		if (strcmp(sub, "explain") == 0)
			c->mode = MODE_EXPLAIN, i = 2;
		else if (strcmp(sub, "doctor") == 0)
			c->mode = MODE_DOCTOR, i = 2;
		else if (strcmp(sub, "reclaim") == 0)
			c->mode = MODE_RECLAIM, i = 2;
	}

	for (; i < argc; i++) {
		const char *a = argv[i];
		const struct opt *o = NULL;
		const char *v = NULL;

		if (strcmp(a, "--") == 0) {
			i++;
			break;
		}
		if (a[0] != '-' || a[1] == '\0')
			break;
		if (a[1] == '-') {
			const char *name = a + 2;
			const char *eq = strchr(name, '=');
			o = opt_long(name, eq ? (size_t)(eq - name) : strlen(name));
			if (!o)
				return err_set(e, EINVAL, "unknown option %s; see cordon --help", a);
			if (eq) {
				if (!o->has_value)
					return err_set(e, EINVAL, "--%s takes no value", o->name);
				v = eq + 1;
			}
		} else {
			o = opt_short(a[1]);
			if (!o)
				return err_set(e, EINVAL, "unknown option %s; see cordon --help", a);
			if (a[2] != '\0') {
				if (!o->has_value)
					return err_set(e, EINVAL, "unknown option %s; see cordon --help", a);
				v = a + 2;
			}
		}
		if (o->has_value && !v) {
			if (i + 1 >= argc)
				return err_set(e, EINVAL, "--%s needs a value", o->name);
			/* `cordon -w -- make` is a forgotten path, not a root named --. */
			if (strcmp(argv[i + 1], "--") == 0)
				return err_set(e, EINVAL, "--%s needs a value before --, which ends "
					       "cordon's options (a file named -- is ./--)", o->name);
			v = argv[++i];
		}
		int r = apply(c, o, v, e);
		if (r < 0 || (r = list_add(&c->flags_given, o->name, e)) < 0)
			return r;
	}
	*first = i;
	return 0;
}

/* With --policy: the file's settings on a fresh config, then the flags over
 * them (lists extend the file's, single values override it). */
static int parse_with_policy(int argc, const char *const argv[], struct config *c, int *first,
			     struct cordon_err *e)
{
	struct config p = { 0 };
	cli_defaults(&p);
	int r = policy_load(c->policy, c->cwd, &p, e);
	if (r == 0)
		r = parse_flags(argc, argv, &p, first, e);
	if (r < 0) {
		config_free(&p);
		return r;
	}
	config_free(c);
	*c = p;
	return 0;
}

int cli_parse(int argc, char *const argv[], struct config *c, struct cordon_err *e)
{
	int i = 1;
	cli_defaults(c);
	int r = parse_flags(argc, (const char *const *)argv, c, &i, e);
	if (r < 0)
		return r;
	enum cordon_mode sub_mode = c->mode;
	if (c->mode == MODE_VERSION || c->mode == MODE_HELP)
		return 0;
	if (c->policy && (r = parse_with_policy(argc, (const char *const *)argv, c, &i, e)) < 0)
		return r;
	c->cmd = i < argc ? argv + i : NULL;
	if (c->explain_paths.n && sub_mode != MODE_EXPLAIN)
		return err_set(e, EINVAL, "--path goes with cordon explain");
	/* explain --path asks about the sandbox, not a command: any will do. */
	static char *const any_cmd[] = { "true", NULL };
	if (sub_mode == MODE_EXPLAIN && c->explain_paths.n && !c->cmd)
		c->cmd = any_cmd;
	if ((sub_mode == MODE_RUN || sub_mode == MODE_EXPLAIN) && !c->cmd)
		return err_set(e, EINVAL, "no command given; usage: cordon [OPTIONS] -- COMMAND [ARG...]");
	if ((sub_mode == MODE_DOCTOR || sub_mode == MODE_RECLAIM) && c->cmd)
		return err_set(e, EINVAL, "cordon %s takes no command",
			       sub_mode == MODE_DOCTOR ? "doctor" : "reclaim");
	if (c->json && sub_mode != MODE_EXPLAIN)
		return err_set(e, EINVAL, "--json goes with cordon explain");
	if (c->reclaim_caches && sub_mode != MODE_RECLAIM)
		return err_set(e, EINVAL, "--caches goes with cordon reclaim");
	if (c->attribution_token && !c->proxy_upstream)
		return err_set(e, EINVAL, "--attribution-token needs --proxy-upstream");
	if (c->require_landlock && c->allow_no_landlock)
		return err_set(e, EINVAL, "--require-landlock and --allow-no-landlock contradict each other");
	return refuse_unbuilt(c, e);
}

void config_free(struct config *c)
{
	free(c->write.v);
	free(c->write_from.v);
	free(c->read_only.v);
	free(c->deny_read.v);
	free(c->protect.v);
	free(c->explain_paths.v);
	free(c->unprotect.v);
	free(c->allow_unix_socket.v);
	free(c->allow_domain.v);
	free(c->deny_domain.v);
	free(c->warnings.v);
	free(c->flags_given.v);
	free(c->policy_flags.v);
	free(c->policy_keys.v);
	for (size_t i = 0; i < c->nowned; i++)
		free(c->owned[i]);
	free(c->owned);
	for (size_t i = 0; i < c->nenv; i++)
		free((char *)c->env[i].key);
	free(c->env);
	memset(c, 0, sizeof(*c));
}
