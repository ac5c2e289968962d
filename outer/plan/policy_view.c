/* policy_view.c: see policy_view.h.
 *
 * The resolved paths are canonical, the config's as given: a resolved path
 * is traced back to the entry spelled the same, and otherwise to the list
 * it came from (a relative "-w ." resolves to a path spelled differently). */
#include "plan/policy_view.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "grow.h"

const char *policy_view_access(enum view_access a)
{
	static const char *const names[] = { "rw", "ro", "denied", "protected", "watched", "cache" };
	return (size_t)a < sizeof(names) / sizeof(names[0]) ? names[a] : "?";
}

int policy_view_add(struct policy_view *v, const char *path, enum view_access a,
		    const char *why, ...)
{
	if (grow_reserve(&v->rows, &v->cap, v->n + 1, sizeof(*v->rows)) < 0)
		return -ENOMEM;
	struct view_row *row = &v->rows[v->n];
	row->path = strdup(path);
	if (!row->path)
		return -ENOMEM;
	row->access = a;
	va_list ap;
	va_start(ap, why);
	(void)vsnprintf(row->why, sizeof(row->why), why, ap);
	va_end(ap);
	v->n++;
	return 0;
}

static int in_list(const struct strlist *l, const char *s)
{
	for (size_t i = 0; i < l->n; i++)
		if (strcmp(l->v[i], s) == 0)
			return 1;
	return 0;
}

/* The policy key behind the k-th use of flag NAME by the file, or NULL. */
static const char *policy_key(const struct config *c, const char *name, size_t k)
{
	for (size_t i = 0; i < c->policy_flags.n; i++)
		if (strcmp(c->policy_flags.v[i], name) == 0 && k-- == 0)
			return c->policy_keys.v[i];
	return NULL;
}

void policy_view_origin(const struct config *c, const char *name, char *buf, size_t size)
{
	const char *key = policy_key(c, name, 0);
	if (in_list(&c->flags_given, name))
		(void)snprintf(buf, size, "--%s", name);
	else if (key)
		(void)snprintf(buf, size, "policy %s", key);
	else
		(void)snprintf(buf, size, "default");
}

void policy_view_list_origin(const struct config *c, const struct strlist *l, size_t i,
			     const char *name, char *buf, size_t size)
{
	const char *key = i < l->nfile ? policy_key(c, name, i) : NULL;
	if (key)
		(void)snprintf(buf, size, "policy %s", key);
	else
		(void)snprintf(buf, size, "--%s", name);
}

/* The origin of a resolved path from list l (flag NAME); "" if l has no
 * entry for it. */
static void path_origin(const struct config *c, const struct strlist *l, const char *name,
			const char *path, char *buf, size_t size)
{
	for (size_t i = 0; i < l->n; i++) {
		if (strcmp(l->v[i], path) == 0) {
			policy_view_list_origin(c, l, i, name, buf, size);
			return;
		}
	}
	const char *key = policy_key(c, name, 0);
	if (l->n == 0)
		buf[0] = '\0';
	else if (l->nfile == 0 || !key)
		(void)snprintf(buf, size, "--%s", name);
	else if (l->nfile == l->n)
		(void)snprintf(buf, size, "policy %s", key);
	else
		(void)snprintf(buf, size, "--%s or policy %s", name, key);
}

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');
	return s ? s + 1 : path;
}

/* Why NAME is protected inside every writable root; a path bound read-only
 * like a protected name without being one is git metadata a .git names. */
static void protect_origin(const struct config *c, const char *name, char *buf, size_t size)
{
	for (size_t i = 0; i < c->protect.n; i++) {
		if (strcmp(c->protect.v[i], name) == 0) {
			policy_view_list_origin(c, &c->protect, i, "protect", buf, size);
			return;
		}
	}
	for (const char *const *n = config_default_protect; c->default_protect && *n; n++) {
		if (strcmp(*n, name) == 0 && config_default_protects(c, name)) {
			(void)snprintf(buf, size, "default protected name");
			return;
		}
	}
	for (const char *const *n = config_default_dotfiles; c->default_protect && *n; n++) {
		if (strcmp(*n, name) == 0 && config_default_protects(c, name)) {
			(void)snprintf(buf, size, "default protected dotfile");
			return;
		}
	}
	(void)snprintf(buf, size, "git metadata a .git names (git directory or hooks)");
}

