/* explain_print.c: see explain_print.h.  The rows come from policy_view, the
 * effective settings from policy_out; this file only lays them out. */
#include "explain_print.h"
#include "plan/gitdir.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include "observe/budgets.h"
#include "input/policy_out.h"
#include "plan/caches.h"
#include "plan/env.h"
#include "plan/offline.h"
#include "plan/policy_view.h"
#include "seccomp_policy.h"

#define JSON_CAP (16u << 20)

/* The origin of env[i]: the file's k-th setenv/unsetenv, or the flag. */
static void env_origin(const struct config *c, size_t i, char *buf, size_t size)
{
	const char *flag = c->env[i].value ? "setenv" : "unsetenv";
	struct strlist same = { 0 };
	size_t k = 0;
	for (size_t j = 0; j < i && j < c->nenv_file; j++)
		k += (c->env[j].value != NULL) == (c->env[i].value != NULL);
	same.n = same.nfile = i < c->nenv_file ? k + 1 : 0;
	policy_view_list_origin(c, &same, i < c->nenv_file ? k : 0, flag, buf, size);
}

/* One row of the environment's changes: an operation of the flags or the
 * policy file, or one of cordon's own. */
struct env_row {
	const char *op;       /* "set" or "unset" */
	const char *name;
	size_t name_len;
	const char *value;    /* NULL for unset */
	const char *why;
	int replaced;         /* the caller had it, with another value */
};

typedef void env_row_fn(void *ctx, const struct env_row *row);

static size_t entry_key_len(const char *entry)
{
	const char *eq = strchr(entry, '=');
	return eq ? (size_t)(eq - entry) : strlen(entry);
}

static int named_by_op(const struct config *c, const char *key, size_t kl)
{
	for (size_t i = 0; i < c->nenv; i++)
		if (strlen(c->env[i].key) == kl && strncmp(c->env[i].key, key, kl) == 0)
			return 1;
	return 0;
}

/* The caller's value of key, NULL when it has none or it is not passed on. */
static const char *caller_value(const struct config *c, const struct explain_env *env,
				const char *key)
{
	size_t kl = strlen(key);
	if (c->clear_env || !env)
		return NULL;
	for (char *const *p = env->caller; p && *p; p++)
		if (strncmp(*p, key, kl) == 0 && (*p)[kl] == '=')
			return *p + kl + 1;
	return NULL;
}

/* Why cordon itself changed key: the module that did says. */
static const char *own_why(const struct config *c, const char *key)
{
	const char *why = env_why(c, key);
	if (!why)
		why = caches_env_why(key);
	if (!why)
		why = offline_env_why(key);
	return why;
}

/* Every change, in order: the flags' and the file's operations, then what
 * cordon sets, replaces or removes itself (from the command's environment
 * as a run builds it, compared with the caller's).  A value of cordon's
 * that the caller had already is listed too: cordon sets it. */
static int env_rows(const struct config *c, const struct explain_env *env, env_row_fn *fn,
		    void *ctx, struct cordon_err *e)
{
	char why[VIEW_WHY_MAX];
	for (size_t i = 0; i < c->nenv; i++) {
		env_origin(c, i, why, sizeof(why));
		const char *had = caller_value(c, env, c->env[i].key);
		struct env_row row = { c->env[i].value ? "set" : "unset", c->env[i].key,
				       strlen(c->env[i].key), c->env[i].value, why,
				       c->env[i].value && had && strcmp(had, c->env[i].value) != 0 };
		fn(ctx, &row);
	}
	if (!env || !env->command) {
		if (!named_by_op(c, "TMPDIR", 6))
			fn(ctx, &(struct env_row){ "set", "TMPDIR", 6, "/tmp",
						   env_why(c, "TMPDIR"), 0 });
		return 0;
	}
	struct env_change *d;
	size_t n;
	if (env_diff(c->clear_env ? NULL : env->caller, env->command, &d, &n) < 0)
		return err_set(e, ENOMEM, "out of memory");
	for (size_t i = 0; i < n; i++) {
		char key[256];
		size_t kl = entry_key_len(d[i].entry);
		if (named_by_op(c, d[i].entry, kl) || kl >= sizeof(key))
			continue;
		memcpy(key, d[i].entry, kl);
		key[kl] = '\0';
		const char *w = own_why(c, key);
		if (d[i].op == ENV_CHANGE_SAME && !w)
			continue; /* the caller's, passed on */
		struct env_row row = { d[i].op == ENV_CHANGE_UNSET ? "unset" : "set", d[i].entry, kl,
				       d[i].op == ENV_CHANGE_UNSET ? NULL : d[i].entry + kl + 1,
				       w ? w : "cordon", d[i].op == ENV_CHANGE_REPLACE };
		fn(ctx, &row);
	}
	free(d);
	return 0;
}

