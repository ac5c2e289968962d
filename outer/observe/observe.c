/* observe.c: see observer.h.  The table of a run's observers, and each
 * one's four entry points over the module that does its work. */
#include "observe/observer.h"

#include <errno.h>
#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include "observe/rootcheck.h"
#include "path.h"

int observe_no_start(struct observe *o, const struct observe_run *r, struct cordon_err *e)
{
	(void)o;
	(void)r;
	(void)e;
	return 0;
}

int observe_no_fd(const struct observe *o)
{
	(void)o;
	return -1;
}

int observe_no_event(struct observe *o, const struct observe_run *r)
{
	(void)o;
	(void)r;
	return 1;
}

/* --- the missing protected names (protect_watch.h) --- */

static int watch_start(struct observe *o, const struct observe_run *r, struct cordon_err *e)
{
	return protect_watch_start(&o->watch, r->res, r->prot, e);
}

static int watch_fd(const struct observe *o)
{
	return o->watch.fd;
}

static int watch_event(struct observe *o, const struct observe_run *r)
{
	if (protect_watch_on_event(&o->watch) != 1)
		return 0;
	/* Nothing inside may go on writing: the whole PID namespace dies
	 * with its PID 1.  bwrap then exits, which ends the loop.  In the
	 * caller's PID namespace the end takes PID 1's kill(-1) first
	 * (bwrap_kill): what the command made is moved aside once it is
	 * done, by the settle after bwrap, never while it may still write. */
	o->stopped = 1;
	bwrap_kill(r->bwrap);
	if (!r->bwrap->shared_pidns)
		protect_watch_move_aside(&o->watch);
	return 1;
}

static void on_name(void *ctx, const struct protect_watch_found *f)
{
	struct observe *o = ctx;
	char detail[PATH_MAX + 128];
	(void)snprintf(detail, sizeof(detail), "%s created by the command%s%s%s", f->kind,
		       f->disarmed ? "; NOT moved aside: left in place, made mode 000" :
		       !f->moved ? "; NOT moved aside: left in place" :
		       f->removed ? "; then removed by it" : "",
		       f->via ? "; another user's symbolic link leads there: " : "",
		       f->via ? f->via : "");
	struct finding x = { .kind = FINDING_PROTECTED_NAME, .name = (char *)f->name,
			     .path = (char *)f->path, .moved = (char *)f->moved, .detail = detail,
			     .say = (char *)f->say };
	findings_add(&o->found, &x);
}

static void watch_settle(struct observe *o, const struct observe_run *r)
{
	/* No watch (none to keep, or its start refused a name the host made):
	 * nothing of the command's to look for. */
	if (o->watch.fd < 0)
		return;
	(void)protect_watch_settle(&o->watch, r->c, on_name, o);
	if (o->stopped) {
		struct finding x = { .kind = FINDING_STOPPED };
		findings_add(&o->found, &x);
		o->stopped = 0;
	}
}

/* Best effort, like the guardian's other records (a guardian that is gone
 * already: the run goes on); the command has not started yet. */
static int watch_guardian(struct observe *o, const struct observe_run *r, struct cordon_err *e)
{
	struct cordon_err ignored;
	(void)e;
	(void)protect_watch_tell(&o->watch, &r->prot->guard, &ignored);
	return 0;
}

/* --- the writable roots' paths (rootcheck.h) --- */


static void on_root(void *ctx, const struct rootcheck_moved *m)
{
	struct observe *o = ctx;
	char detail[96];
	(void)snprintf(detail, sizeof(detail), "the path now leads to %s", m->now);
	struct finding x = { .kind = FINDING_ROOT_MOVED, .path = (char *)m->path, .detail = detail,
			     .say = (char *)m->say };
	findings_add(&o->found, &x);
}

static void roots_settle(struct observe *o, const struct observe_run *r)
{
	struct cordon_err e;
	if (!r->look_roots || rootcheck_settle(r->res, on_root, o, &e) >= 0)
		return;
	char say[sizeof(e.msg) + 16];
	(void)snprintf(say, sizeof(say), "cordon: %s\n", e.msg);
	struct finding x = { .kind = FINDING_ROOTS_UNCHECKED, .say = say };
	findings_add(&o->found, &x);
}