static int add_roots(const struct config *c, const struct resolved *r, struct policy_view *v)
{
	char why[VIEW_WHY_MAX], tmp[VIEW_WHY_MAX];
	int rc = 0;
	for (size_t i = 0; rc == 0 && i < r->nroots; i++) {
		const char *p = r->roots[i].path;
		path_origin(c, &c->write, "write", p, why, sizeof(why));
		if (c->tmp == TMP_HOST && strcmp(p, "/tmp") == 0 && !in_list(&c->write, p)) {
			policy_view_origin(c, "tmp", tmp, sizeof(tmp));
			(void)snprintf(why, sizeof(why), "%s (tmp host)", tmp);
		}
		rc = policy_view_add(v, p, VIEW_RW, "%s", why[0] ? why : "--write");
	}
	for (size_t i = 0; rc == 0 && i < r->ncarves; i++) {
		const char *p = r->carves[i].path;
		if (r->carves[i].pin) {
			/* plan/pins.h: above a read-only path deeper than its root,
			 * or between a root and a root nested in it */
			rc = policy_view_add(v, p, VIEW_RW, "pinned in place: a directory above a "
					     "read-only path or a nested writable root cannot be "
					     "renamed");
			continue;
		}
		path_origin(c, &c->read_only, "read-only", p, why, sizeof(why));
		rc = policy_view_add(v, p, VIEW_RO, "%s", why[0] ? why : "--read-only");
	}
	return rc;
}

int policy_view_protected(struct policy_view *v, const struct config *c, const char *path,
			  enum view_protect kind)
{
	char why[VIEW_WHY_MAX];
	protect_origin(c, base_name(path), why, sizeof(why));
	switch (kind) {
	case VIEW_PROTECT_EXISTS:
		return policy_view_add(v, path, VIEW_PROTECTED, "%s: exists, read-only", why);
	case VIEW_PROTECT_WATCHED:
		return policy_view_add(v, path, VIEW_WATCHED,
				       "%s: missing; creating it stops the run", why);
	case VIEW_PROTECT_MISSING:
		return policy_view_add(v, path, VIEW_PROTECTED,
				       "%s: missing; an empty read-only mount point", why);
	case VIEW_PROTECT_OTHER_RUN:
		return policy_view_add(v, path, VIEW_PROTECTED,
				       "another run's mount point, kept in place");
	case VIEW_PROTECT_FOREIGN_LINK:
		return policy_view_add(v, path, VIEW_WATCHED,
				       "%s: another user's symbolic link in a directory others can "
				       "write; left as it is, and any other entry there stops the run",
				       why);
	}
	return -EINVAL;
}

/* A step of another user's link's way (plan/linkwalk.h). */
static int view_link_step(struct policy_view *v, const struct protect_action *a)
{
	if (a->act == PROTECT_WATCH)
		return policy_view_add(v, a->path, VIEW_WATCHED, "missing; another user's link "
				       "%s leads there: creating it stops the run", a->via);
	if (a->act == PROTECT_WATCH_LINK)
		return policy_view_add(v, a->path, VIEW_WATCHED, "on the way of another user's "
				       "link %s: any other entry there stops the run", a->via);
	return policy_view_add(v, a->path, VIEW_PROTECTED, "another user's link %s leads "
			       "there: read-only", a->via);
}

