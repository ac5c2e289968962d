/* protect_decide.c: see protect_decide.h.  Belongs here: the rules, nothing
 * that touches the filesystem. */
#include "plan/protect_decide.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "path.h"
#include "grow.h"

static int listed(const char *const *v, size_t n, const char *path)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(v[i], path) == 0)
			return 1;
	return 0;
}

/* Missing now: never there, or a dead run's leftover the sweep removed. */
static int name_gone(const struct protect_facts *f, const struct protect_name *n)
{
	return !n->exists || listed(f->swept, f->nswept, n->path);
}

static size_t name_at(const struct protect_facts *f, const char *path)
{
	for (size_t i = 0; i < f->nnames; i++)
		if (strcmp(f->names[i].path, path) == 0)
			return i;
	return SIZE_MAX;
}

static size_t live_at(const struct protect_facts *f, const char *path)
{
	for (size_t i = 0; i < f->nlive; i++)
		if (strcmp(f->live[i].path, path) == 0)
			return i;
	return SIZE_MAX;
}

/* Beneath a writable root and not above one: rmdir'ing it is within this
 * command's reach, and pinning it hides no root. */
static int pinnable(const struct protect_facts *f, const char *path)
{
	int under = f->full_write;
	for (size_t j = 0; j < f->nroots; j++) {
		if (path_is_under(f->roots[j].path, path))
			return 0;
		if (path_is_under(path, f->roots[j].path))
			under = 1;
	}
	return under;
}

int protect_live_wanted(const struct protect_facts *f, size_t i)
{
	const struct protect_live *l = &f->live[i];
	size_t n = name_at(f, l->path);
	if (n != SIZE_MAX)
		return name_gone(f, &f->names[n]) && !f->roots[f->names[n].root].read_only;
	return pinnable(f, l->path);
}

static int push(struct protect_decision *d, enum protect_act act, const char *path, size_t src,
		int bind_fd, int carve)
{
	if (grow_reserve(&d->v, &d->cap, d->n + 1, sizeof(*d->v)) < 0)
		return -ENOMEM;
	struct protect_action *a = &d->v[d->n];
	*a = (struct protect_action){ act, NULL, src, bind_fd, carve, NULL, NULL };
	if (!(a->path = strdup(path)))
		return -ENOMEM;
	d->n++;
	return 0;
}

/* Another user's link in a directory others can write (the host's /tmp):
 * nothing can be bound there (a mount lands on the target), and refusing the
 * run would hand every local user a way to stop all runs.  Watched instead,
 * whatever --protect-missing says: replacing the link (a root caller owns
 * /tmp and may) is a new entry under the name, and stops the run; the link
 * itself is left alone, as everything of another user's.  Where it leads,
 * the steps that follow it in names[] (decide_step) keep from the command. */
static int watch_foreign_link(const struct protect_facts *f, size_t i, struct protect_decision *d,
			      struct cordon_err *e)
{
	const struct protect_name *n = &f->names[i];
	if (f->roots[n->root].read_only)
		return 0;
	/* No placeholder can stand in for it: without a watch it cannot be
	 * held at all, and the run must not go on with it unprotected. */
	if (f->watch_lost)
		return err_set(e, EAGAIN, "protected %s is another user's symbolic link, which "
			       "cordon can only watch, and this user has no inotify instance "
			       "left; close some of your other watchers (cordon doctor counts "
			       "them) or raise fs.inotify.max_user_instances", n->path);
	return push(d, PROTECT_WATCH_LINK, n->path, i, -1, 0);
}

/* A step of another user's link's way (plan/linkwalk.h): a missing name is
 * watched (whatever --protect-missing says: a placeholder would be a
 * directory of cordon's inside another user's way, nested where no sweep
 * looks), an entry on the way watched as found, the end bound read-only.
 * Only the watches need inotify, and without it nothing else holds them. */
