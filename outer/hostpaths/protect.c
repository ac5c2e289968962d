/* protect.c: see protect.h.  Belongs here: gathering the facts
 * protect_decide needs (lstat of the names, the registry's live set and
 * sweep) and carrying out its decision (record, mkdir, open), and the run's
 * side of the registry record. */
#include "hostpaths/protect.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <unistd.h>
#include "hostpaths/registry_carve.h"
#include "hostpaths/registry_io.h"
#include "hostpaths/registry_sweep.h"
#include "path.h"
#include "procstat.h"
#include "sys.h"

/* A writable root on a read-only mount: mkdir would fail with EROFS, and the
 * command cannot create the name either, so nothing is materialized. */
static int root_read_only(int rootfd)
{
	struct statvfs sv;
	return fstatvfs(rootfd, &sv) == 0 && (sv.f_flag & ST_RDONLY);
}

/* Open the existing name (st: its lstat) for bwrap to bind from.  A
 * directory is opened readable where it can be, so that protect_hold can
 * flock it; otherwise O_PATH.  0, -EAGAIN if it is not the object st
 * describes, or -errno. */
static int open_name(int rootfd, const char *name, const char *path, const struct stat *st,
		     int *fd)
{
	if (S_ISDIR(st->st_mode)) {
		struct stat now;
		int d = openat(rootfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (d >= 0) {
			if (fstat(d, &now) < 0 || now.st_dev != st->st_dev || now.st_ino != st->st_ino) {
				sys_close(&d);
				return -EAGAIN;
			}
			*fd = d;
			return 0;
		}
		if (errno != EACCES)
			return errno == ENOENT || errno == ENOTDIR || errno == ELOOP ? -EAGAIN : -errno;
	}
	struct rpath o;
	int rc = resolve_open_at(rootfd, name, path, st->st_dev, st->st_ino, &o);
	if (rc < 0)
		return rc;
	*fd = o.fd;
	o.fd = -1;
	rpath_free(&o);
	return 0;
}

static int gather_name(const struct resolved *r, size_t root, const char *name, int watch_only,
		       struct protect_run *p, struct cordon_err *e)
{
	const struct rpath *rt = &r->roots[root];
	char full[PATH_MAX];
	struct stat st;
	if (path_join(rt->path, name, full, sizeof(full)) < 0)
		return err_set(e, ENAMETOOLONG, "%s/%s: path too long", rt->path, name);
	struct protect_name *v = realloc(p->names, (p->nnames + 1) * sizeof(*v));
	if (!v)
		return err_set(e, ENOMEM, "out of memory");
	p->names = v;
	struct protect_name *n = &v[p->nnames];
	*n = (struct protect_name){ .root = root, .fd = -1, .watch_only = watch_only };
	if (!(n->path = strdup(full)))
		return err_set(e, ENOMEM, "out of memory");
	p->nnames++;
	if (fstatat(rt->fd, name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
		if (errno != ENOENT)
			return err_sys(e, errno, "cannot inspect protected %s", full);
		p->roots[root].read_only = root_read_only(rt->fd);
		return 0;
	}
	n->exists = 1;
	n->is_dir = S_ISDIR(st.st_mode);
	n->is_symlink = S_ISLNK(st.st_mode);
	n->dev = st.st_dev;
	n->ino = st.st_ino;
	if (n->is_symlink)
		return 0; /* refused by protect_decide */
	int rc = open_name(rt->fd, name, full, &st, &n->fd);
	if (rc == -EAGAIN)
		return err_set(e, EAGAIN, "protected %s changed while cordon looked at it; run again",
			       full);
	if (rc < 0)
		return err_sys(e, -rc, "cannot open protected %s", full);
	return 0;
}

/* A git directory resolve found inside a writable root (a .git file's
 * gitdir, core.hooksPath): bound read-only like an existing name, from a
 * descriptor of protect's own (resolve's stays resolve's). */
static int gather_gitdir(const struct rpath *g, struct protect_run *p, struct cordon_err *e)
{
	struct protect_name *v = realloc(p->names, (p->nnames + 1) * sizeof(*v));
	if (!v)
		return err_set(e, ENOMEM, "out of memory");
	p->names = v;
	struct protect_name *n = &v[p->nnames];
	*n = (struct protect_name){ .root = 0, .exists = 1, .is_dir = g->is_dir, .dev = g->dev,
				    .ino = g->ino, .fd = -1 };
	if (!(n->path = strdup(g->path)))
		return err_set(e, ENOMEM, "out of memory");
	p->nnames++;
	n->fd = fcntl(g->fd, F_DUPFD_CLOEXEC, 3);
	if (n->fd < 0)
		return err_sys(e, errno, "cannot keep a descriptor of %s", g->path);
	return 0;
}

int protect_gather(const struct resolved *r, const struct config *c, struct protect_run *p,
		   struct cordon_err *e)
{
	int rc;
	p->watch = c->protect_missing == PROTECT_MISSING_WATCH;
	if (!(p->roots = calloc(r->nroots ? r->nroots : 1, sizeof(*p->roots))))
		return err_set(e, ENOMEM, "out of memory");
	p->nroots = r->nroots;
	for (size_t i = 0; i < r->nroots; i++)
		p->roots[i] = (struct protect_root){ r->roots[i].path, r->roots[i].dev,
						     r->roots[i].ino, 0 };
	for (size_t i = 0; i < r->nroots; i++) {
		if (!r->roots[i].is_dir)
			continue;
		if (c->default_protect) {
			for (const char *const *n = config_default_protect; *n; n++)
				if ((rc = gather_name(r, i, *n, 0, p, e)) < 0)
					return rc;
			for (const char *const *n = config_default_dotfiles; *n; n++)
				if ((rc = gather_name(r, i, *n, 1, p, e)) < 0)
					return rc;
		}
		for (size_t j = 0; j < c->protect.n; j++)
			if ((rc = gather_name(r, i, c->protect.v[j], 0, p, e)) < 0)
				return rc;
	}
	for (size_t i = 0; i < r->ngitdirs; i++)
		if ((rc = gather_gitdir(&r->gitdirs[i], p, e)) < 0)
			return rc;
	return 0;
}

int protect_fds(const struct protect_run *p, int (*fn)(void *ctx, int fd), void *ctx)
{
	for (size_t i = 0; i < p->nnames; i++) {
		int rc = p->names[i].fd >= 0 ? fn(ctx, p->names[i].fd) : 0;
		if (rc < 0)
			return rc;
	}
	return 0;
}

static size_t count_missing(const struct protect_run *p)
{
	size_t n = 0;
	for (size_t i = 0; i < p->nnames; i++)
		n += !p->names[i].exists;
	return n;
}

/* The sweep's report: the paths it removed (dead runs' leftovers). */
static void note_swept(void *ctx, const char *path, enum reclaim_verdict v, const char *why)
{
	struct protect_run *p = ctx;
	(void)why;
	if (v != RECLAIM_REMOVE)
		return;
	char **sv = realloc(p->swept, (p->nswept + 1) * sizeof(*sv));
	if (!sv)
		return; /* the name then counts as existing: its bind fails the run */
	p->swept = sv;
	if ((sv[p->nswept] = strdup(path)))
		p->nswept++;
}

static void facts_of(const struct protect_run *p, int full_write, struct protect_facts *f)
{
	*f = (struct protect_facts){
		.names = p->names, .nnames = p->nnames,
		.roots = p->roots, .nroots = p->nroots,
		.full_write = full_write,
		.watch = p->watch,
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

static int check_push(struct protect_run *p, struct rpath *o)
{
	if (rpath_push(&p->checks, &p->nchecks, o) < 0) {
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
	return check_push(p, &o);
}

/* The registry's carve-out and the pins of its ancestors (registry_carve
 * decides and opens them): into the plan, bound by path, each checked. */
static int add_carves(const struct resolved *r, int full_write, struct protect_run *p,
		      struct cordon_err *e)
{
	struct rpath *v = NULL;
	size_t n = 0;
	int rc = registry_carve(r, full_write, &p->reg, &v, &n, e);
	for (size_t i = 0; i < n; i++) {
		struct protect_action *a = realloc(p->plan.v, (p->plan.n + 1) * sizeof(*a));
		char *path = a ? strdup(v[i].path) : NULL;
		if (a)
			p->plan.v = a;
		if (!path) {
			free(path);
			rc = rc < 0 ? rc : err_set(e, ENOMEM, "out of memory");
			rpath_free(&v[i]);
			continue;
		}
		p->plan.v[p->plan.n++] = (struct protect_action){
			v[i].pin ? PROTECT_KEEP : PROTECT_CARVE, path, 0, -1, 1 };
		if (check_push(p, &v[i]) < 0 && rc == 0)
			rc = err_set(e, ENOMEM, "out of memory");
	}
	free(v);
	return rc;
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
		case PROTECT_CARVE:
		case PROTECT_KEEP:
			break;
		}
	}
	if (rc < 0)
		return err_set(e, -rc, "recording protected paths in the registry");
	return 0;
}

/* Start the guardian before bwrap has its arguments, so before bwrap's
 * child exists: if cordon is killed from then on, the guardian ends
 * whatever of the run is left (guardian.h).  Every run has one, even a run
 * with nothing to record.  When the run will own or share paths
 * (with_record), its record is named first, so that no path ever depends
 * on cordon alone. */
static int start_guard(struct protect_run *p, int with_record, struct cordon_err *e)
{
	uint64_t self_start;
	int rc;
	if (with_record) {
		if ((rc = procstat_start(getpid(), &self_start)) < 0)
			return err_sys(e, -rc, "cannot read my own start time from /proc/self/stat");
		if (record_name(p->name, sizeof(p->name), p->reg.boot, getpid(), self_start) < 0) {
			p->name[0] = '\0';
			return err_set(e, EINVAL, "internal: cannot name this run's record");
		}
		memcpy(p->rec.boot, p->reg.boot, sizeof(p->rec.boot));
		p->rec.pidns = p->reg.pidns;
		p->rec.proc[REC_OWNER] = (struct rec_proc){ getpid(), self_start };
	}
	/* Its "ready" is collected only once bwrap runs (protect_started), off
	 * the path every start waits on. */
	if ((rc = guardian_start(&p->guard, with_record ? &p->reg : NULL, p->name,
				 p->sandbox_sock, e)) < 0) {
		p->name[0] = '\0';
		return rc;
	}
	p->rec.proc[REC_GUARDIAN] = (struct rec_proc){ p->guard.pid, p->guard.start };
	return 0;
}

/* The record names cordon, the guardian and bwrap from its first write. */
static void record_sandbox(struct protect_run *p, pid_t bwrap)
{
	uint64_t bwrap_start;
	/* Best effort: without it a sweep still sees cordon or the guardian
	 * alive, and bwrap dies with cordon. */
	if (bwrap > 0 && procstat_start(bwrap, &bwrap_start) == 0)
		p->rec.proc[REC_SANDBOX] = (struct rec_proc){ bwrap, bwrap_start };
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
		int *v = realloc(p->held, (p->nheld + 1) * sizeof(*v));
		if (!v)
			return err_set(e, ENOMEM, "out of memory");
		p->held = v;
		v[p->nheld++] = n->fd;
		n->fd = -1;
	}
	return 0;
}

static void drop_held(struct protect_run *p)
{
	for (size_t i = 0; i < p->nheld; i++) {
		(void)flock(p->held[i], LOCK_UN); /* bwrap's copy too: one open file */
		sys_close(&p->held[i]);
	}
	free(p->held);
	p->held = NULL;
	p->nheld = 0;
}

int protect_prepare(const struct resolved *r, int full_write, pid_t bwrap, struct protect_run *p,
		    struct cordon_err *e)
{
	struct protect_facts f;
	p->bwrap = bwrap;
	int rc = registry_open(&p->reg, e);
	if (rc < 0) {
		/* A registry that does not exist (and cannot be created)
		 * holds no records and needs no carve-out: with nothing to
		 * materialize, there is nothing it could add.  One that exists
		 * but cannot be used fails the run: its sweep, its carve-out
		 * and the pins of live runs would be skipped. */
		if (!p->reg.absent || (!p->watch && count_missing(p)))
			return err_wrap(e, "cannot use the registry of materialized paths");
		registry_close(&p->reg);
		facts_of(p, full_write, &f);
		if ((rc = protect_decide(&f, &p->plan, e)) < 0 || (rc = hold_bound(p, e)) < 0)
			return rc;
		return start_guard(p, 0, e);
	}
	/* Held until protect_materialize: what is decided here stays true. */
	if ((rc = registry_lock(&p->reg, e)) < 0)
		return rc;
	if ((rc = registry_sweep(&p->reg, NULL, note_swept, p, e)) < 0)
		return rc;
	facts_of(p, full_write, &f);
	if ((rc = gather_live(&f, p, e)) < 0)
		return rc;
	f.live = p->live;
	f.nlive = p->nlive;
	if ((rc = protect_decide(&f, &p->plan, e)) < 0 || (rc = hold_bound(p, e)) < 0 ||
	    (rc = apply_decided(p, e)) < 0 || (rc = add_carves(r, full_write, p, e)) < 0)
		return rc;
	return start_guard(p, p->rec.n > 0, e);
}

int protect_explain(struct protect_run *p, int full_write, struct cordon_err *e)
{
	struct protect_facts f;
	facts_of(p, full_write, &f);
	return protect_decide(&f, &p->plan, e);
}

const struct protect_decision *protect_decision(const struct protect_run *p)
{
	return &p->plan;
}

const struct rpath *protect_checks(const struct protect_run *p, size_t *n)
{
	*n = p->nchecks;
	return p->checks;
}

/* The intent entry of path in this run's record, or SIZE_MAX. */
static size_t intent_of(const struct record *rec, const char *path)
{
	for (size_t i = 0; i < rec->n; i++)
		if (rec->v[i].kind == REC_INTENT && strcmp(rec->v[i].path, path) == 0)
			return i;
	return SIZE_MAX;
}

/* Created meanwhile by someone else: bind what is there (cordon-inner checks
 * that it is what was opened here), unless it is a symlink. */
static int take_existing(struct protect_run *p, int rootfd, const char *name, const char *path,
			 struct cordon_err *e)
{
	struct stat st;
	struct rpath o;
	if (fstatat(rootfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return err_sys(e, errno, "cannot inspect protected %s", path);
	if (S_ISLNK(st.st_mode))
		return err_set(e, EPERM,
			       "protected %s is a symbolic link, which cordon cannot keep read-only; "
			       "replace it with what it points to, or pass --no-default-protect", path);
	int rc = resolve_open_at(rootfd, name, path, st.st_dev, st.st_ino, &o);
	if (rc == -EAGAIN)
		return err_set(e, EAGAIN, "protected %s changed while cordon looked at it; run again",
			       path);
	if (rc < 0)
		return err_sys(e, -rc, "cannot open protected %s", path);
	return check_push(p, &o) < 0 ? err_set(e, ENOMEM, "out of memory") : 0;
}

/* Create one directory whose intent is recorded, and open it. */
static int create_one(const struct resolved *r, struct protect_run *p,
		      const struct protect_action *a, struct cordon_err *e)
{
	int rootfd = r->roots[p->names[a->src].root].fd;
	const char *name = path_base(a->path);
	struct rpath made;
	if (mkdirat(rootfd, name, 0755) < 0) {
		if (errno == EEXIST)
			return take_existing(p, rootfd, name, a->path, e);
		return err_sys(e, errno, "cannot create %s, the empty directory cordon "
			       "mounts read-only so that the sandbox cannot create the "
			       "protected name (is the writable root writable for you?)", a->path);
	}
	int r2 = resolve_open_created(rootfd, name, a->path, &made);
	if (r2 < 0) {
		/* rmdir removes nothing but an empty directory. */
		(void)unlinkat(rootfd, name, AT_REMOVEDIR);
		return err_sys(e, -r2, "cannot open %s, which cordon just created", a->path);
	}
	if (!made.is_dir) {
		rpath_free(&made);
		return err_set(e, EAGAIN, "%s changed while cordon created it; run again", a->path);
	}
	size_t k = intent_of(&p->rec, a->path);
	if (k != SIZE_MAX)
		p->rec.v[k] = (struct rec_entry){ REC_CREATED, made.dev, made.ino, p->rec.v[k].path };
	return check_push(p, &made) < 0 ? err_set(e, ENOMEM, "out of memory") : 0;
}

/* Create the directories whose intent is recorded.  The plan binds each by
 * path already, so one that cannot be made fails the run (bwrap is then
 * killed before it mounts anything).  Entries left as intents (a name
 * someone else created meanwhile) leave the record. */
static int create_all(const struct resolved *r, struct protect_run *p, struct cordon_err *e)
{
	int rc = 0;
	for (size_t i = 0; i < p->plan.n && rc == 0; i++)
		if (p->plan.v[i].act == PROTECT_CREATE)
			rc = create_one(r, p, &p->plan.v[i], e);
	for (size_t j = p->rec.n; j-- > 0;)
		if (p->rec.v[j].kind == REC_INTENT)
			record_remove(&p->rec, j);
	return rc;
}

int protect_materialize(const struct resolved *r, struct protect_run *p, struct cordon_err *e)
{
	int rc = 0;
	/* Nothing to own or share: no record. */
	if (p->reg.locked && p->name[0]) {
		/* Intent first, on disk, then the directories: a crash in
		 * between leaves a record that names every path that may exist. */
		record_sandbox(p, p->bwrap);
		if ((rc = registry_write(&p->reg, p->name, &p->rec, e)) == 0) {
			rc = create_all(r, p, e);
			int w = registry_write(&p->reg, p->name, &p->rec, rc < 0 ? NULL : e);
			if (rc == 0)
				rc = w;
		}
	}
	registry_unlock(&p->reg);
	return rc;
}

void protect_close_fds(struct protect_run *p)
{
	for (size_t i = 0; i < p->nnames; i++)
		sys_close(&p->names[i].fd);
	for (size_t i = 0; i < p->nlive; i++)
		sys_close(&p->live[i].fd);
	for (size_t i = 0; i < p->nchecks; i++)
		sys_close(&p->checks[i].fd);
}

static void facts_free(struct protect_run *p)
{
	protect_close_fds(p);
	for (size_t i = 0; i < p->nnames; i++)
		free((char *)p->names[i].path);
	free(p->names);
	free(p->roots);
	free(p->live);
	for (size_t i = 0; i < p->nswept; i++)
		free(p->swept[i]);
	free(p->swept);
	for (size_t i = 0; i < p->nchecks; i++)
		rpath_free(&p->checks[i]);
	free(p->checks);
	protect_decision_free(&p->plan);
	p->names = NULL;
	p->roots = NULL;
	p->live = NULL;
	p->swept = NULL;
	p->checks = NULL;
	p->nnames = p->nroots = p->nlive = p->nswept = p->nchecks = 0;
}

int protect_started(struct protect_run *p, pid_t bwrap, struct cordon_err *err)
{
	struct cordon_err e;
	if (p->guard.pid <= 0)
		return 0;
	p->sandbox = bwrap;
	/* Without a guardian a kill of cordon would leave the paths to the next
	 * sweep: refuse while the command has not started yet (cordon-inner
	 * waits for the bind checks that follow this). */
	if (guardian_confirm(&p->guard, err) < 0)
		return -ECHILD;
	/* Best effort: without it the guardian still cleans up (just without
	 * waiting for bwrap, which dies with cordon). */
	uint64_t start;
	if (procstat_start(bwrap, &start) == 0 && guardian_watch(&p->guard, bwrap, start, &e) < 0) {
		/* The guardian is gone: the next sweep is the fallback. */
	}
	return 0;
}


/* 1 if bwrap (cordon's child) has not exited yet. */
static int sandbox_running(pid_t pid)
{
	siginfo_t si;
	memset(&si, 0, sizeof(si));
	if (waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT) < 0)
		return errno == ECHILD ? 0 : 1;
	return si.si_pid == 0;
}

void protect_release(struct protect_run *p)
{
	struct cordon_err e;
	drop_held(p);
	facts_free(p);
	/* While bwrap may still run its mount points are in use: then (and if
	 * the release fails) the guardian, left without "done", waits for the
	 * sandbox to go and cleans up itself. */
	if (!(p->sandbox > 0 && sandbox_running(p->sandbox)) &&
	    (!p->name[0] || (registry_lock(&p->reg, &e) == 0 &&
			     registry_release(&p->reg, p->name, &p->rec, &e) == 0)))
		guardian_done(&p->guard);
	guardian_abandon(&p->guard);
	registry_close(&p->reg);
	record_free(&p->rec);
	p->name[0] = '\0';
	p->sandbox = 0;
}

void protect_command_gone(struct protect_run *p)
{
	p->sandbox = 0;
	protect_release(p);
}
