/* protect_apply.c: see protect_apply.h. */
#include "hostpaths/protect_apply.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>
#include "hostpaths/registry_carve.h"
#include "sys.h"
#include "grow.h"

static void facts_of(const struct protect_run *p, int full_write, struct protect_facts *f)
{
	*f = (struct protect_facts){
		.names = p->names, .nnames = p->nnames,
		.roots = p->roots, .nroots = p->nroots,
		.full_write = full_write,
		.watch = p->watch,
		.watch_lost = p->watch_lost != 0,
		.live = p->live, .nlive = p->nlive,
		.swept = (const char *const *)p->swept, .nswept = p->nswept,
	};
}

/* The other live runs' materialized paths, and those worth opening (by
 * their recorded (dev, ino), never through a symlink at the last step). */
static int gather_live(const struct protect_facts *base, struct protect_run *p,
		       struct cordon_err *e)
{
	size_t n = 0;
	if (!(p->live = calloc(p->reg.nlive ? p->reg.nlive : 1, sizeof(*p->live))))
		return err_set(e, ENOMEM, "out of memory");
	for (size_t i = 0; i < p->reg.nlive; i++) {
		const struct rec_entry *l = &p->reg.live[i];
		if (l->kind == REC_INTENT)
			continue;
		p->live[n++] = (struct protect_live){ l->path, l->dev, l->ino, -1 };
	}
	p->nlive = n;
	struct protect_facts f = *base;
	f.live = p->live;
	f.nlive = p->nlive;
	for (size_t i = 0; i < p->nlive; i++) {
		struct protect_live *l = &p->live[i];
		if (!protect_live_wanted(&f, i))
			continue;
		struct rpath o;
		int rc = resolve_open_at(AT_FDCWD, l->path, l->path, (dev_t)l->dev, (ino_t)l->ino, &o);
		if (rc == -ENOMEM)
			return err_set(e, ENOMEM, "out of memory");
		if (rc < 0)
			continue; /* not the live run's object any more */
		l->fd = o.fd;
		o.fd = -1;
		rpath_free(&o);
	}
	return 0;
}

int protect_push_check(struct protect_run *p, struct rpath *o)
{
	if (rpath_push(&p->checks, &p->nchecks, &p->capchecks, o) < 0) {
		rpath_free(o);
		return -ENOMEM;
	}
	return 0;
}

/* Take over the descriptor of live[i] as the check of its binding. */
static int check_live(struct protect_run *p, size_t i)
{
	struct protect_live *l = &p->live[i];
	struct rpath o = { .fd = l->fd, .dev = (dev_t)l->dev, .ino = (ino_t)l->ino, .is_dir = 1 };
	l->fd = -1;
	if (!(o.path = strdup(l->path))) {
		sys_close(&o.fd);
		return -ENOMEM;
	}
	return protect_push_check(p, &o);
}

/* The registry's carve-out and the pins of its ancestors (decided by
 * protect_decide_carves, opened by registry_carve): into the plan, bound
 * by path, each checked. */
static int add_carves(const struct resolved *r, int full_write, struct protect_run *p,
		      struct cordon_err *e)
{
	struct rpath *v = NULL;
	size_t n = 0, cap = 0;
	int rc = registry_carve(r, full_write, &p->reg, &v, &n, &cap, e);
	for (size_t i = 0; i < n; i++) {
		int grown = grow_reserve(&p->plan.v, &p->plan.cap, p->plan.n + 1,
					 sizeof(*p->plan.v));
		char *path = grown == 0 ? strdup(v[i].path) : NULL;
		if (!path) {
			free(path);
			rc = rc < 0 ? rc : err_set(e, ENOMEM, "out of memory");
			rpath_free(&v[i]);
			continue;
		}
		p->plan.v[p->plan.n++] = (struct protect_action){
			v[i].pin ? PROTECT_KEEP : PROTECT_CARVE, path, 0, -1, 1, NULL, NULL };
		if (protect_push_check(p, &v[i]) < 0 && rc == 0)
			rc = err_set(e, ENOMEM, "out of memory");
	}
	free(v);
	return rc;
}

/* --git commit: each pinned directory is bound by path onto itself, and
 * cordon-inner checks that the mount there is the object gathered. */
