/* protect.c: see protect.h.  Belongs here: the run's record (the registry:
 * open, lock, sweep, release; its record and guardian) and the end of the
 * run.  The names are gathered in protect_gather.c, decided on and applied
 * in protect_apply.c; placeholders are made in protect_materialize.c. */
#include "hostpaths/protect.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "hostpaths/gitmode.h"
#include "hostpaths/protect_apply.h"
#include "hostpaths/registry_io.h"
#include "hostpaths/registry_sweep.h"
#include "path.h"
#include "procstat.h"
#include "sys.h"
#include "grow.h"

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
	if (grow_reserve(&p->swept, &p->capswept, p->nswept + 1, sizeof(*p->swept)) < 0)
		return; /* the name then counts as existing: its bind fails the run */
	if ((p->swept[p->nswept] = strdup(path)))
		p->nswept++;
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

int protect_prepare(const struct resolved *r, int full_write, pid_t bwrap, struct protect_run *p,
		    struct cordon_err *e)
{
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
		if ((rc = protect_apply(r, full_write, 0, p, e)) < 0)
			return rc;
		return start_guard(p, 0, e);
	}
	/* Held until protect_materialize: what is decided here stays true. */
	if ((rc = registry_lock(&p->reg, e)) < 0)
		return rc;
	if ((rc = registry_sweep(&p->reg, NULL, note_swept, p, e)) < 0)
		return rc;
	if ((rc = protect_apply(r, full_write, 1, p, e)) < 0)
		return rc;
	return start_guard(p, p->rec.n > 0, e);
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
	for (size_t i = 0; i < p->nnames; i++) {
		sys_close(&p->names[i].fd);
		if (p->names[i].via)
			sys_close(&p->names[i].dirfd);
		if (protect_holds_entry(&p->names[i]))
			sys_close(&p->names[i].hold);
	}
	for (size_t i = 0; i < p->nlive; i++)
		sys_close(&p->live[i].fd);
	for (size_t i = 0; i < p->nchecks; i++)
		sys_close(&p->checks[i].fd);
	gitmode_close(p->git);
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
	gitmode_free(p->git);
	p->git = NULL;
	protect_decision_free(&p->plan);
	p->names = NULL;
	p->roots = NULL;
	p->live = NULL;
	p->swept = NULL;
	p->checks = NULL;
	p->nnames = p->nroots = p->nlive = p->nswept = p->nchecks = 0;
	p->capnames = p->capswept = p->capchecks = 0;
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

/* The registry's part of the release; dismiss: the guardian's too. */
static void release(struct protect_run *p, int dismiss)
{
	struct cordon_err e;
	protect_apply_drop_held(p);
	facts_free(p);
	/* While bwrap may still run its mount points are in use: then (and if
	 * the release fails) the guardian, left without "done", waits for the
	 * sandbox to go and cleans up itself. */
	if ((p->sandbox > 0 && sandbox_running(p->sandbox)) ||
	    (p->name[0] && (registry_lock(&p->reg, &e) < 0 ||
			    registry_release(&p->reg, p->name, &p->rec, &e) < 0)))
		p->left_to_guardian = 1;
	if (dismiss) {
		if (!p->left_to_guardian)
			guardian_done(&p->guard);
		guardian_abandon(&p->guard);
	}
	registry_close(&p->reg);
	record_free(&p->rec);
	p->name[0] = '\0';
	p->sandbox = 0;
}

void protect_release(struct protect_run *p)
{
	release(p, 1);
}

/* The guardian stays: cordon's end (observe/observer.h) is still to come,
 * and the guardian redoes it if cordon dies before protect_release. */
void protect_command_gone(struct protect_run *p)
{
	p->sandbox = 0;
	release(p, 0);
}