/* --- text ---------------------------------------------------------------- */

static void text_paths(FILE *out, const struct policy_view *v)
{
	int w = 4;
	for (size_t i = 0; i < v->n; i++) {
		int l = (int)strlen(v->rows[i].path);
		if (l > w)
			w = l < 60 ? l : 60;
	}
	fprintf(out, "path rules (later rows win where paths nest):\n");
	fprintf(out, "  %-*s  %-9s  %s\n", w, "PATH", "ACCESS", "WHY");
	for (size_t i = 0; i < v->n; i++)
		fprintf(out, "  %-*s  %-9s  %s\n", w, v->rows[i].path,
			policy_view_access(v->rows[i].access), v->rows[i].why);
}

static void text_list(FILE *out, const struct config *c, const char *label,
		      const struct strlist *l, const char *flag)
{
	char why[VIEW_WHY_MAX];
	for (size_t i = 0; i < l->n; i++) {
		policy_view_list_origin(c, l, i, flag, why, sizeof(why));
		fprintf(out, "  %-6s %s  (%s)\n", label, l->v[i], why);
	}
}

/* The mode's origin; --allow-domain (or a policy's allow list) implies the
 * proxy when no mode was given. */
static void net_origin(const struct config *c, char *why, size_t size)
{
	policy_view_origin(c, "net", why, size);
	if (strcmp(why, "default") == 0 && c->net == NET_PROXY)
		(void)snprintf(why, size, "implied by the allowed domains");
}

static void text_network(FILE *out, const struct config *c)
{
	char why[VIEW_WHY_MAX];
	net_origin(c, why, sizeof(why));
	fprintf(out, "\nnetwork: %s  (%s)\n", policy_out_net_mode(c->net), why);
	if (c->net == NET_NONE)
		fprintf(out, "  a private network namespace with its own loopback only\n");
	text_list(out, c, "allow", &c->allow_domain, "allow-domain");
	text_list(out, c, "deny", &c->deny_domain, "deny-domain");
	if (c->proxy_upstream)
		fprintf(out, "  upstream %s%s%s\n", c->proxy_upstream,
			c->proxy_upstream_auth ? " (with credentials, not shown)" : "",
			c->attribution_token ? " (with an attribution token)" : "");
	policy_view_origin(c, "allow-unix-sockets", why, sizeof(why));
	struct seccomp_opts so = { c->allow_unix_sockets };
	fprintf(out, "  unix sockets: %s  (%s)\n", seccomp_policy_unix_mechanism(&so, 0), why);
	text_list(out, c, "host socket", &c->allow_unix_socket, "allow-unix-socket");
}

static void text_env_row(void *ctx, const struct env_row *r)
{
	FILE *out = ctx;
	if (r->value)
		fprintf(out, "  %-7s %.*s=%s  (%s%s)\n", r->replaced ? "replace" : "set",
			(int)r->name_len, r->name, r->value, r->why,
			r->replaced ? "; the caller's value is replaced" : "");
	else
		fprintf(out, "  %-7s %.*s  (%s)\n", "unset", (int)r->name_len, r->name, r->why);
}

static int text_env(FILE *out, const struct config *c, const struct explain_env *env,
		    struct cordon_err *e)
{
	char why[VIEW_WHY_MAX];
	policy_view_origin(c, "clear-env", why, sizeof(why));
	fprintf(out, "\nenvironment: %s  (%s)\n",
		c->clear_env ? "starts empty" : "the caller's, with these changes", why);
	return env_rows(c, env, text_env_row, out, e);
}

