/* pathquery.c: see pathquery.h. */
#include "plan/pathquery.h"

#include <fnmatch.h>
#include <stdio.h>
#include <string.h>
#include "path.h"
#include "plan/gitdir.h"

/* The number of components of a relative path ("a/b": 2). */
static size_t components(const char *rel)
{
	size_t d = *rel ? 1 : 0;
	for (const char *p = rel; *p; p++)
		if (*p == '/' && p[1] != '\0')
			d++;
	return d;
}

/* The first n components of rel into out; 0 if rel has fewer. */
static int first_components(const char *rel, size_t n, char *out, size_t len)
{
	const char *p = rel;
	for (size_t i = 0; i < n; i++) {
		if (!*p)
			return 0;
		const char *slash = strchr(p, '/');
		p = slash ? slash + 1 : p + strlen(p);
	}
	size_t l = (size_t)(p - rel);
	if (l && rel[l - 1] == '/')
		l--;
	if (l >= len)
		return 0;
	memcpy(out, rel, l);
	out[l] = '\0';
	return 1;
}

const struct gitdir_rule *pathquery_git_rule(const char *rel)
{
	const struct gitdir_rule *best = NULL;
	size_t bestdepth = 0;
	char prefix[4096];
	for (size_t i = 0; i < gitdir_nrules; i++) {
		const struct gitdir_rule *r = &gitdir_rules[i];
		size_t d = components(r->path);
		if (d == 0 || d < bestdepth || !first_components(rel, d, prefix, sizeof(prefix)))
			continue;
		if (fnmatch(r->path, prefix, FNM_PATHNAME) == 0 && d > bestdepth) {
			best = r;
			bestdepth = d;
		}
	}
	if (best && (best->role == GITDIR_EACH_MODULE || best->role == GITDIR_EACH_WORKTREE)) {
		const char *rest = rel;
		for (size_t i = 0; i < bestdepth && rest; i++) {
			const char *slash = strchr(rest, '/');
			rest = slash ? slash + 1 : NULL;
		}
		if (rest && *rest)
			return pathquery_git_rule(rest);
	}
	return best;
}

static int act_is_name(const struct protect_action *a)
{
	return !a->carve && a->act != PROTECT_KEEP && a->act != PROTECT_PIN;
}

/* The protected name (its action) that path lies at or under, NULL: none. */
static const struct protect_action *protected_at(const struct pathquery_rules *r, const char *path,
						 int watched)
{
	const struct protect_action *best = NULL;
	for (size_t i = 0; r->prot && i < r->prot->n; i++) {
		const struct protect_action *a = &r->prot->v[i];
		if (!act_is_name(a) || protect_act_watched(a->act) != watched ||
		    !path_is_under(path, a->path))
			continue;
		if (!best || strlen(a->path) > strlen(best->path))
			best = a;
	}
	return best;
}

static const struct rpath *root_of(const struct pathquery_rules *r, const char *path)
{
	const struct rpath *best = NULL;
	for (size_t i = 0; i < r->nroots; i++)
		if (path_is_under(path, r->roots[i].path) &&
		    (!best || strlen(r->roots[i].path) > strlen(best->path)))
			best = &r->roots[i];
	return best;
}

/* Where path enters a .git directory inside a root: the offset just past
 * "/.git" (path[off] is '/' or '\0'), or 0. */
static size_t git_offset(const char *path)
{
	const char *p = path;
	while ((p = strstr(p, "/.git"))) {
		if (p[5] == '/' || p[5] == '\0')
			return (size_t)(p - path) + 5;
		p += 5;
	}
	return 0;
}

static int kind_writable(enum mount_kind k)
{
	return k == MOUNT_BIND || k == MOUNT_BIND_FD || k == MOUNT_TMPFS || k == MOUNT_DEV;
}

/* The verdict on a path inside a protected .git. */
static void git_verdict(const struct pathquery_rules *r, const char *path, size_t off,
			struct pathquery_verdict *v)
{
	const char *rel = path[off] ? path + off + 1 : "";
	const struct gitdir_rule *g = pathquery_git_rule(rel);
	int code = g && g->role == GITDIR_CODE;
	if (code)
		v->write_ok = 0; /* a missing one is watched, in a writable git dir */
	if (v->write_ok) {
		(void)snprintf(v->write_why, sizeof(v->write_why), "git's data in %.*s, writable with "
			       "--git commit%s", (int)off, path,
			       g && g->role == GITDIR_STATE ? " (checked at the end of the run)" : "");
		return;
	}
	if (code) {
		(void)snprintf(v->write_why, sizeof(v->write_why), "repository metadata git reads as "
			       "code or configuration (%s): read-only in every mode", g->why);
		(void)snprintf(v->allow, sizeof(v->allow), "not allowed in any mode short of "
			       "--unprotect .git; change it outside cordon");
	} else if (!r->git_commit) {
		(void)snprintf(v->write_why, sizeof(v->write_why), "repository metadata: %.*s is "
			       "read-only as a whole by default", (int)off, path);
		(void)snprintf(v->allow, sizeof(v->allow), "--git commit (git's data writable: "
			       "commits, branches, the index; config and hooks stay read-only)");
	} else {
		(void)snprintf(v->write_why, sizeof(v->write_why), "repository metadata of %.*s kept "
			       "read-only", (int)off, path);
		(void)snprintf(v->allow, sizeof(v->allow), "not allowed in any mode short of "
			       "--unprotect .git");
	}
}

