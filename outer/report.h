/* report.h: --report FILE, one JSON object written when the run ends:
 * normally, after a timeout, a signal, a protected-name violation, or a
 * failure to build the sandbox (125).  Its schema is in README.md.
 *
 * report_open is called before anything runs and holds the directory FILE
 * goes in: the command may be able to write there, and must not be able to
 * turn FILE, or a directory on the way to it, into a link that sends
 * cordon's write somewhere else.  The report is written to a new file in
 * that directory and renamed over FILE.
 *
 * What the run's observers found reaches it as one list at the end
 * (report_add_findings, observe/findings.h): protected names created,
 * roots moved, git state moved aside, refs, the bridge's decisions.  A
 * NULL report ignores them. */
#ifndef CORDON_REPORT_H
#define CORDON_REPORT_H

#include <stddef.h>
#include <sys/resource.h>
#include <time.h>
#include "argv.h"
#include "config.h"
#include "err.h"
#include "wire_bridge.h"
#include "wstatus.h"
#include "observe/findings.h"
#include "plan/limits.h"
#include "plan/procmode.h"
#include "plan/protect_decide.h"
#include "plan/resolve.h"

#define REPORT_MAX_VIOLATIONS 64
#define REPORT_MAX_REFUSALS 64
#define REPORT_MAX_REFS 64
#define REPORT_MAX_REF_GAPS 16

/* --git commit: a repository whose refs could not all be read (gitrefs.h). */
struct report_ref_gap {
	char *repo, *why;     /* owned */
};

/* --git commit: a ref whose value changed during the run (gitrefs.h). */
struct report_ref {
	char *repo;           /* its git dir, owned (NULL: out of memory) */
	char *name;           /* "refs/heads/main" as read, any bytes, owned */
	char old_id[72];      /* "": it is new */
	char new_id[72];      /* "": it was deleted */
	long commits;         /* commits it gained (gitrefs.h); -1: unknown */
};

struct report_violation {
	char kind[32];        /* "protected_name" */
	char name[256];       /* the protected name, ".git" */
	char path[512];       /* what was created */
	char quarantined[512]; /* where it was moved aside; "": not moved */
	char detail[160];
};

struct report_refusal {
	char host[256];
	unsigned port;
	char reason[64];
};

/* What cordon saw of the run's end (run.c fills it). */
struct report_outcome {
	int started;          /* the command was exec'd */
	int timed_out;
	int timeout_killed;   /* after the timeout's SIGTERM, --kill-after ended it */
	int cpu_exceeded;     /* the tree reached --limit-cpu */
	int forwarded;        /* the signal cordon was asked to end the run with, 0: none */
	int have_error;       /* cordon-inner sent an error (126, 127, 125) */
	int have_end;         /* `end` is known (outcome_command_end) */
	struct wstatus_end end; /* how the command ended: exited N or signaled N */
	int have_rusage;
	struct rusage rusage; /* of bwrap and everything it waited for: the sandbox */
};

struct report {
	int dirfd;            /* -1: no report asked for */
	char cache_dir[4096]; /* the run's cache directory (--cache private), "" if none */
	const struct argv *cmd_env; /* the command's environment, NULL if not built yet */
	char *name;           /* FILE's last component, owned */
	const char *path;     /* FILE as given */
	struct timespec t0;   /* CLOCK_MONOTONIC at report_init */
	time_t started_at;
	struct report_outcome out;
	struct report_violation violations[REPORT_MAX_VIOLATIONS];
	size_t nviolations, violations_dropped;
	unsigned long long net_allowed, net_refused;
	struct report_refusal refusals[REPORT_MAX_REFUSALS];
	size_t nrefusals;
	struct report_ref refs[REPORT_MAX_REFS];
	size_t nrefs, refs_dropped;
	struct report_ref_gap ref_gaps[REPORT_MAX_REF_GAPS];
	size_t nref_gaps;
	struct limits_plan limits; /* how the run's limits were enforced */
	int have_limits;
	/* Why missing protected names got placeholders instead of a watch
	 * (protect_watch.h: the caller's inotify budget was spent), "" when they did
	 * not. */
	char watch_fallback[160];
	struct procmode_facts pm;  /* the PID namespace mode (pm.decided 0: none yet) */
};

/* Start the clock; no report yet (dirfd -1).  Never fails. */
void report_init(struct report *r);

/* Hold the directory of PATH for the report.  0 or -errno (125: the run
 * must not start when its report could not be written). */
int report_open(struct report *r, const char *path, struct cordon_err *e)
	__attribute__((warn_unused_result));

/* name, quarantined and detail may be NULL. */
void report_add_violation(struct report *r, const char *kind, const char *name,
			  const char *path, const char *quarantined, const char *detail);
/* --git commit: a ref that changed; old or new NULL: created, deleted;
 * commits it gained, -1 unknown.  r may be NULL. */
void report_add_ref(struct report *r, const char *repo, const char *name, const char *old_id,
		    const char *new_id, long commits);
/* --git commit: the refs of repo could not all be read, and why.  r may be
 * NULL. */
void report_add_refs_gap(struct report *r, const char *repo, const char *why);
void report_add_net(struct report *r, int allowed, const char *host, unsigned port,
		    const char *reason);
/* One of the bridge's decisions (wire_bridge.h), as report_add_net: an
 * allowed one counts as allowed, any other as refused with its reason.  r
 * may be NULL. */
void report_add_net_decision(struct report *r, const struct wire_bridge_decision *d);

/* Every finding of the run's observers (observe/findings.h) that the
 * report lists: violations, refs, net decisions.  r may be NULL. */
void report_add_findings(struct report *r, const struct findings *f);

/* Write the report: c (NULL when the flags could not be parsed), res (the
 * resolved paths, NULL if none yet), d (protect's decision, NULL if none), cordon's exit status and, for a
 * 125/126/127, its message.  0 or -errno. */
int report_write(struct report *r, const struct config *c, const struct resolved *res,
		 const struct protect_decision *d, int status, const struct cordon_err *err,
		 struct cordon_err *e)
	__attribute__((warn_unused_result));

void report_close(struct report *r);

#endif