/* protect's decision, action by action (plan/protect_decide.h). */
static int add_decision(const struct config *c, const struct protect_decision *d,
			struct policy_view *v)
{
	int rc = 0;
	for (size_t i = 0; d && rc == 0 && i < d->n; i++) {
		const struct protect_action *a = &d->v[i];
		if (a->why) {
			/* --git commit: the gitdir rule (plan/gitdir.h) */
			if (a->act == PROTECT_KEEP)
				rc = policy_view_add(v, a->path, VIEW_RW, "--git commit: git's data "
						     "writable; pinned in place (%s)", a->why);
			else if (a->act == PROTECT_WATCH)
				rc = policy_view_add(v, a->path, VIEW_WATCHED, "--git commit: %s: "
						     "missing; creating it stops the run", a->why);
			else
				rc = policy_view_add(v, a->path, VIEW_PROTECTED, "--git commit: %s: "
						     "exists, read-only", a->why);
			continue;
		}
		if (a->via) {
			rc = view_link_step(v, a);
			continue;
		}
		switch (a->act) {
		case PROTECT_BIND:
			rc = policy_view_protected(v, c, a->path, VIEW_PROTECT_EXISTS);
			break;
		case PROTECT_WATCH:
			rc = policy_view_protected(v, c, a->path, VIEW_PROTECT_WATCHED);
			break;
		case PROTECT_WATCH_LINK:
			rc = policy_view_protected(v, c, a->path, VIEW_PROTECT_FOREIGN_LINK);
			break;
		case PROTECT_SHARE:
		case PROTECT_CREATE:
		case PROTECT_ADOPT:
			rc = policy_view_protected(v, c, a->path, VIEW_PROTECT_MISSING);
			break;
		case PROTECT_PIN:
			rc = policy_view_protected(v, c, a->path, VIEW_PROTECT_OTHER_RUN);
			break;
		case PROTECT_CARVE:
			rc = policy_view_add(v, a->path, VIEW_RO, "cordon's run registry, kept from the command");
			break;
		case PROTECT_KEEP:
			rc = policy_view_add(v, a->path, VIEW_RW, "pinned in place: a directory on the way "
					     "to cordon's run registry cannot be renamed");
			break;
		}
	}
	return rc;
}

int policy_view_build(const struct config *c, const struct resolved *r,
		      const struct protect_decision *d, struct policy_view *v,
		      struct cordon_err *e)
{
	char why[VIEW_WHY_MAX];
	int rc;
	memset(v, 0, sizeof(*v));
	if (c->full_write) {
		policy_view_origin(c, "full-write", why, sizeof(why));
		rc = policy_view_add(v, "/", VIEW_RW, "%s", why);
	} else {
		rc = policy_view_add(v, "/", VIEW_RO, "default: everything not listed is read-only");
	}
	if (rc == 0 && c->tmp == TMP_PRIVATE) {
		policy_view_origin(c, "tmp", why, sizeof(why));
		rc = policy_view_add(v, "/tmp", VIEW_RW, "%s: a private tmpfs (tmp private)", why);
	}
	if (rc == 0)
		rc = add_roots(c, r, v);
	if (rc == 0)
		rc = add_decision(c, d, v);
	for (size_t i = 0; rc == 0 && i < r->nmasks; i++) {
		path_origin(c, &c->deny_read, "deny-read", r->masks[i].path, why, sizeof(why));
		rc = policy_view_add(v, r->masks[i].path, VIEW_DENIED, "%s",
				     why[0] ? why : "--deny-read");
	}
	if (rc < 0) {
		policy_view_free(v);
		return err_set(e, ENOMEM, "out of memory");
	}
	return 0;
}

int policy_view_retag(struct policy_view *v, const char *path, enum view_access a, const char *why)
{
	for (size_t i = 0; i < v->n; i++) {
		if (strcmp(v->rows[i].path, path) == 0) {
			v->rows[i].access = a;
			(void)snprintf(v->rows[i].why, sizeof(v->rows[i].why), "%s", why);
			return 0;
		}
	}
	return -ENOENT;
}

void policy_view_free(struct policy_view *v)
{
	for (size_t i = 0; i < v->n; i++)
		free(v->rows[i].path);
	free(v->rows);
	memset(v, 0, sizeof(*v));
}