/* A write cordon refuses outside the roots: the directory to name. */
static void outside_roots(const char *path, enum pathquery_kind k, struct pathquery_verdict *v)
{
	char dir[4096];
	(void)snprintf(dir, sizeof(dir), "%s", path);
	if (k != PATHQUERY_DIR) {
		char *slash = strrchr(dir, '/');
		if (slash)
			slash[slash == dir] = '\0';
	}
	(void)snprintf(v->write_why, sizeof(v->write_why),
		       "outside the writable roots (the rest of the filesystem is read-only)");
	(void)snprintf(v->allow, sizeof(v->allow), "-w %s", dir);
}

static void write_verdict(const struct pathquery_rules *r, const char *path, enum pathquery_kind k,
			  const struct mount_op *op, struct pathquery_verdict *v)
{
	const struct protect_action *watched = protected_at(r, path, 1);
	const struct protect_action *bound = protected_at(r, path, 0);
	const struct rpath *root = root_of(r, path);
	size_t goff = root && r->git_protected ? git_offset(path) : 0;
	if (goff && strlen(root->path) >= goff)
		goff = 0; /* the .git is above the root, not in it */
	v->write_ok = op && kind_writable(op->kind);
	if (v->write_ok && watched && !goff) {
		v->write_ok = 0;
		(void)snprintf(v->write_why, sizeof(v->write_why), "%s is a protected name, missing "
			       "now: creating it stops the run and moves it aside (host tools act on "
			       "it)", watched->path);
		(void)snprintf(v->allow, sizeof(v->allow), "--unprotect %s (a default name; one "
			       "given with --protect: leave that out)", path_base(watched->path));
		return;
	}
	if (goff) {
		git_verdict(r, path, goff, v);
		return;
	}
	if (v->write_ok) {
		if (op->kind == MOUNT_TMPFS)
			(void)snprintf(v->write_why, sizeof(v->write_why), "the sandbox's private %s "
				       "(a tmpfs, gone after the run%s)", op->dest,
				       strcmp(op->dest, "/tmp") == 0 ? "; --tmp host writes the host's /tmp" : "");
		else if (op->kind == MOUNT_DEV)
			(void)snprintf(v->write_why, sizeof(v->write_why), "the sandbox's own /dev");
		else
			(void)snprintf(v->write_why, sizeof(v->write_why), "inside the writable root %s",
				       root ? root->path : op->dest);
		return;
	}
	if (bound) {
		(void)snprintf(v->write_why, sizeof(v->write_why), "%s is a protected name, read-only "
			       "(host tools act on it)", bound->path);
		(void)snprintf(v->allow, sizeof(v->allow), "--unprotect %s (a default name; one "
			       "given with --protect: leave that out)", path_base(bound->path));
		return;
	}
	for (size_t i = 0; i < r->nread_only; i++)
		if (path_is_under(path, r->read_only[i])) {
			(void)snprintf(v->write_why, sizeof(v->write_why), "--read-only %s",
				       r->read_only[i]);
			(void)snprintf(v->allow, sizeof(v->allow), "leave out --read-only %s",
				       r->read_only[i]);
			return;
		}
	if (op && op->kind == MOUNT_PROC) {
		(void)snprintf(v->write_why, sizeof(v->write_why), "the sandbox's /proc: its "
			       "kernel settings are read-only");
		(void)snprintf(v->allow, sizeof(v->allow), "not allowed in any mode");
		return;
	}
	if (root) {
		(void)snprintf(v->write_why, sizeof(v->write_why), "kept read-only inside the "
			       "writable root %s (cordon's own state, or a mount of another run)",
			       root->path);
		(void)snprintf(v->allow, sizeof(v->allow), "not allowed in any mode");
		return;
	}
	outside_roots(path, k, v);
}

void pathquery_decide(const struct pathquery_rules *r, const char *path, enum pathquery_kind k,
		      struct pathquery_verdict *v)
{
	memset(v, 0, sizeof(*v));
	v->connect_ok = -1;
	const struct mount_op *op = mount_plan_shown_at(r->plan, path);
	if (op && (op->kind == MOUNT_MASK_FILE || op->kind == MOUNT_MASK_DIR)) {
		(void)snprintf(v->read_why, sizeof(v->read_why), "--deny-read %s: shown as an "
			       "empty %s", op->dest, op->kind == MOUNT_MASK_DIR ? "directory" : "file");
		(void)snprintf(v->write_why, sizeof(v->write_why), "%s", v->read_why);
		(void)snprintf(v->allow, sizeof(v->allow), "leave out --deny-read %s", op->dest);
		return;
	}
	v->read_ok = 1;
	(void)snprintf(v->read_why, sizeof(v->read_why), "as the host shows it (its own "
		       "permissions still apply)");
	write_verdict(r, path, k, op, v);
	if (k != PATHQUERY_SOCKET)
		return;
	for (size_t i = 0; i < r->nsockets; i++)
		if (strcmp(r->sockets[i].path, path) == 0) {
			v->connect_ok = 1;
			(void)snprintf(v->connect_why, sizeof(v->connect_why),
				       "--allow-unix-socket %s: this socket, as it is at the start", path);
			return;
		}
	v->connect_ok = r->allow_unix_sockets;
	(void)snprintf(v->connect_why, sizeof(v->connect_why), "%s",
		       r->allow_unix_sockets ? "--allow-unix-sockets: every socket is reachable"
		       : "a host socket: only sockets bound inside the sandbox are reachable "
			 "(to allow: --allow-unix-socket PATH for this one)");
}
