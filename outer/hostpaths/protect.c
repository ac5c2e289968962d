/* protect.c: see protect.h.  Belongs here: turning resolve.c's findings
 * (r->missing, r->protects) and the registry's live set into the read-only
 * objects the mount plan binds, and the run's side of the registry record. */
#include "hostpaths/protect.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

/* A protected name whose host path has to be materialized or referenced. */
struct item {
	size_t root;
	char *path;          /* owned: root/name */
	const char *name;    /* points into path */
};

struct items {
	struct item *v;
	size_t n;
};

static void items_free(struct items *it)
{
	for (size_t i = 0; i < it->n; i++)
		free(it->v[i].path);
	free(it->v);
	it->v = NULL;
	it->n = 0;
}

static int items_add(struct items *it, size_t root, const char *path)
{
	struct item *v = realloc(it->v, (it->n + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	it->v = v;
	char *p = strdup(path);
	if (!p)
		return -ENOMEM;
	v[it->n++] = (struct item){ root, p, path_base(p) };
	return 0;
}

/* The writable root a protected path lies directly in, or -1. */
static ssize_t root_of(const struct resolved *r, const char *path)
{
	const char *slash = strrchr(path, '/');
	if (!slash)
		return -1;
	size_t dl = slash == path ? 1 : (size_t)(slash - path);
	for (size_t i = 0; i < r->nroots; i++)
		if (strlen(r->roots[i].path) == dl && strncmp(r->roots[i].path, path, dl) == 0)
			return (ssize_t)i;
	return -1;
}

static const struct rec_entry *live_find(const struct registry *reg, const char *path)
{
	for (size_t i = 0; i < reg->nlive; i++)
		if (reg->live[i].kind != REC_INTENT && strcmp(reg->live[i].path, path) == 0)
			return &reg->live[i];
	return NULL;
}

/* Protected objects resolve.c found may be gone since: the sweep removes
 * dead runs' leftovers.  Such a name is missing again (items); one still in
 * place that a live run materialized gets a reference in rec. */
static int revalidate(struct resolved *r, struct protect_run *p, struct items *todo,
		      struct cordon_err *e)
{
	size_t keep = 0;
	int rc = 0;
	for (size_t i = 0; i < r->nprotects; i++) {
		struct rpath *pr = &r->protects[i];
		ssize_t root = root_of(r, pr->path);
		struct stat st;
		int gone = 0;
		if (root >= 0) {
			if (fstatat(r->roots[root].fd, path_base(pr->path), &st, AT_SYMLINK_NOFOLLOW) < 0) {
				if (errno != ENOENT)
					return err_sys(e, errno, "cannot inspect protected %s", pr->path);
				gone = 1;
			} else if (st.st_dev != pr->dev || st.st_ino != pr->ino) {
				gone = 1;
			}
		}
		if (gone) {
			if (items_add(todo, (size_t)root, pr->path) < 0)
				return err_set(e, ENOMEM, "out of memory");
			rpath_free(pr);
			continue;
		}
		const struct rec_entry *l = live_find(&p->reg, pr->path);
		if (l && l->dev == pr->dev && l->ino == pr->ino &&
		    (rc = record_add(&p->rec, REC_REFERENCED, l->dev, l->ino, pr->path)) < 0)
			return err_set(e, -rc, "recording %s in the registry", pr->path);
		r->protects[keep++] = *pr;
	}
	r->nprotects = keep;
	return 0;
}

static int has_protect(const struct resolved *r, const struct items *todo, const char *path)
{
	for (size_t i = 0; i < r->nprotects; i++)
		if (strcmp(r->protects[i].path, path) == 0)
			return 1;
	for (size_t i = 0; i < todo->n; i++)
		if (strcmp(todo->v[i].path, path) == 0)
			return 1;
	return 0;
}

/* Other live runs' mount points beneath this run's writable roots: a
 * command could rmdir one on the host (it is no mount point in this
 * sandbox), and that would unmount it in the other sandbox too.  Bound
 * read-only here they are mount points in this sandbox as well. */
static int pin_live(struct resolved *r, int full_write, struct protect_run *p,
		    const struct items *todo, struct cordon_err *e)
{
	for (size_t i = 0; i < p->reg.nlive; i++) {
		const struct rec_entry *l = &p->reg.live[i];
		if (l->kind == REC_INTENT || has_protect(r, todo, l->path))
			continue;
		int under = full_write, over_root = 0;
		for (size_t j = 0; j < r->nroots; j++) {
			if (path_is_under(l->path, r->roots[j].path))
				under = 1;
			if (path_is_under(r->roots[j].path, l->path))
				over_root = 1;
		}
		if (!under || over_root)
			continue;
		struct rpath pin;
		int rc = resolve_open_at(AT_FDCWD, l->path, l->path, (dev_t)l->dev, (ino_t)l->ino, &pin);
		if (rc == -ENOMEM)
			return err_set(e, ENOMEM, "out of memory");
		if (rc < 0)
			continue; /* not the live run's object any more: nothing to pin */
		if (rpath_push(&r->protects, &r->nprotects, &pin) < 0) {
			rpath_free(&pin);
			return err_set(e, ENOMEM, "out of memory");
		}
		if ((rc = record_add(&p->rec, REC_REFERENCED, l->dev, l->ino, l->path)) < 0)
			return err_set(e, -rc, "recording %s in the registry", l->path);
	}
	return 0;
}

/* The work protect_prepare leaves to protect_materialize: the names to
 * create, each with its record entry and its placeholder in r->protects
 * (bound by path in the plan bwrap has by then). */
struct protect_pending {
	struct items todo;
	size_t *entry_of;    /* todo[i]'s record entry, SIZE_MAX for none */
	size_t *slot_of;     /* todo[i]'s placeholder in r->protects */
	pid_t bwrap;
};

static void pending_free(struct protect_pending *pd)
{
	if (!pd)
		return;
	items_free(&pd->todo);
	free(pd->entry_of);
	free(pd->slot_of);
	free(pd);
}

/* The name cordon will create, bound by path before it exists; its
 * (dev, ino) and descriptor are filled in once it does. */
static int push_placeholder(struct resolved *r, const char *path, size_t *slot)
{
	struct rpath p = { .fd = -1, .is_dir = 1, .late = 1 };
	if (!(p.path = strdup(path)))
		return -ENOMEM;
	*slot = r->nprotects;
	if (rpath_push(&r->protects, &r->nprotects, &p) < 0) {
		free(p.path);
		return -ENOMEM;
	}
	return 0;
}

/* Replace placeholder `slot` by the object just pushed last onto
 * r->protects (the same path, now opened and checked). */
static void fill_placeholder(struct resolved *r, size_t slot)
{
	struct rpath got = r->protects[--r->nprotects];
	rpath_free(&r->protects[slot]);
	got.late = 1; /* opened after bwrap was forked: bound by path */
	r->protects[slot] = got;
}

/* A writable root on a read-only mount: mkdir would fail with EROFS, and the
 * command cannot create the name either, so nothing is materialized. */
static int root_read_only(int rootfd)
{
	struct statvfs sv;
	return fstatvfs(rootfd, &sv) == 0 && (sv.f_flag & ST_RDONLY);
}

/* Create the directories whose intent is recorded, each filling its
 * placeholder.  The plan binds every placeholder by path already, so one
 * that cannot be filled fails the run (bwrap is then killed before it
 * mounts anything).  Entries left as intents leave the record. */
static int create_all(struct resolved *r, struct protect_run *p, struct cordon_err *e)
{
	const struct protect_pending *pd = p->pending;
	int rc = 0;
	for (size_t i = 0; i < pd->todo.n && rc == 0; i++) {
		if (pd->entry_of[i] == SIZE_MAX)
			continue;
		const struct item *it = &pd->todo.v[i];
		int rootfd = r->roots[it->root].fd;
		struct rec_entry *en = &p->rec.v[pd->entry_of[i]];
		struct rpath made;
		if (mkdirat(rootfd, it->name, 0755) < 0) {
			/* Created meanwhile by someone else: bind what is there
			 * (cordon-inner checks that it is what was opened here). */
			if (errno == EEXIST) {
				rc = resolve_protect_existing(r, rootfd, it->name, it->path, NULL, e);
				if (rc == 0)
					fill_placeholder(r, pd->slot_of[i]);
			} else {
				rc = err_sys(e, errno, "cannot create %s, the empty directory cordon "
					     "mounts read-only so that the sandbox cannot create the "
					     "protected name (is the writable root writable for you?)",
					     it->path);
			}
			continue;
		}
		int r2 = resolve_open_created(rootfd, it->name, it->path, &made);
		if (r2 < 0) {
			rc = err_sys(e, -r2, "cannot open %s, which cordon just created", it->path);
			/* rmdir removes nothing but an empty directory. */
			(void)unlinkat(rootfd, it->name, AT_REMOVEDIR);
			continue;
		}
		if (!made.is_dir) {
			rpath_free(&made);
			rc = err_set(e, EAGAIN, "%s changed while cordon created it; run again", it->path);
			continue;
		}
		en->kind = REC_CREATED;
		en->dev = made.dev;
		en->ino = made.ino;
		if (rpath_push(&r->protects, &r->nprotects, &made) < 0) {
			rpath_free(&made);
			rc = err_set(e, ENOMEM, "out of memory");
		} else {
			fill_placeholder(r, pd->slot_of[i]);
		}
	}
	for (size_t j = p->rec.n; j-- > 0;)
		if (p->rec.v[j].kind == REC_INTENT)
			record_remove(&p->rec, j);
	return rc;
}

/* Decide, under the lock, what this run binds: live runs' paths to share or
 * pin, existing names, and a placeholder for each name to create. */
static int classify(struct resolved *r, int full_write, struct protect_run *p,
		    struct cordon_err *e)
{
	struct protect_pending *pd = p->pending;
	int rc;
	if ((rc = revalidate(r, p, &pd->todo, e)) < 0)
		return rc;
	for (size_t i = 0; i < r->nmissing; i++)
		if (!has_protect(r, &pd->todo, r->missing[i].path) &&
		    items_add(&pd->todo, r->missing[i].root, r->missing[i].path) < 0)
			return err_set(e, ENOMEM, "out of memory");
	if ((rc = pin_live(r, full_write, p, &pd->todo, e)) < 0)
		return rc;
	size_t n = pd->todo.n ? pd->todo.n : 1;
	pd->entry_of = calloc(n, sizeof(*pd->entry_of));
	pd->slot_of = calloc(n, sizeof(*pd->slot_of));
	if (!pd->entry_of || !pd->slot_of)
		return err_set(e, ENOMEM, "out of memory");
	for (size_t i = 0; i < pd->todo.n; i++) {
		const struct item *it = &pd->todo.v[i];
		int rootfd = r->roots[it->root].fd;
		const struct rec_entry *l = live_find(&p->reg, it->path);
		struct stat st;
		pd->entry_of[i] = SIZE_MAX;
		if (fstatat(rootfd, it->name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
			if (errno != ENOENT)
				return err_sys(e, errno, "cannot inspect protected %s", it->path);
			if (root_read_only(rootfd))
				continue;
			pd->entry_of[i] = p->rec.n;
			if ((rc = record_add(&p->rec, REC_INTENT, 0, 0, it->path)) < 0)
				return err_set(e, -rc, "recording %s in the registry", it->path);
			if (push_placeholder(r, it->path, &pd->slot_of[i]) < 0)
				return err_set(e, ENOMEM, "out of memory");
			continue;
		}
		if (l && S_ISDIR(st.st_mode) && st.st_dev == l->dev && st.st_ino == l->ino) {
			/* Another live run's: share it, the last one out removes it. */
			struct rpath ref;
			int r2 = resolve_open_at(rootfd, it->name, it->path, st.st_dev, st.st_ino, &ref);
			if (r2 < 0)
				return err_set(e, r2 == -ENOMEM ? ENOMEM : EAGAIN,
					       "protected %s changed while cordon looked at it; run again",
					       it->path);
			if (rpath_push(&r->protects, &r->nprotects, &ref) < 0) {
				rpath_free(&ref);
				return err_set(e, ENOMEM, "out of memory");
			}
			if ((rc = record_add(&p->rec, REC_REFERENCED, l->dev, l->ino, it->path)) < 0)
				return err_set(e, -rc, "recording %s in the registry", it->path);
			continue;
		}
		if ((rc = resolve_protect_existing(r, rootfd, it->name, it->path, &st, e)) < 0)
			return rc;
	}
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

int protect_prepare(struct resolved *r, int full_write, pid_t bwrap, struct protect_run *p,
		    struct cordon_err *e)
{
	int rc = registry_open(&p->reg, e);
	if (rc < 0) {
		/* A registry that does not exist (and cannot be created) holds
		 * no records and needs no carve-out: with nothing to
		 * materialize, there is nothing it could add.  One that exists
		 * but cannot be used fails the run: its sweep, its carve-out
		 * and the pins of live runs would be skipped. */
		if (!p->reg.absent || r->nmissing)
			return err_wrap(e, "cannot use the registry of materialized paths");
		registry_close(&p->reg);
		return start_guard(p, 0, e);
	}
	if (!(p->pending = calloc(1, sizeof(*p->pending))))
		return err_set(e, ENOMEM, "out of memory");
	p->pending->bwrap = bwrap;
	/* Held until protect_materialize: what is decided here stays true. */
	if ((rc = registry_lock(&p->reg, e)) < 0)
		return rc;
	if ((rc = registry_sweep(&p->reg, NULL, NULL, NULL, e)) == 0 &&
	    (rc = registry_carve(r, full_write, &p->reg, e)) == 0 &&
	    (rc = classify(r, full_write, p, e)) == 0)
		rc = start_guard(p, p->rec.n > 0, e);
	return rc;
}

int protect_materialize(struct resolved *r, struct protect_run *p, struct cordon_err *e)
{
	int rc = 0;
	/* Nothing to own or share: no guardian, no record. */
	if (p->pending && p->name[0]) {
		/* Intent first, on disk, then the directories: a crash in
		 * between leaves a record that names every path that may exist. */
		record_sandbox(p, p->pending->bwrap);
		if ((rc = registry_write(&p->reg, p->name, &p->rec, e)) == 0) {
			rc = create_all(r, p, e);
			int w = registry_write(&p->reg, p->name, &p->rec, rc < 0 ? NULL : e);
			if (rc == 0)
				rc = w;
		}
	}
	pending_free(p->pending);
	p->pending = NULL;
	registry_unlock(&p->reg);
	return rc;
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
	pending_free(p->pending);
	p->pending = NULL;
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

int protect_explain(struct resolved *r, struct cordon_err *e)
{
	/* The mounts a run would add for them, bound by path as a run binds
	 * what it creates after bwrap started; nothing is created here. */
	for (size_t i = 0; i < r->nmissing; i++) {
		struct rpath p = { .fd = -1, .is_dir = 1, .late = 1 };
		p.path = strdup(r->missing[i].path);
		if (!p.path || rpath_push(&r->protects, &r->nprotects, &p) < 0) {
			free(p.path);
			return err_set(e, ENOMEM, "out of memory");
		}
	}
	return 0;
}