static int decide_step(const struct protect_facts *f, size_t i, struct protect_decision *d,
		       struct cordon_err *e)
{
	const struct protect_name *n = &f->names[i];
	if (n->exists && !n->as_found)
		return push(d, PROTECT_BIND, n->path, i, n->fd, 0);
	if (f->watch_lost)
		return err_set(e, EAGAIN, "%s, where another user's symbolic link %s leads, must be "
			       "watched, and this user has no inotify instance left; close some of "
			       "your other watchers (cordon doctor counts them) or raise "
			       "fs.inotify.max_user_instances", n->path, n->via);
	return push(d, n->exists ? PROTECT_WATCH_LINK : PROTECT_WATCH, n->path, i, -1, 0);
}

static int decide_name(const struct protect_facts *f, size_t i, struct protect_decision *d,
		       struct cordon_err *e);

/* decide_name, with the gitdir rule's note and the link a step stands for
 * carried to the action. */
static int decide_noted(const struct protect_facts *f, size_t i, struct protect_decision *d,
			struct cordon_err *e)
{
	size_t before = d->n;
	int rc = decide_name(f, i, d, e);
	if (rc == 0 && d->n > before) {
		d->v[d->n - 1].why = f->names[i].why;
		d->v[d->n - 1].via = f->names[i].via;
	}
	return rc;
}

static int decide_name(const struct protect_facts *f, size_t i, struct protect_decision *d,
		       struct cordon_err *e)
{
	const struct protect_name *n = &f->names[i];
	size_t l = live_at(f, n->path);
	if (n->via)
		return decide_step(f, i, d, e);
	if (!name_gone(f, n)) {
		if (n->is_symlink && n->link == LINK_FOREIGN)
			return watch_foreign_link(f, i, d, e);
		/* A mount lands on a symlink's target, not on the link, so the
		 * command could rename the link away and create the name afresh. */
		if (n->is_symlink)
			return err_set(e, EPERM,
				       "protected %s is a symbolic link, which cordon cannot keep "
				       "read-only; replace it with what it points to, or pass "
				       "--unprotect %s", n->path, path_base(n->path));
		if (n->pin)
			return push(d, PROTECT_KEEP, n->path, i, -1, 0);
		int shared = l != SIZE_MAX && n->is_dir && f->live[l].dev == n->dev &&
			     f->live[l].ino == n->ino;
		return push(d, shared ? PROTECT_SHARE : PROTECT_BIND, n->path, i, n->fd, 0);
	}
	if (f->roots[n->root].read_only)
		return 0;
	if (l != SIZE_MAX && f->live[l].fd >= 0)
		return push(d, PROTECT_ADOPT, n->path, l, -1, 0);
	/* A git entry's placeholder would be a directory cordon made inside
	 * the repository's git dir, which no sweep may remove later: without
	 * a watch, --git commit cannot hold it, and says so. */
	if (f->watch_lost && n->why)
		return err_set(e, EAGAIN, "--git commit: %s is missing and must be watched, and "
			       "this user has no inotify instance left; close some of your "
			       "other watchers (cordon doctor counts them), raise "
			       "fs.inotify.max_user_instances, or run without --git commit",
			       n->path);
	int watched = (f->watch || n->watch_only) && !f->watch_lost;
	return push(d, watched ? PROTECT_WATCH : PROTECT_CREATE, n->path, i, -1, 0);
}

int protect_decide(const struct protect_facts *f, struct protect_decision *out,
		   struct cordon_err *e)
{
	for (size_t i = 0; i < f->nnames; i++) {
		int rc = decide_noted(f, i, out, e);
		if (rc < 0)
			return rc == -ENOMEM ? err_set(e, ENOMEM, "out of memory") : rc;
	}
	for (size_t i = 0; i < f->nlive; i++)
		if (f->live[i].fd >= 0 && name_at(f, f->live[i].path) == SIZE_MAX &&
		    protect_live_wanted(f, i) && live_at(f, f->live[i].path) == i &&
		    push(out, PROTECT_PIN, f->live[i].path, i, -1, 0) < 0)
			return err_set(e, ENOMEM, "out of memory");
	return 0;
}

int protect_holds_entry(const struct protect_name *n)
{
	return n->as_found || (n->is_symlink && n->link == LINK_FOREIGN);
}

int protect_act_watched(enum protect_act act)
{
	return act == PROTECT_WATCH || act == PROTECT_WATCH_LINK;
}

void protect_decision_free(struct protect_decision *d)
{
	for (size_t i = 0; i < d->n; i++)
		free(d->v[i].path);
	free(d->v);
	d->v = NULL;
	d->n = d->cap = 0;
}

