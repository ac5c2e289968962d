/* policy_out.c: see policy_out.h.  Every setting is written, defaults
 * included, so two configs compare equal exactly when they ask for the same
 * sandbox. */
#include "input/policy_out.h"

#include <string.h>

static void list(struct json_out *j, const char *key, const struct strlist *l)
{
	json_out_strs(j, key, l->v, l->n);
}

const char *policy_out_net_mode(enum net_mode m)
{
	return m == NET_NONE ? "none" : m == NET_PROXY ? "proxy" : "full";
}

static void network(struct json_out *j, const struct config *c)
{
	json_out_object(j, "network");
	json_out_str(j, "mode", policy_out_net_mode(c->net));
	list(j, "allow", &c->allow_domain);
	list(j, "deny", &c->deny_domain);
	json_out_str(j, "upstream", c->proxy_upstream);
	json_out_str(j, "attribution_token", c->attribution_token ? "(set)" : NULL);
	json_out_bool(j, "allow_unix_sockets", c->allow_unix_sockets);
	list(j, "unix_sockets", &c->allow_unix_socket);
	json_out_end(j);
}

/* Later operations on a name win (env_build applies them in order): only
 * the last one of each name is written. */
static int last_for_name(const struct config *c, size_t i)
{
	for (size_t k = i + 1; k < c->nenv; k++)
		if (strcmp(c->env[k].key, c->env[i].key) == 0)
			return 0;
	return 1;
}

static void env(struct json_out *j, const struct config *c)
{
	json_out_object(j, "env");
	json_out_object(j, "set");
	for (size_t i = 0; i < c->nenv; i++)
		if (c->env[i].value && last_for_name(c, i))
			json_out_str(j, c->env[i].key, c->env[i].value);
	json_out_end(j);
	json_out_array(j, "unset");
	for (size_t i = 0; i < c->nenv; i++)
		if (!c->env[i].value && last_for_name(c, i))
			json_out_str(j, NULL, c->env[i].key);
	json_out_end(j);
	json_out_bool(j, "clear", c->clear_env);
	json_out_end(j);
}

void policy_out_json(struct json_out *j, const char *key, const struct config *c)
{
	json_out_object(j, key);
	list(j, "write", &c->write);
	list(j, "read_only", &c->read_only);
	list(j, "deny_read", &c->deny_read);
	list(j, "protect", &c->protect);
	list(j, "unprotect", &c->unprotect);
	json_out_bool(j, "default_protect", c->default_protect);
	json_out_str(j, "protect_missing",
		     c->protect_missing == PROTECT_MISSING_WATCH ? "watch" : "mount");
	json_out_str(j, "tmp", c->tmp == TMP_PRIVATE ? "private" : "host");
	json_out_nonzero(j, "tmp_size", c->tmp_size);
	json_out_bool(j, "full_write", c->full_write);
	json_out_str(j, "cwd", c->cwd);
	json_out_str(j, "cache", c->cache == CACHE_PRIVATE ? "private" : "none");
	json_out_str(j, "git", c->git == GIT_COMMIT ? "commit" : "read-only");
	network(j, c);
	json_out_str(j, "net_log", c->net_log);
	env(j, c);
	json_out_str(j, "pid_ns", c->pid == PID_AUTO ? "auto" : c->pid == PID_ISOLATE ? "isolate"
									    : "inherit");
	json_out_nonzero(j, "timeout", c->timeout);
	json_out_uint(j, "kill_after", c->kill_after);
	json_out_bool(j, "die_with_parent", c->die_with_parent);
	json_out_nonzero(j, "limit_memory", c->limit_memory);
	json_out_nonzero(j, "limit_pids", c->limit_pids);
	json_out_nonzero(j, "limit_cpu", c->limit_cpu);
	json_out_str(j, "report", c->report);
	json_out_bool(j, "require_landlock", c->require_landlock);
	json_out_bool(j, "allow_no_landlock", c->allow_no_landlock);
	json_out_end(j);
}
