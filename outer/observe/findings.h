/* findings.h: the one list of what a run's observers found (observe/observer.h).
 * Each observer's settle appends to it; the stderr lines, --report and the
 * exit status (observe/status.h) are all read from it, nothing else.
 *
 * Appending never fails a run: a finding that cannot be stored (out of
 * memory) is said on stderr at once and still counted as a violation
 * (findings.lost), so that the status stays fail-closed. */
#ifndef CORDON_OBSERVE_FINDINGS_H
#define CORDON_OBSERVE_FINDINGS_H

#include <stddef.h>
#include <stdio.h>

enum finding_kind {
	FINDING_NOTE,            /* only a line on stderr */
	FINDING_PROTECTED_NAME,  /* a watched name the command created: a violation */
	FINDING_ROOT_MOVED,      /* a root's path leads elsewhere now: a violation */
	FINDING_ROOTS_UNCHECKED, /* a root could not be checked: the run fails closed */
	FINDING_STOPPED,         /* cordon stopped the sandbox for a name: a violation */
	FINDING_GIT_STATE,       /* --git commit: an entry moved aside (the status stays
				  * the command's: the move is the whole answer) */
	FINDING_GIT_REF,         /* --git commit: a ref that changed */
	FINDING_GIT_REFS_GAP,    /* --git commit: refs that could not all be read */
	FINDING_NET_DECISION,    /* --net proxy: one of the bridge's decisions, a struct
				  * wire_bridge_decision held in name (len bytes) */
};

struct finding {
	enum finding_kind kind;
	/* Owned copies, NULL when not given.  GIT_REF and GIT_REFS_GAP: path is
	 * the git dir, name the ref (GIT_REF), detail the reason (GAP). */
	char *name, *path, *moved, *detail;
	size_t len;              /* NET_DECISION: the bytes of name */
	char old_id[72], new_id[72]; /* GIT_REF: "" created, deleted */
	long commits;            /* GIT_REF: commits it gained, -1 unknown */
	char *say;               /* whole lines for stderr, owned, NULL: none */
	int say_if_failed;       /* said only when the run failed (status.h) */
	int said;
};

struct findings {
	struct finding *v;
	size_t n, cap;
	size_t lost;             /* violations that could not be stored (said at once) */
};

#define FINDINGS_INIT { NULL, 0, 0, 0 }

/* Append a copy of x (its strings duplicated, say too).  Out of memory:
 * x->say is written to stderr now and a violation counted in lost. */
void findings_add(struct findings *f, const struct finding *x);

/* Pure: 1 if the kind counts against the run (status.h). */
int findings_is_violation(enum finding_kind k);

/* Write every line not said yet, in the order appended: with status_known
 * 0, only those not held for the status (say_if_failed); with it, those
 * too when failed. */
void findings_say(struct findings *f, int status_known, int failed);

/* The text say(out, arg) writes, as a string of the caller's to free; NULL
 * when it cannot be had (out of memory): then the caller says it on stderr
 * itself, never loses it. */
char *findings_compose(void (*say)(FILE *out, const void *arg), const void *arg);

void findings_free(struct findings *f);

#endif