static const char *pid_ns_why(const struct procmode_facts *pm)
{
	if (pm->verdict == PROCMODE_NOT_PROBED && pm->inherit)
		return "--pid-ns inherit";
	return procmode_verdict_words(pm->verdict);
}

void explain_pid_ns_json(struct json_out *j, const struct procmode_facts *pm)
{
	json_out_object(j, "pid_namespace");
	json_out_str(j, "mode", pm->inherit ? "inherit" : "isolate");
	json_out_str(j, "why", pid_ns_why(pm));
	json_out_bool(j, "sysctl_read_only", pm->sysctl_ro);
	json_out_end(j);
}

static void text_run(FILE *out, const struct config *c, const struct procmode_facts *pm)
{
	fprintf(out, "\nrun: pid namespace %s (%s); timeout %u s (0: none); kill-after %u s;%s\n",
		pm->inherit ? "the caller's, with its /proc read-only: the command sees its "
			      "processes; Landlock scopes signals and ptrace" : "isolated",
		pid_ns_why(pm), c->timeout, c->kill_after,
		c->die_with_parent ? " ends with its parent;" : "");
	if (c->policy)
		fprintf(out, "policy file: %s (%s format; its relative paths resolve against %s, %s)\n",
			c->policy, c->policy_srt ? "srt" : "cordon",
			c->policy_base ? c->policy_base : "?",
			c->policy_srt ? "the run's working directory, as srt does"
				      : "the file's directory");
}

static void text_limits(FILE *out, const struct limits_plan *p)
{
	fprintf(out, "limits: processes %lu (%s)", p->pids, limits_how(p, LIMITS_PIDS));
	if (p->data)
		fprintf(out, "; memory %llu bytes (%s)", p->data, limits_how(p, LIMITS_MEMORY));
	if (p->cpu)
		fprintf(out, "; CPU %u s (%s)", p->cpu, limits_how(p, LIMITS_CPU));
	fprintf(out, "; inotify and fanotify (%s)", limits_how(p, LIMITS_WATCHES));
	fputc('\n', out);
}

/* What each sandbox may take of the counts it shares with its caller
 * (budgets.h), and what a run of cordon does when the caller has no inotify
 * instance left for its watch. */
static void text_budgets(FILE *out)
{
	struct budget b[BUDGETS_N];
	budgets_read(b);
	fprintf(out, "per-user counts, each sandbox's budget of the caller's limit:");
	for (size_t i = 0; i < BUDGETS_N; i++) {
		if (!b[i].known)
			continue;
		if (b[i].sandbox == ULLONG_MAX)
			fprintf(out, "%s %s unlimited", i ? ";" : "", b[i].name);
		else
			fprintf(out, "%s %s %llu of %llu", i ? ";" : "", b[i].name, b[i].sandbox,
				b[i].limit);
	}
	fprintf(out, "\nmissing protected names: watched with one inotify instance of the "
		"caller's; when none is left they get empty read-only placeholders instead\n");
}

static void json_budgets(struct json_out *j)
{
	struct budget b[BUDGETS_N];
	budgets_read(b);
	json_out_array(j, "budgets");
	for (size_t i = 0; i < BUDGETS_N; i++) {
		if (!b[i].known)
			continue;
		json_out_object(j, NULL);
		json_out_str(j, "count", b[i].name);
		if (b[i].limit == ULLONG_MAX)
			json_out_null(j, "caller_limit");
		else
			json_out_int(j, "caller_limit", (long long)b[i].limit);
		if (b[i].sandbox == ULLONG_MAX)
			json_out_null(j, "sandbox");
		else
			json_out_int(j, "sandbox", (long long)b[i].sandbox);
		json_out_end(j);
	}
	json_out_end(j);
	json_out_str(j, "watch_fallback", "placeholders when the caller has no inotify instance "
		     "or watch left");
}