/* --- --git commit: the git dirs' end (hostpaths/gitstate.h) and refs (gitrefs.h) --- */

static int git_start(struct observe *o, const struct observe_run *r, struct cordon_err *e)
{
	/* The git state files as they are before the command, to tell its changes. */
	int rc = gitstate_start(&o->gs, r->prot->git, e);
	if (rc < 0)
		return rc;
	/* The refs as they are before the command, and the git that counts commits. */
	if (gitrefs_start(&o->refs, r->prot->git, r->res->roots, r->res->nroots) < 0)
		return err_set(e, ENOMEM, "out of memory");
	return 0;
}

static void on_git_state(void *ctx, const char *path, const char *moved, const char *why)
{
	struct observe *o = ctx;
	struct finding x = { .kind = FINDING_GIT_STATE, .name = (char *)path_base(path),
			     .path = (char *)path, .moved = (char *)moved, .detail = (char *)why };
	findings_add(&o->found, &x);
}

static void say_config(FILE *out, const void *gs)
{
	gitstate_say_config((struct gitstate *)gs, out);
}

/* The git dirs are final.  Their end first: gitrefs reads them and runs
 * git on them, which must not open a link or a FIFO the command left
 * there.  The lines of gitstate itself are said as it moves (it does the
 * same in the guardian, which has no list); the findings go to the list. */
static void git_settle(struct observe *o, const struct observe_run *r)
{
	(void)r;
	(void)gitstate_settle(&o->gs, on_git_state, o);
	(void)gitrefs_settle(&o->refs, &o->found);
	char *say = findings_compose(say_config, &o->gs);
	if (!say) {
		gitstate_say_config(&o->gs, stderr);
		return;
	}
	if (say[0]) {
		struct finding x = { .kind = FINDING_NOTE, .say = say };
		findings_add(&o->found, &x);
	}
	free(say);
}

/* Before the command can run (hostpaths/gitstate.h): 0, or -errno, and the
 * run must not start. */
static int git_guardian(struct observe *o, const struct observe_run *r, struct cordon_err *e)
{
	return gitstate_tell(&o->gs, &r->prot->guard, e);
}

/* --- the network (netnote.h) --- */

/* --net none: the namespace's no-route counters, which exist once bwrap's
 * child does. */
static int net_start(struct observe *o, const struct observe_run *r, struct cordon_err *e)
{
	(void)e;
	if (r->c->net == NET_NONE)
		netnote_open(&o->net, r->bwrap->child);
	return 0;
}

struct net_seen {
	struct findings *found;
	struct netnote_proxy note;
};

/* Each decision the bridge recorded, decoded once: for --report
 * (report.h), and to the lines on refused hosts. */
static void on_decision(void *ctx, const struct wire_bridge_decision *d)
{
	struct net_seen *s = ctx;
	struct finding x = { .kind = FINDING_NET_DECISION, .name = (char *)(const void *)d,
			     .len = sizeof(*d) };
	findings_add(s->found, &x);
	netnote_proxy_add(&s->note, d);
}

static void net_settle(struct observe *o, const struct observe_run *r)
{
	if (netnote_settle(&o->net) > 0) {
		struct finding x = { .kind = FINDING_NOTE, .say = (char *)netnote_tried,
				     .say_if_failed = 1 };
		findings_add(&o->found, &x);
	}
	/* supervise ended the bridge: what it logged is complete. */
	if (!r->ran || r->c->net != NET_PROXY)
		return;
	struct net_seen seen = { &o->found, { 0 } };
	struct cordon_err de;
	if (bridge_decisions(r->bridge, on_decision, &seen, &de) < 0)
		err_print(&de); /* those before the broken record went to the list */
	char *say = findings_compose(netnote_proxy_say, &seen.note);
	if (!say)
		netnote_proxy_say(stderr, &seen.note);
	else if (say[0]) {
		struct finding x = { .kind = FINDING_NOTE, .say = say };
		findings_add(&o->found, &x);
	}
	free(say);
	if (seen.note.seen == 0) {
		struct finding x = { .kind = FINDING_NOTE, .say = (char *)netnote_no_connection,
				     .say_if_failed = 1 };
		findings_add(&o->found, &x);
	}
}

