/* protect.c: see protect.h.  Belongs here: the run's side of the registry
 * (sweep, live set, carve-outs, held locks, its record and guardian) around
 * protect_decide, and the end of the run.  The names are gathered in
 * protect_gather.c; placeholders are made in protect_materialize.c. */
#include "hostpaths/protect.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "hostpaths/registry_carve.h"
#include "hostpaths/registry_io.h"
#include "hostpaths/registry_sweep.h"
#include "path.h"
#include "procstat.h"
#include "sys.h"

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
	return protect_push_check(p, &o);
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
			v[i].pin ? PROTECT_KEEP : PROTECT_CARVE, path, 0, -1, 1, NULL };
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
		if (!p->reg.absent || ((!p->watch || p->watch_lost) && count_missing(p)))
			return err_wrap(e, "cannot use the registry of materialized paths");
		registry_close(&p->reg);
		facts_of(p, full_write, &f);
		if ((rc = protect_decide(&f, &p->plan, e)) < 0 || (rc = hold_bound(p, e)) < 0 ||
		    (rc = check_git_pins(p, e)) < 0)
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
	    (rc = check_git_pins(p, e)) < 0 || (rc = apply_decided(p, e)) < 0 ||
	    (rc = add_carves(r, full_write, p, e)) < 0)
		return rc;
	return start_guard(p, p->rec.n > 0, e);
}

int protect_explain(struct protect_run *p, int full_write, struct cordon_err *e)
{
	struct protect_facts f;
	facts_of(p, full_write, &f);
	return protect_decide(&f, &p->plan, e);
}

int protect_root_may_watch(const struct protect_run *p, size_t root)
{
	for (size_t i = 0; i < p->nnames; i++)
		if (p->names[i].root == root && (p->watch || p->names[i].watch_only))
			return 1;
	return 0;
}

void protect_watch_lost(struct protect_run *p, int err, const char *limit)
{
	p->watch_lost = err;
	p->watch_lost_limit = limit;
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

void protect_close_fds(struct protect_run *p)
{
	for (size_t i = 0; i < p->nnames; i++)
		sys_close(&p->names[i].fd);
	for (size_t i = 0; i < p->nlive; i++)
		sys_close(&p->live[i].fd);
	for (size_t i = 0; i < p->nchecks; i++)
		sys_close(&p->checks[i].fd);
	protect_git_close(p);
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
	for (size_t i = 0; i < p->ngitdirs; i++) {
		free(p->gitdirs[i].path);
		free(p->gitdirs[i].checkout);
	}
	free(p->gitdirs);
	p->gitdirs = NULL;
	p->ngitdirs = 0;
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
