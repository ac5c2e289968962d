/* reclaim.h: whether a path in a run's record may be removed.  Pure: every
 * fact about the world (boot id, processes, the path on disk, the other live
 * runs) comes in as data, so each rule is unit-tested with fake facts; the
 * registry gathers the facts and performs the verdict (rmdir, never more).
 *
 * A path is removed only when its run is over, no live run still uses it,
 * it is still the very directory the run created (same dev and inode), and
 * it is still empty.  Everything else is kept: a real repository, a worktree
 * .git file, anything with content, anything recreated in its place. */
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

/* What lstat (and a look inside) says about the path now. */
struct path_fact {
	int exists;
	uint64_t dev, ino;
	int is_dir, is_reg;
	int is_empty;                       /* a directory with no entry; 0 if unknown */
};

struct reclaim_input {
	const struct record *rec;
	const struct rec_entry *entry;      /* one of rec's entries */
	int released;                       /* the run itself (or its guardian) is
					     * releasing the record: it is over */
	const struct run_facts *facts;      /* unused when released */
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
