/* explain_print.c: see explain_print.h.  The rows come from policy_view, the
 * effective settings from policy_out; this file only lays them out. */
#include "explain_print.h"

#include <errno.h>
#include <string.h>
#include "input/policy_out.h"
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

static int tmpdir_set(const struct config *c)
{
	for (size_t i = 0; i < c->nenv; i++)
		if (strcmp(c->env[i].key, "TMPDIR") == 0)
			return 1;
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
	fprintf(out, "  unix sockets: %s  (%s)\n", c->allow_unix_sockets ? "allowed" : "refused", why);
}

static void text_env(FILE *out, const struct config *c)
{
	char why[VIEW_WHY_MAX];
	policy_view_origin(c, "clear-env", why, sizeof(why));
	fprintf(out, "\nenvironment: %s  (%s)\n",
		c->clear_env ? "starts empty" : "cordon's own, with these changes", why);
	for (size_t i = 0; i < c->nenv; i++) {
		env_origin(c, i, why, sizeof(why));
		if (c->env[i].value)
			fprintf(out, "  set    %s=%s  (%s)\n", c->env[i].key, c->env[i].value, why);
		else
			fprintf(out, "  unset  %s  (%s)\n", c->env[i].key, why);
	}
	if (!tmpdir_set(c))
		fprintf(out, "  set    TMPDIR=/tmp  (default)\n");
}

static void text_run(FILE *out, const struct config *c)
{
	fprintf(out, "\nrun: pid namespace %s; timeout %u s (0: none); kill-after %u s;%s\n",
		c->pid == PID_ISOLATE ? "isolated" : "inherited", c->timeout, c->kill_after,
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
	fputc('\n', out);
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
	json_out_end(j);
}

static void text_seccomp(FILE *out)
{
	size_t n;
	const struct seccomp_rule_desc *t = seccomp_policy_table(&n);
	fprintf(out, "\nseccomp rules (everything else allowed):\n");
	for (size_t i = 0; i < n; i++)
		fprintf(out, "  %-18s %s: %s\n", t[i].syscall, t[i].when,
			t[i].errno_value ? strerror(t[i].errno_value) : "kills the process");
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

static void json_env(struct json_out *j, const struct config *c)
{
	char why[VIEW_WHY_MAX];
	json_out_object(j, "env");
	json_out_bool(j, "clear", c->clear_env);
	json_out_array(j, "changes");
	for (size_t i = 0; i < c->nenv; i++) {
		env_origin(c, i, why, sizeof(why));
		json_out_object(j, NULL);
		json_out_str(j, "op", c->env[i].value ? "set" : "unset");
		json_out_str(j, "name", c->env[i].key);
		if (c->env[i].value)
			json_out_str(j, "value", c->env[i].value);
		json_out_str(j, "why", why);
		json_out_end(j);
	}
	if (!tmpdir_set(c)) {
		json_out_object(j, NULL);
		json_out_str(j, "op", "set");
		json_out_str(j, "name", "TMPDIR");
		json_out_str(j, "value", "/tmp");
		json_out_str(j, "why", "default");
		json_out_end(j);
	}
	json_out_end(j);
	json_out_end(j);
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
			const struct protect_decision *d, const char *cache_dir, struct cordon_err *e)
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
	json_out_end(j);
	json_env(j, c);
	policy_out_json(j, "effective", c);
	return 0;
}

static int print_json(FILE *out, const struct config *c, const struct resolved *r,
		      const struct protect_decision *d, const char *cache_dir,
		      const struct limits_plan *lim, const struct argv *bwrap, struct cordon_err *e)
{
	struct json_out j;
	size_t n;
	const struct seccomp_rule_desc *t = seccomp_policy_table(&n);
	json_out_init(&j, JSON_CAP);
	json_out_object(&j, NULL);
	int rc = explain_policy_json(&j, c, r, d, cache_dir, e);
	if (rc < 0) {
		json_out_free(&j);
		return rc;
	}
	explain_limits_json(&j, lim);
	json_out_array(&j, "seccomp");
	for (size_t i = 0; i < n; i++) {
		json_out_object(&j, NULL);
		json_out_str(&j, "syscall", t[i].syscall);
		json_out_str(&j, "when", t[i].when);
		json_out_str(&j, "action", t[i].errno_value ? "errno" : "kill");
		if (t[i].errno_value) {
			json_out_int(&j, "errno", t[i].errno_value);
			json_out_str(&j, "error", strerror(t[i].errno_value));
		}
		json_out_end(&j);
	}
	json_out_end(&j);
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
		  const struct limits_plan *lim, const struct argv *bwrap, struct cordon_err *e)
{
	if (c->json)
		return print_json(out, c, r, d, cache_dir, lim, bwrap, e);
	struct policy_view v;
	int rc = build_view(c, r, d, cache_dir, &v, e);
	if (rc < 0)
		return rc;
	text_paths(out, &v);
	policy_view_free(&v);
	text_network(out, c);
	text_env(out, c);
	text_run(out, c);
	text_limits(out, lim);
	text_seccomp(out);
	fprintf(out, "\nbwrap argv (one argument per line):\n");
	for (size_t i = 0; i < bwrap->n; i++)
		fprintf(out, "%s\n", bwrap->v[i]);
	return 0;
}
