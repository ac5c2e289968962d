/* registry_sweep.c: see registry_sweep.h. */
#include "config.h"
#include "hostpaths/registry_sweep.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "hostpaths/entrypath.h"
#include "hostpaths/registry_io.h"
#include "path.h"
#include "procstat.h"
#include "sys.h"
#include "grow.h"

#define MAX_RECORDS 65536

struct loaded {
	char name[REC_NAME_MAX];
	struct record rec;
	int alive;
	int released;
	int trusted;                /* the run's own copy, from memory */
	const char *why;
	struct run_facts facts;     /* as seen when the record was loaded */
	int has_written;
	struct rec_time written;    /* the file's mtime */
};

static void facts_for(const struct registry *reg, const struct record *rec, struct run_facts *f)
{
	f->boot_now = reg->boot;
	f->pidns_now = reg->pidns;
	for (int i = 0; i < REC_NPROCS; i++) {
		f->start_now[i] = 0;
		if (rec->proc[i].pid <= 0)
			continue;
		uint64_t s = 0;
		int r = procstat_start(rec->proc[i].pid, &s);
		if (r == 0)
			f->start_now[i] = s;
		else if (r != -ESRCH)
			/* Cannot tell (say /proc hides it): assume it is that process. */
			f->start_now[i] = rec->proc[i].start;
	}
}

static void report_errno(registry_report_fn fn, void *ctx, const char *path,
			 const char *what, int err)
{
	char why[160];
	(void)snprintf(why, sizeof(why), "%s: %s", what, strerror(err));
	if (fn)
		fn(ctx, path, RECLAIM_KEEP, why);
}

#define WHY_HELD "in use by another sandbox (a run of another registry binds it); " \
		 "removed once that sandbox ends"

/* Judge and carry out one entry of a record whose run is over.  1 when it
 * must stay in the record (it could not be looked at or removed: the next
 * sweep tries again), 2 when it stays because another sandbox still binds
 * it, else 0. */
static int settle_entry(const struct registry *reg, const struct loaded *l,
			const struct rec_entry *en, registry_report_fn fn, void *ctx)
{
	struct reclaim_input in = {
		.rec = &l->rec, .entry = en, .released = l->released, .facts = &l->facts,
		.has_written = l->has_written, .written = l->written,
		.live = reg->live, .nlive = reg->nlive,
	};
	struct entrypath h = ENTRYPATH_INIT;
	int again = 0;

	int r = entrypath_look(en->path, l->trusted, &h, &in.now);
	if (r == -EINVAL) {
		/* Not a clean absolute path: no run of cordon wrote it. */
		if (fn)
			fn(ctx, en->path, RECLAIM_KEEP, "not a path cordon records");
		entrypath_close(&h);
		return 0;
	}
	if (r < 0) {
		report_errno(fn, ctx, en->path, "cannot inspect it", -r);
		entrypath_close(&h);
		return 1;
	}
	struct reclaim_decision d = reclaim_decide(&in);
	if (d.verdict == RECLAIM_REMOVE) {
		r = entrypath_remove(&h);
		if (r == 0) {
			if (fn)
				fn(ctx, en->path, RECLAIM_REMOVE, d.why);
		} else if (r == -EBUSY) {
			if (fn)
				fn(ctx, en->path, RECLAIM_KEEP, WHY_HELD);
			again = 2;
		} else if (r == -ESTALE || r == -ENOTEMPTY || r == -EEXIST) {
			/* Changed since the look: no longer the empty directory
			 * the verdict was about. */
			if (fn)
				fn(ctx, en->path, RECLAIM_KEEP, "changed while cordon looked at it");
		} else if (r != -ENOENT) {
			report_errno(fn, ctx, en->path, "cannot remove it", -r);
			again = 1;
		}
	} else if (d.verdict == RECLAIM_KEEP && fn) {
		fn(ctx, en->path, RECLAIM_KEEP, d.why);
	}
	entrypath_close(&h);
	return again;
}

/* Settle every entry of a dead (or released) run, then delete its record,
 * or rewrite it with the entries left to retry.  *held is set when one of
 * them stays because another sandbox binds it. */