static int check_git_pins(struct protect_run *p, struct cordon_err *e)
{
	for (size_t i = 0; i < p->plan.n; i++) {
		const struct protect_action *a = &p->plan.v[i];
		if (a->act != PROTECT_KEEP || a->carve)
			continue;
		const struct protect_name *n = &p->names[a->src];
		struct rpath o = { .fd = -1, .dev = (dev_t)n->dev, .ino = (ino_t)n->ino, .is_dir = 1,
				   .writable = n->outside };
		if ((o.fd = fcntl(n->fd, F_DUPFD_CLOEXEC, 3)) < 0)
			return err_sys(e, errno, "cannot keep a descriptor of %s", n->path);
		if (!(o.path = strdup(n->path))) {
			sys_close(&o.fd);
			return err_set(e, ENOMEM, "out of memory");
		}
		if (protect_push_check(p, &o) < 0)
			return err_set(e, ENOMEM, "out of memory");
	}
	return 0;
}

/* The decision's record entries (references now, intents for the
 * directories to create) and the objects it binds by path that exist
 * already. */
static int apply_decided(struct protect_run *p, struct cordon_err *e)
{
	int rc = 0;
	for (size_t i = 0; i < p->plan.n && rc == 0; i++) {
		const struct protect_action *a = &p->plan.v[i];
		const struct protect_live *l;
		switch (a->act) {
		case PROTECT_BIND:
			break;
		case PROTECT_SHARE:
			rc = record_add(&p->rec, REC_REFERENCED, p->names[a->src].dev,
					p->names[a->src].ino, a->path);
			break;
		case PROTECT_CREATE:
			rc = record_add(&p->rec, REC_INTENT, 0, 0, a->path);
			break;
		case PROTECT_ADOPT:
		case PROTECT_PIN:
			l = &p->live[a->src];
			if ((rc = record_add(&p->rec, REC_REFERENCED, l->dev, l->ino, a->path)) == 0)
				rc = check_live(p, a->src);
			break;
		case PROTECT_WATCH:
		case PROTECT_WATCH_LINK:
		case PROTECT_CARVE:
		case PROTECT_KEEP:
			break;
		}
	}
	if (rc < 0)
		return err_set(e, -rc, "recording protected paths in the registry");
	return 0;
}

/* Every directory this run binds as it found it (not made by this run) may
 * be another registry's mount point: a shared flock on it, through the
 * descriptor bwrap inherited and so held until bwrap exits, tells that
 * registry's release to leave it (registry.c, held_elsewhere).  Taken after
 * the sweep, which must not find this run's own lock on a dead run's
 * leftover; a directory removed since it was opened is refused. */
static int hold_bound(struct protect_run *p, struct cordon_err *e)
{
	for (size_t i = 0; i < p->plan.n; i++) {
		const struct protect_action *a = &p->plan.v[i];
		if (a->act != PROTECT_BIND && a->act != PROTECT_SHARE)
			continue;
		struct protect_name *n = &p->names[a->src];
		struct stat st;
		if (!n->is_dir || n->fd < 0)
			continue;
		int rc;
		while ((rc = flock(n->fd, LOCK_SH)) < 0 && errno == EINTR) {
		}
		if (rc < 0 && errno == EBADF)
			continue; /* O_PATH: unreadable to this user */
		if (rc < 0)
			return err_sys(e, errno, "cannot lock protected %s", n->path);
		if (fstat(n->fd, &st) < 0 || st.st_nlink == 0)
			return err_set(e, EAGAIN, "protected %s was removed while cordon looked at "
				       "it; run again", n->path);
		if (grow_reserve(&p->held, &p->capheld, p->nheld + 1, sizeof(*p->held)) < 0)
			return err_set(e, ENOMEM, "out of memory");
		p->held[p->nheld++] = n->fd;
		n->fd = -1;
	}
	return 0;
}

void protect_apply_drop_held(struct protect_run *p)
{
	for (size_t i = 0; i < p->nheld; i++) {
		(void)flock(p->held[i], LOCK_UN); /* bwrap's copy too: one open file */
		sys_close(&p->held[i]);
	}
	free(p->held);
	p->held = NULL;
	p->nheld = p->capheld = 0;
}

int protect_explain(struct protect_run *p, int full_write, struct cordon_err *e)
{
	struct protect_facts f;
	facts_of(p, full_write, &f);
	return protect_decide(&f, &p->plan, e);
}

int protect_apply(const struct resolved *r, int full_write, int with_registry,
		  struct protect_run *p, struct cordon_err *e)
{
	struct protect_facts f;
	int rc;
	facts_of(p, full_write, &f);
	if (with_registry && (rc = gather_live(&f, p, e)) < 0)
		return rc;
	f.live = p->live;
	f.nlive = p->nlive;
	if ((rc = protect_decide(&f, &p->plan, e)) < 0 || (rc = hold_bound(p, e)) < 0 ||
	    (rc = check_git_pins(p, e)) < 0)
		return rc;
	if (!with_registry)
		return 0;
	if ((rc = apply_decided(p, e)) < 0 || (rc = add_carves(r, full_write, p, e)) < 0)
		return rc;
	return 0;
}
