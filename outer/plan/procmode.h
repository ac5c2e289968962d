/* procmode.h: whether the sandbox can have a PID namespace of its own, and
 * what the run does when it cannot (pure).
 *
 * A container runtime masks parts of /proc (a bind mount over /proc/keys,
 * /proc/timer_list, ...) and binds /proc/sys read-only over itself.  The
 * kernel then refuses a fresh proc mount in any new user namespace (its
 * "too revealing" check: the existing proc has overmounts on non-empty
 * entries, which a fresh one would uncover), and bwrap's --proc fails.
 * Where that is so, the sandbox can keep the caller's PID namespace and the
 * host's /proc (--pid-ns inherit); the default, auto, picks it only when a
 * probe (launch/procprobe.h) tried a proc mount in scratch namespaces and
 * the kernel refused it.  Never by reading bwrap's messages.
 *
 * The probe costs a fork and three namespaces: it runs only where the
 * mount table gives a reason to (procmode_suspect). */
#ifndef CORDON_PROCMODE_H
#define CORDON_PROCMODE_H

#include "config.h"
#include "err.h"

/* How far the probe got (launch/procprobe.c reports it with an errno). */
enum procmode_stage {
	PROCMODE_STAGE_UNSHARE = 1, /* unshare(user, mount, pid) */
	PROCMODE_STAGE_FORK,        /* the namespace's first process */
	PROCMODE_STAGE_PRIVATE,     /* making its mounts private */
	PROCMODE_STAGE_MOUNT,       /* mount("proc") */
	PROCMODE_STAGE_DONE,        /* mounted */
};

enum procmode_verdict {
	PROCMODE_NOT_PROBED = 0, /* nothing in the mount table suggested a refusal */
	PROCMODE_FRESH_OK,       /* a fresh proc mounts: isolate */
	PROCMODE_FRESH_REFUSED,  /* the kernel refused it: only inherit can run */
	PROCMODE_UNKNOWN,        /* the probe failed before it could try (no user
				    namespaces, ...): bwrap will say why */
};

/* Pure: 1 when /proc/self/mountinfo's text names a mount beneath /proc
 * other than the binfmt_misc one every host has (it sits on a permanently
 * empty directory, which the kernel allows), so the probe is worth its
 * cost; 0 otherwise. */
int procmode_suspect(const char *mountinfo);

/* Pure: the probe's last stage and that stage's errno, as a verdict.  Only
 * a refused mount (EPERM, EACCES) is a refusal. */
enum procmode_verdict procmode_verdict(int stage, int err);

/* What a run found and picked, for its note, explain and the report. */
struct procmode_facts {
	int decided;                   /* 0: the run was refused before */
	int inherit;                   /* the caller's PID namespace and /proc */
	enum procmode_verdict verdict;
	int sysctl_ro;                 /* /proc/sys is read-only */
};

/* Pure: the mode a run gets.  *inherit 1 for the host's PID namespace.
 * --pid-ns isolate stays isolate (bwrap then fails and says why);
 * --pid-ns inherit is inherit; auto is inherit only after a refusal. */
void procmode_pick(enum pid_mode asked, enum procmode_verdict v, int *inherit);

/* Words for doctor, explain and the report. */
const char *procmode_verdict_words(enum procmode_verdict v);

#endif
