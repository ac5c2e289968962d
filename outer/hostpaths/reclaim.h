/* reclaim.h: whether a path in a run's record may be removed.  Pure: every
 * fact about the world (boot id, processes, the path on disk, the other live
 * runs) comes in as data, so each rule is unit-tested with fake facts; the
 * registry gathers the facts and performs the verdict (rmdir, never more).
 *
 * A path is removed only when its run is over, no live run still uses it,
 * it is reached without a symbolic link, its name is a protected name, it is
 * still the very directory the run created (same dev and inode; for an
 * intent, which has none yet, a directory born after the intent was written)
 * and it is still empty.  Everything else is kept: a real repository, a
 * worktree .git file, anything with content, anything recreated in its
 * place, anything a forged record names. */
#ifndef CORDON_RECLAIM_H
#define CORDON_RECLAIM_H

#include <stddef.h>
#include <stdint.h>
#include "hostpaths/record.h"

enum reclaim_verdict {
	RECLAIM_REMOVE,   /* rmdir it */
	RECLAIM_KEEP,     /* leave it, and say why */
	RECLAIM_DROP,     /* nothing there any more: just forget the entry */
};

/* What is known now about the processes of a record. */
struct run_facts {
	const char *boot_now;               /* this boot's id */
	uint64_t pidns_now;                 /* inode of our PID namespace */
	uint64_t start_now[REC_NPROCS];     /* current start time of the record's
					     * proc[i].pid; 0: no such process */
};

struct rec_time {
	int64_t sec;
	uint32_t nsec;
};

/* What lstat (and a look inside) says about the path now. */
struct path_fact {
	int exists;
	int via_link;                       /* a component above it is a symbolic link */
	int name_ok;                        /* a name cordon may remove (entrypath.h) */
	uint64_t dev, ino;
	int is_dir, is_reg;
	int is_empty;                       /* a directory with no entry; 0 if unknown */
	int has_btime;                      /* the filesystem records birth times */
	struct rec_time btime;
};

struct reclaim_input {
	const struct record *rec;
	const struct rec_entry *entry;      /* one of rec's entries */
	int released;                       /* the run itself (or its guardian) is
					     * releasing the record: it is over */
	const struct run_facts *facts;      /* unused when released */
	int has_written;                    /* the record file's last write is known */
	struct rec_time written;            /* (its mtime): when its intents were written */
	const struct rec_entry *live;       /* entries of the other live runs */
	size_t nlive;
	struct path_fact now;
};

struct reclaim_decision {
	enum reclaim_verdict verdict;
	const char *why;                    /* static text */
};

/* 1 if the run of rec is alive (cordon, its guardian or its bwrap still runs
 * with the recorded start time, or the record belongs to another PID
 * namespace of this boot, where cordon cannot tell); 0 if it is over.  *why
 * (if why is not NULL) names the reason. */
int reclaim_run_alive(const struct record *rec, const struct run_facts *f, const char **why);

struct reclaim_decision reclaim_decide(const struct reclaim_input *in);

#endif