void explain_limits_json(struct json_out *j, const struct limits_plan *p)
{
	json_out_object(j, "limits");
	json_out_object(j, "pids");
	if (p->pids_way != LIMITS_PIDS_NONE)
		json_out_int(j, "max", (long long)p->pids);
	else
		json_out_null(j, "max");
	json_out_str(j, "how", limits_how(p, LIMITS_PIDS));
	json_out_end(j);
	json_out_object(j, "memory");
	if (p->data)
		json_out_int(j, "bytes", (long long)p->data);
	else
		json_out_null(j, "bytes");
	json_out_str(j, "how", limits_how(p, LIMITS_MEMORY));
	json_out_end(j);
	json_out_object(j, "cpu");
	if (p->cpu)
		json_out_int(j, "seconds", p->cpu);
	else
		json_out_null(j, "seconds");
	json_out_str(j, "how", limits_how(p, LIMITS_CPU));
	json_out_end(j);
	json_out_object(j, "watches");
	json_out_bool(j, "shared", p->watches_shared && !p->watches_err);
	json_out_str(j, "how", limits_how(p, LIMITS_WATCHES));
	json_out_end(j);
	json_out_end(j);
}

static void text_rules(FILE *out, const char *title, const struct seccomp_rule_desc *t, size_t n)
{
	fprintf(out, "\n%s:\n", title);
	for (size_t i = 0; i < n; i++)
		fprintf(out, "  %-18s %s: %s\n", t[i].syscall, t[i].when,
			t[i].match == SECCOMP_POLICY_SUPERVISED ? "cordon-inner's answer"
			: t[i].errno_value ? strerror(t[i].errno_value) : "kills the process");
}

/* The command's filter, and the others this run would load: the bridge's
 * (--net proxy) and the one added in the caller's PID namespace. */
static void text_seccomp(FILE *out, const struct config *c, const struct procmode_facts *pm)
{
	size_t n;
	const struct seccomp_rule_desc *t = seccomp_policy_table(&n);
	text_rules(out, "seccomp rules (everything else allowed)", t, n);
	if (c->net == NET_PROXY) {
		t = seccomp_policy_bridge_table(&n);
		text_rules(out, "bridge filter: cordon-bridge's own, once it holds its listeners "
			   "(everything else allowed)", t, n);
	}
	if (pm->inherit) {
		t = seccomp_policy_hostpid_table(&n);
		text_rules(out, "inherit-mode host-pid filter: added to the command's in the caller's "
			   "PID namespace (everything else allowed; another ABI is left to the "
			   "command's filter)", t, n);
	}
}

/* --- JSON ---------------------------------------------------------------- */

static void json_list(struct json_out *j, const struct config *c, const char *key,
		      const struct strlist *l, const char *flag)
{
	char why[VIEW_WHY_MAX];
	json_out_array(j, key);
	for (size_t i = 0; i < l->n; i++) {
		policy_view_list_origin(c, l, i, flag, why, sizeof(why));
		json_out_object(j, NULL);
		json_out_str(j, "pattern", l->v[i]);
		json_out_str(j, "why", why);
		json_out_end(j);
	}
	json_out_end(j);
}

static void json_env_row(void *ctx, const struct env_row *r)
{
	struct json_out *j = ctx;
	json_out_object(j, NULL);
	json_out_str(j, "op", r->op);
	json_out_strn(j, "name", r->name, r->name_len);
	if (r->value)
		json_out_str(j, "value", r->value);
	json_out_str(j, "why", r->why);
	json_out_bool(j, "replaced", r->replaced);
	json_out_end(j);
}

static int json_env(struct json_out *j, const struct config *c, const struct explain_env *env,
		    struct cordon_err *e)
{
	json_out_object(j, "env");
	json_out_bool(j, "clear", c->clear_env);
	json_out_array(j, "changes");
	int rc = env_rows(c, env, json_env_row, j, e);
	json_out_end(j);
	json_out_end(j);
	return rc;
}

/* The rows, and the cache directory's (--cache private): a run opened it
 * as a writable root, whose row it retags; explain opens none, and adds the
 * row for the directory a run would use. */