static int settle_record(struct registry *reg, const struct loaded *l, const char *name,
			 int *held, registry_report_fn fn, void *ctx, struct cordon_err *e)
{
	struct record left = { .pidns = l->rec.pidns };
	int rc = 0;
	memcpy(left.boot, l->rec.boot, sizeof(left.boot));
	memcpy(left.proc, l->rec.proc, sizeof(left.proc));
	for (size_t j = 0; j < l->rec.n; j++) {
		const struct rec_entry *en = &l->rec.v[j];
		int kept = settle_entry(reg, l, en, fn, ctx);
		*held |= kept == 2;
		if (kept && rc == 0 &&
		    (rc = record_add(&left, en->kind, en->dev, en->ino, en->path)) < 0)
			rc = err_set(e, -rc, "out of memory");
	}
	/* Every entry kept: the file already says exactly this (a run's own
	 * copy aside, which the file may lag behind).  A guardian that sweeps
	 * again and again while another sandbox binds a directory rewrote it
	 * on every round. */
	if (rc == 0 && left.n > 0) {
		if (left.n < l->rec.n || l->trusted)
			rc = l->has_written ? registry_rewrite(reg, name, &left, &l->written, e)
					    : registry_write(reg, name, &left, e);
	} else if (rc == 0 && unlinkat(reg->dirfd, name, 0) < 0 && errno != ENOENT) {
		rc = err_sys(e, errno, "registry %s: cannot delete %s", reg->path, name);
	}
	record_free(&left);
	return rc;
}

