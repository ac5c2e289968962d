/* reclaim.c: see reclaim.h.  The order of the rules is the policy: liveness
 * first (a live run's path is never judged on its contents), then sharing,
 * then identity, then contents. */
#include "hostpaths/reclaim.h"

#include <string.h>

int reclaim_run_alive(const struct record *rec, const struct run_facts *f, const char **why)
{
	const char *dummy;
	if (!why)
		why = &dummy;
	if (strcmp(rec->boot, f->boot_now) != 0) {
		*why = "its run belongs to an earlier boot";
		return 0;
	}
	/* Pids of another PID namespace (a container sharing this home) mean
	 * nothing here: such a run may be alive, so its paths stay. */
	if (rec->pidns != f->pidns_now) {
		*why = "its run belongs to another PID namespace";
		return 1;
	}
	int reused = 0;
	for (int i = 0; i < REC_NPROCS; i++) {
		const struct rec_proc *p = &rec->proc[i];
		if (p->pid <= 0)
			continue;
		if (f->start_now[i] == p->start) {
			*why = i == REC_OWNER ? "its run is still alive"
			     : i == REC_GUARDIAN ? "its run's guardian is still cleaning up"
						 : "its sandbox is still alive";
			return 1;
		}
		if (f->start_now[i] != 0)
			reused = 1;
	}
	*why = reused ? "its run is over (its pid now belongs to another process)"
		      : "its run is over";
	return 0;
}

static int used_by_live(const struct rec_entry *en, const struct rec_entry *live, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (strcmp(live[i].path, en->path) == 0)
			return 1;
		if (en->kind != REC_INTENT && live[i].kind != REC_INTENT &&
		    live[i].dev == en->dev && live[i].ino == en->ino)
			return 1;
	}
	return 0;
}

static int time_before(struct rec_time a, struct rec_time b)
{
	return a.sec < b.sec || (a.sec == b.sec && a.nsec < b.nsec);
}

/* An intent has no inode: cordon stopped between writing it and recording
 * the directory it made.  A directory born after the intent was written
 * (the record's mtime, which a sweep's rewrite keeps: registry_rewrite;
 * both stamps come from the same coarse clock, so "not before") is the
 * one that run made: nobody else could create the name while that run
 * held the registry lock and the name was missing. */
static struct reclaim_decision intent_decide(const struct reclaim_input *in)
{
	const struct path_fact *now = &in->now;
	if (!now->is_dir)
		return (struct reclaim_decision){ RECLAIM_KEEP, "not a directory" };
	if (!now->is_empty)
		return (struct reclaim_decision){ RECLAIM_KEEP, "not empty" };
	if (!now->has_btime || !in->has_written)
		return (struct reclaim_decision){
			RECLAIM_KEEP, "no inode was recorded for it and its filesystem keeps no birth "
				      "time; remove it by hand if it is an empty directory you do not need" };
	if (time_before(now->btime, in->written))
		return (struct reclaim_decision){ RECLAIM_KEEP, "it existed before its run meant "
							  "to create it" };
	return (struct reclaim_decision){ RECLAIM_REMOVE, "empty, unused, and created by a run "
							  "that stopped while creating it" };
}

struct reclaim_decision reclaim_decide(const struct reclaim_input *in)
{
	const struct rec_entry *en = in->entry;
	const struct path_fact *now = &in->now;
	const char *why;

	if (!in->released && reclaim_run_alive(in->rec, in->facts, &why))
		return (struct reclaim_decision){ RECLAIM_KEEP, why };
	if (used_by_live(en, in->live, in->nlive))
		return (struct reclaim_decision){ RECLAIM_KEEP, "in use by another live run" };
	if (!now->exists)
		return (struct reclaim_decision){ RECLAIM_DROP, "already gone" };
	if (now->via_link)
		return (struct reclaim_decision){ RECLAIM_KEEP, "reached through a symbolic link, "
							  "not the path its run used" };
	if (!now->name_ok)
		return (struct reclaim_decision){ RECLAIM_KEEP, "not a protected name: cordon "
							  "never creates it" };
	if (en->kind == REC_INTENT)
		return intent_decide(in);
	if (now->dev != en->dev || now->ino != en->ino)
		return (struct reclaim_decision){ RECLAIM_KEEP, "not cordon's: it was replaced since" };
	if (now->is_reg)
		return (struct reclaim_decision){ RECLAIM_KEEP, "a file, not cordon's empty directory" };
	if (!now->is_dir)
		return (struct reclaim_decision){ RECLAIM_KEEP, "not a directory" };
	if (!now->is_empty)
		return (struct reclaim_decision){ RECLAIM_KEEP, "not empty" };
	return (struct reclaim_decision){ RECLAIM_REMOVE, "empty, unused, and created by a finished run" };
}