/* --- host sockets allowed by path (--allow-unix-socket) --- */


/* One the host replaced or removed during the run: the sandbox kept the
 * one from the start (bound at its path), which had no listener any more;
 * the command's connects were refused, and this says why. */
static void sockets_settle(struct observe *o, const struct observe_run *r)
{
	for (size_t i = 0; i < r->res->nsockets; i++) {
		const struct rpath *s = &r->res->sockets[i];
		struct stat st;
		if (stat(s->path, &st) == 0 && st.st_dev == s->dev && st.st_ino == s->ino)
			continue;
		char say[PATH_MAX + 256];
		(void)snprintf(say, sizeof(say), "cordon: --allow-unix-socket %s was %s on the host "
			       "during the run: the command could reach only the socket that was there "
			       "at the start, so its connects were refused after that\n", s->path,
			       access(s->path, F_OK) == 0 ? "replaced" : "removed");
		struct finding x = { .kind = FINDING_NOTE, .say = say, .path = (char *)s->path };
		findings_add(&o->found, &x);
	}
}

/* --- the table --- */

const struct observer observe_table[] = {
	{
		.name = "protected names",
		.start = watch_start,
		.event_fd = watch_fd,
		.event = watch_event,
		.settle = watch_settle,
		.guardian = OBSERVE_GUARDIAN(watch_guardian),
	},
	{
		.name = "writable roots",
		.start = observe_no_start, /* the roots' identities are resolve's */
		.event_fd = observe_no_fd,
		.event = observe_no_event,
		.settle = roots_settle,
		.guardian = OBSERVE_GUARDIAN_NONE("it moves nothing aside: it only finds a root "
						  "whose path leads elsewhere, which a dead cordon "
						  "can no longer report or fail the run for"),
	},
	{
		.name = "git dirs",
		.start = git_start,
		.event_fd = observe_no_fd,
		.event = observe_no_event,
		.settle = git_settle,
		.guardian = OBSERVE_GUARDIAN(git_guardian),
	},
	{
		.name = "network",
		.start = net_start,
		.event_fd = observe_no_fd,
		.event = observe_no_event,
		.settle = net_settle,
		.guardian = OBSERVE_GUARDIAN_NONE("it leaves nothing on the host: its notes are "
						  "for cordon's own stderr"),
	},
	{
		.name = "host sockets",
		.start = observe_no_start, /* the sockets' identities are resolve's */
		.event_fd = observe_no_fd,
		.event = observe_no_event,
		.settle = sockets_settle,
		.guardian = OBSERVE_GUARDIAN_NONE("it leaves nothing on the host: a socket replaced "
						  "during the run is a note for cordon's stderr"),
	},
};

const size_t observe_ntable = sizeof(observe_table) / sizeof(observe_table[0]);
_Static_assert(sizeof(observe_table) / sizeof(observe_table[0]) == OBSERVE_N,
	       "OBSERVE_N is the number of observers (run.c sizes its poll list by it)");

int observe_start(struct observe *o, const struct observe_run *r, struct cordon_err *e)
{
	for (size_t i = 0; i < observe_ntable; i++) {
		int rc = observe_table[i].start(o, r, e);
		if (rc < 0)
			return rc;
	}
	return 0;
}

int observe_tell_guardian(struct observe *o, const struct observe_run *r, struct cordon_err *e)
{
	for (size_t i = 0; i < observe_ntable; i++) {
		int rc = observe_table[i].guardian.redo ? observe_table[i].guardian.redo(o, r, e) : 0;
		if (rc < 0)
			return rc;
	}
	return 0;
}

void observe_settle(struct observe *o, const struct observe_run *r)
{
	for (size_t i = 0; i < observe_ntable; i++) {
		observe_table[i].settle(o, r);
		findings_say(&o->found, 0, 0);
	}
}

void observe_free(struct observe *o)
{
	protect_watch_free(&o->watch);
	gitrefs_free(&o->refs);
	gitstate_free(&o->gs);
	(void)netnote_settle(&o->net);
	findings_free(&o->found);
}