/* The carve-outs so far: the caller's and the ones decided here. */
struct carves {
	const struct protect_carved *have;
	size_t nhave;
	struct protect_carve **v;
	size_t *n, *cap;
};

static int has_carve(const struct carves *c, const char *path)
{
	for (size_t i = 0; i < c->nhave; i++)
		if (strcmp(c->have[i].path, path) == 0)
			return 1;
	for (size_t i = 0; i < *c->n; i++)
		if (strcmp((*c->v)[i].path, path) == 0)
			return 1;
	return 0;
}

/* 1 if path lies in (or is) a read-only carve-out: nothing there can be
 * renamed, and a pin would make it writable. */
static int under_read_only(const struct carves *c, const char *path)
{
	for (size_t i = 0; i < c->nhave; i++)
		if (!c->have[i].pin && path_is_under(path, c->have[i].path))
			return 1;
	for (size_t i = 0; i < *c->n; i++)
		if (!(*c->v)[i].pin && path_is_under(path, (*c->v)[i].path))
			return 1;
	return 0;
}

/* The path under root rp of reg->path[from..to), as a new string. */
static char *dest_of(const struct protect_regview *reg, const char *rp, size_t from, size_t to)
{
	char dest[PATH_MAX];
	int n = snprintf(dest, sizeof(dest), "%s%.*s", strcmp(rp, "/") == 0 ? "" : rp,
			 (int)(to - from), reg->path + from);
	if (n < 0 || (size_t)n >= sizeof(dest))
		return NULL;
	return strdup(dest[0] ? dest : "/");
}

static int push_carve(const struct carves *c, char *path, size_t root, size_t top, size_t anc,
		      int pin)
{
	if (grow_reserve(c->v, c->cap, *c->n + 1, sizeof(**c->v)) < 0) {
		free(path);
		return -ENOMEM;
	}
	struct protect_carve *v = *c->v;
	v[(*c->n)++] = (struct protect_carve){ path, root, top, anc, pin };
	return 0;
}

/* Root i (anc[k]): the registry's carve-out there, then the pins. */
static int carve_root(const struct carves *c, const struct protect_regview *reg, const char *rp,
		      size_t i, size_t k, struct cordon_err *e)
{
	char *dest = dest_of(reg, rp, reg->anc[k].off, strlen(reg->path));
	if (!dest)
		return err_set(e, ENAMETOOLONG, "registry %s under %s: path too long", reg->path, rp);
	if (has_carve(c, dest))
		free(dest);
	else if (push_carve(c, dest, i, k, reg->nanc, 0) < 0)
		return err_set(e, ENOMEM, "out of memory");
	for (size_t j = k + 1; j + 1 < reg->nanc; j++) {
		if (!(dest = dest_of(reg, rp, reg->anc[k].off, reg->anc[j].off)))
			return err_set(e, ENAMETOOLONG, "registry %s under %s: path too long",
				       reg->path, rp);
		if (has_carve(c, dest) || under_read_only(c, dest))
			free(dest);
		else if (push_carve(c, dest, i, k, j, 1) < 0)
			return err_set(e, ENOMEM, "out of memory");
	}
	return 0;
}

int protect_decide_carves(const struct protect_root *roots, size_t nroots, int full_write,
			  const struct protect_regview *reg, const struct protect_carved *have,
			  size_t nhave, struct protect_carve **out, size_t *nout,
			  size_t *capout, struct cordon_err *e)
{
	const struct carves c = { have, nhave, out, nout, capout };
	for (size_t i = 0; i < nroots + (full_write ? 1 : 0); i++) {
		size_t k = 0;
		if (i < nroots) {
			while (k < reg->nanc && (reg->anc[k].dev != roots[i].dev ||
						 reg->anc[k].ino != roots[i].ino))
				k++;
			if (k == reg->nanc)
				continue; /* it reaches nothing of the registry */
		}
		int rc = carve_root(&c, reg, i < nroots ? roots[i].path : "/", i, k, e);
		if (rc < 0)
			return rc;
	}
	return 0;
}

void protect_carves_free(struct protect_carve *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i].path);
	free(v);
}