static int is_prefixed(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* Load one record file into l: 1 loaded, 0 skipped (reported), <0 error. */
static int load_one(struct registry *reg, const char *nm, const char *released,
		    struct loaded *l, registry_report_fn fn, void *ctx, struct cordon_err *e)
{
	char why[128];
	char shown[PATH_MAX + NAME_MAX + 2];
	memset(l, 0, sizeof(*l));
	(void)snprintf(shown, sizeof(shown), "%s/%s", reg->path, nm);
	if (strlen(nm) >= sizeof(l->name)) {
		if (fn)
			fn(ctx, shown, RECLAIM_KEEP, "unreadable record: name too long");
		return 0;
	}
	memcpy(l->name, nm, strlen(nm) + 1);
	int r = registry_read(reg, nm, &l->rec, &l->written, why, sizeof(why));
	if (r == -ENOMEM)
		return err_set(e, ENOMEM, "out of memory");
	if (r < 0) {
		/* Not cordon's to judge: leave the file and every path. */
		char msg[200];
		(void)snprintf(msg, sizeof(msg), "unreadable record: %s", why);
		if (fn)
			fn(ctx, shown, RECLAIM_KEEP, msg);
		return 0;
	}
	l->has_written = 1;
	if (released && strcmp(nm, released) == 0) {
		l->released = 1;
	} else {
		facts_for(reg, &l->rec, &l->facts);
		l->alive = reclaim_run_alive(&l->rec, &l->facts, &l->why);
	}
	return 1;
}

static int load_all(struct registry *reg, const char *released, int skip_released,
		    struct loaded **out, size_t *nout, registry_report_fn fn, void *ctx,
		    struct cordon_err *e)
{
	DIR *d = NULL;
	int rc = registry_opendir(reg, &d, e);
	if (!d)
		return rc;
	struct loaded *v = NULL;
	size_t n = 0, cap = 0;
	struct dirent *de;
	while (rc == 0 && (de = readdir(d))) {
		const char *nm = de->d_name;
		if (is_prefixed(nm, REGISTRY_TMP_PREFIX REGISTRY_RECORD_PREFIX)) {
			(void)unlinkat(reg->dirfd, nm, 0);
			continue;
		}
		if (!is_prefixed(nm, REGISTRY_RECORD_PREFIX) ||
		    (skip_released && released && strcmp(nm, released) == 0))
			continue;
		if (n >= MAX_RECORDS) {
			rc = err_set(e, E2BIG, "registry %s holds more than %d records; "
				     "remove the stale ones by hand", reg->path, MAX_RECORDS);
			break;
		}
		if (grow_reserve(&v, &cap, n + 1, sizeof(*v)) < 0) {
			rc = err_set(e, ENOMEM, "out of memory");
			break;
		}
		int r = load_one(reg, nm, released, &v[n], fn, ctx, e);
		if (r < 0)
			rc = r;
		else
			n += (size_t)r;
	}
	(void)closedir(d);
	*out = v;
	*nout = n;
	return rc;
}

/* The entries of live runs become reg->live. */
static int collect_live(struct registry *reg, const struct loaded *v, size_t n,
			registry_report_fn fn, void *ctx, struct cordon_err *e)
{
	for (size_t i = 0; i < n; i++) {
		if (!v[i].alive)
			continue;
		for (size_t j = 0; j < v[i].rec.n; j++) {
			const struct rec_entry *en = &v[i].rec.v[j];
			if (grow_reserve(&reg->live, &reg->caplive, reg->nlive + 1,
					 sizeof(*reg->live)) < 0)
				return err_set(e, ENOMEM, "out of memory");
			char *p = strdup(en->path);
			if (!p)
				return err_set(e, ENOMEM, "out of memory");
			reg->live[reg->nlive++] = (struct rec_entry){ en->kind, en->dev, en->ino, p };
			if (fn)
				fn(ctx, en->path, RECLAIM_KEEP, v[i].why);
		}
	}
	return 0;
}

static int sweep(struct registry *reg, const char *released, const struct record *mine,
		 registry_report_fn fn, void *ctx, struct cordon_err *e)
{
	struct loaded *v = NULL;
	size_t n = 0;
	int rc;

	if (!reg->locked)
		return err_set(e, EINVAL, "internal: registry swept without its lock");
	if ((rc = registry_facts(reg, e)) < 0)
		return rc;
	registry_live_free(reg);
	rc = load_all(reg, released, mine != NULL, &v, &n, fn, ctx, e);
	if (rc == 0)
		rc = collect_live(reg, v, n, fn, ctx, e);
	int held = 0, mine_held = 0;
	for (size_t i = 0; rc == 0 && i < n; i++) {
		int h = 0;
		if (!v[i].alive)
			rc = settle_record(reg, &v[i], v[i].name, &h, fn, ctx, e);
		held |= h && v[i].released;
	}
	if (rc == 0 && mine) {
		/* The run's own copy: trusted (it never left memory), and its
		 * intents were resolved before it was kept. */
		struct loaded l = { .rec = *mine, .released = 1, .trusted = 1 };
		rc = settle_record(reg, &l, released, &mine_held, fn, ctx, e);
	}
	if (rc == 0 && (held || mine_held))
		rc = err_set(e, EBUSY, "%s", WHY_HELD);
	for (size_t i = 0; i < n; i++)
		record_free(&v[i].rec);
	free(v);
	return rc;
}

int registry_sweep(struct registry *reg, const char *released, registry_report_fn fn,
		   void *ctx, struct cordon_err *e)
{
	return sweep(reg, released, NULL, fn, ctx, e);
}

int registry_release(struct registry *reg, const char *name, const struct record *mine,
		     struct cordon_err *e)
{
	return sweep(reg, name, mine, NULL, NULL, e);
}

int registry_wait_unbound(const struct registry *reg, const char *name, long timeout_ms)
{
	struct record rec = { 0 };
	struct rec_time written;
	char why[128];
	int rc = registry_read(reg, name, &rec, &written, why, sizeof(why));
	if (rc < 0)
		return rc;
	/* Every entry the sweep may remove, not only the ones the run
	 * created: a placeholder it shared from a run that is gone now (a
	 * referenced one), or one it made but recorded only as an intent (it
	 * was killed between its two writes), is removed as well, and a
	 * sandbox started meanwhile that found the directory there binds and
	 * locks it.  Skipping those made the guardian's sweep and this wait a
	 * loop without a pause for as long as that sandbox ran. */
	long long until = sys_now_ms() + timeout_ms;
	int waited = 0;
	for (size_t i = 0; i < rec.n && rc == 0; i++) {
		const struct rec_entry *en = &rec.v[i];
		if (!config_is_default_name(path_base(en->path)))
			continue;
		long left = (long)(until - sys_now_ms());
		int r = entrypath_wait_unbound(en->path, en->dev, en->ino, left > 0 ? left : 0);
		if (r == 1)
			waited = 1;
		else if (r == -ETIMEDOUT)
			rc = r;
	}
	record_free(&rec);
	return rc < 0 ? rc : waited;
}

static void print_report(void *ctx, const char *path, enum reclaim_verdict v, const char *why)
{
	FILE *out = ctx;
	if (v == RECLAIM_REMOVE)
		(void)fprintf(out, "removed %s\n", path);
	else if (v == RECLAIM_KEEP)
		(void)fprintf(out, "kept %s: %s\n", path, why);
}

int registry_reclaim(FILE *out, struct cordon_err *e)
{
	struct registry reg = REGISTRY_INIT;
	int rc = registry_open(&reg, e);
	if (rc < 0)
		return rc;
	if ((rc = registry_lock(&reg, e)) == 0)
		rc = registry_sweep(&reg, NULL, print_report, out, e);
	registry_close(&reg);
	return rc;
}