static int build_view(const struct config *c, const struct resolved *r,
		      const struct protect_decision *d, const char *cache_dir,
		      struct policy_view *v, struct cordon_err *e)
{
	char why[VIEW_WHY_MAX];
	int rc = policy_view_build(c, r, d, v, e);
	if (rc < 0 || !cache_dir || !cache_dir[0])
		return rc;
	policy_view_origin(c, "cache", why, sizeof(why));
	(void)snprintf(why + strlen(why), sizeof(why) - strlen(why),
		       ": the workspace's tool caches (cache private)%s",
		       c->mode == MODE_EXPLAIN ? ", made at the first run" : "");
	if (policy_view_retag(v, cache_dir, VIEW_CACHE, why) == -ENOENT &&
	    policy_view_add(v, cache_dir, VIEW_CACHE, "%s", why) < 0) {
		policy_view_free(v);
		return err_set(e, ENOMEM, "out of memory");
	}
	return 0;
}

int explain_policy_json(struct json_out *j, const struct config *c, const struct resolved *r,
			const struct protect_decision *d, const char *cache_dir,
			const struct explain_env *env, struct cordon_err *e)
{
	struct policy_view v;
	char why[VIEW_WHY_MAX];
	int rc = build_view(c, r, d, cache_dir, &v, e);
	if (rc < 0)
		return rc;
	json_out_object(j, "policy_file");
	json_out_str(j, "path", c->policy);
	json_out_str(j, "format", c->policy ? (c->policy_srt ? "srt" : "cordon") : NULL);
	/* Which rule the file's relative paths followed, and the directory. */
	json_out_str(j, "relative_to", c->policy ? (c->policy_srt ? "working_directory"
								 : "file_directory") : NULL);
	json_out_str(j, "relative_base", c->policy_base);
	json_out_strs(j, "warnings", c->warnings.v, c->warnings.n);
	json_out_end(j);
	json_out_array(j, "paths");
	for (size_t i = 0; i < v.n; i++) {
		json_out_object(j, NULL);
		json_out_str(j, "path", v.rows[i].path);
		json_out_str(j, "access", policy_view_access(v.rows[i].access));
		json_out_str(j, "why", v.rows[i].why);
		json_out_end(j);
	}
	json_out_end(j);
	policy_view_free(&v);
	json_out_object(j, "network");
	json_out_str(j, "mode", policy_out_net_mode(c->net));
	net_origin(c, why, sizeof(why));
	json_out_str(j, "why", why);
	json_list(j, c, "allow", &c->allow_domain, "allow-domain");
	json_list(j, c, "deny", &c->deny_domain, "deny-domain");
	json_out_str(j, "upstream", c->proxy_upstream);
	json_out_bool(j, "upstream_credentials", c->proxy_upstream_auth != NULL);
	json_out_bool(j, "allow_unix_sockets", c->allow_unix_sockets);
	struct seccomp_opts so = { c->allow_unix_sockets };
	json_out_str(j, "unix_sockets", seccomp_policy_unix_mechanism(&so, 1));
	json_list(j, c, "host_sockets", &c->allow_unix_socket, "allow-unix-socket");
	json_out_end(j);
	if ((rc = json_env(j, c, env, e)) < 0)
		return rc;
	policy_out_json(j, "effective", c);
	return 0;
}

static const char *git_role(enum gitdir_role r)
{
	switch (r) {
	case GITDIR_DATA:
		return "rw";
	case GITDIR_CODE:
		return "ro/watched";
	case GITDIR_HOLDER:
		return "rw, pinned";
	case GITDIR_STATE:
		return "rw, checked";
	case GITDIR_EACH_WORKTREE:
	case GITDIR_EACH_MODULE:
		return "git dir";
	}
	return "?";
}

/* --git commit: the rule, one row per entry of plan/gitdir.c's table. */
static void text_gitdir(FILE *out, const struct config *c)
{
	if (c->git != GIT_COMMIT)
		return;
	fprintf(out, "\ngit directories: --git commit, the rule for each protected .git "
		"(wt: also a linked worktree\'s git dir):\n");
	fprintf(out, "  %-30s %-12s WHY\n", "ENTRY", "ACCESS");
	for (size_t i = 0; i < gitdir_nrules; i++) {
		const struct gitdir_rule *g = &gitdir_rules[i];
		fprintf(out, "  %-30s %-12s %s%s\n", g->path[0] ? g->path : ".", git_role(g->role),
			g->scopes & GITDIR_WORKTREE ? "(wt) " : "", g->why);
	}
}

static void json_gitdir(struct json_out *j, const struct config *c)
{
	if (c->git != GIT_COMMIT)
		return;
	json_out_array(j, "gitdir_rules");
	for (size_t i = 0; i < gitdir_nrules; i++) {
		json_out_object(j, NULL);
		json_out_str(j, "entry", gitdir_rules[i].path);
		json_out_str(j, "access", git_role(gitdir_rules[i].role));
		json_out_bool(j, "worktree", (gitdir_rules[i].scopes & GITDIR_WORKTREE) != 0);
		json_out_str(j, "why", gitdir_rules[i].why);
		json_out_end(j);
	}
	json_out_end(j);
}

static void json_rules(struct json_out *j, const char *key, const struct seccomp_rule_desc *t,
		       size_t n)
{
	json_out_array(j, key);
	for (size_t i = 0; i < n; i++) {
		json_out_object(j, NULL);
		json_out_str(j, "syscall", t[i].syscall);
		json_out_str(j, "when", t[i].when);
		json_out_str(j, "action", t[i].match == SECCOMP_POLICY_SUPERVISED ? "supervised"
					  : t[i].errno_value ? "errno" : "kill");
		if (t[i].errno_value) {
			json_out_int(j, "errno", t[i].errno_value);
			json_out_str(j, "error", strerror(t[i].errno_value));
		}
		json_out_end(j);
	}
	json_out_end(j);
}

static int print_json(FILE *out, const struct config *c, const struct resolved *r,
		      const struct protect_decision *d, const char *cache_dir,
		      const struct explain_env *env, const struct limits_plan *lim,
		      const struct procmode_facts *pm,
		      const struct argv *bwrap, struct cordon_err *e)
{
	struct json_out j;
	size_t n;
	const struct seccomp_rule_desc *t = seccomp_policy_table(&n);
	json_out_init(&j, JSON_CAP);
	json_out_object(&j, NULL);
	int rc = explain_policy_json(&j, c, r, d, cache_dir, env, e);
	if (rc < 0) {
		json_out_free(&j);
		return rc;
	}
	explain_limits_json(&j, lim);
	json_budgets(&j);
	json_gitdir(&j, c);
	explain_pid_ns_json(&j, pm);
	json_rules(&j, "seccomp", t, n);
	if (c->net == NET_PROXY) {
		t = seccomp_policy_bridge_table(&n);
		json_rules(&j, "bridge_seccomp", t, n);
	}
	if (pm->inherit) {
		t = seccomp_policy_hostpid_table(&n);
		json_rules(&j, "host_pid_seccomp", t, n);
	}
	json_out_array(&j, "bwrap_argv");
	for (size_t i = 0; i < bwrap->n; i++)
		json_out_str(&j, NULL, bwrap->v[i]);
	json_out_end(&j);
	json_out_end(&j);
	rc = json_out_finish(&j);
	if (rc == 0)
		fprintf(out, "%s\n", j.buf);
	else
		(void)err_set(e, -rc, "explain --json: the output does not fit in %u bytes", JSON_CAP);
	json_out_free(&j);
	return rc;
}

int explain_print(FILE *out, const struct config *c, const struct resolved *r,
		  const struct protect_decision *d, const char *cache_dir,
		  const struct explain_env *env, const struct limits_plan *lim,
		  const struct procmode_facts *pm, const struct argv *bwrap, struct cordon_err *e)
{
	if (c->json)
		return print_json(out, c, r, d, cache_dir, env, lim, pm, bwrap, e);
	struct policy_view v;
	int rc = build_view(c, r, d, cache_dir, &v, e);
	if (rc < 0)
		return rc;
	text_paths(out, &v);
	policy_view_free(&v);
	text_gitdir(out, c);
	text_network(out, c);
	if ((rc = text_env(out, c, env, e)) < 0)
		return rc;
	text_run(out, c, pm);
	text_limits(out, lim);
	text_budgets(out);
	text_seccomp(out, c, pm);
	fprintf(out, "\nbwrap argv (one argument per line):\n");
	for (size_t i = 0; i < bwrap->n; i++)
		fprintf(out, "%s\n", bwrap->v[i]);
	return 0;
}
