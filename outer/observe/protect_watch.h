/* protect_watch.h: the missing protected names of a run in watch mode
 * (--protect-missing watch, the default; DESIGN.md section 5).
 *
 * A missing protected name stays absent inside the sandbox, exactly as on
 * the host: nothing is created for it.  Before the command starts, cordon
 * holds an inotify watch (IN_CREATE, IN_MOVED_TO) on each writable root
 * that has one, through the root's own descriptor (/proc/self/fd/N), so a
 * path swapped since resolution cannot redirect it.  Every way of making a
 * name (mkdir, open O_CREAT, mknod, symlink, link, rename into place) is one
 * of those two events in that directory; on IN_Q_OVERFLOW every watched name
 * is looked at again.  When one appears, the supervisor kills the sandbox at
 * once (its PID 1, and with it the whole PID namespace), and once bwrap is
 * gone protect_watch_settle looks at every watched name again (an event can race the
 * end) and moves what it finds aside (hostpaths/protect_quarantine.h).
 *
 * An observer (observe/observer.h): reading inotify events and lstat are
 * no host writes, and the quarantine's rename is hostpaths/'s. */
#ifndef CORDON_PROTECT_WATCH_H
#define CORDON_PROTECT_WATCH_H

#include <stddef.h>
#include "config.h"
#include "err.h"
#include <time.h>
#include "hostpaths/guardian.h"
#include "hostpaths/protect.h"
#include "plan/resolve.h"

struct protect_watch_dir {
	int fd;              /* O_PATH descriptor of the writable root, owned */
	int wd;              /* its inotify watch */
	char *path;          /* the root's path, owned */
	dev_t dev;
	ino_t ino;
};

struct protect_watch_name {
	size_t dir;          /* index into dirs */
	char *path;          /* root/name, owned */
	const char *name;    /* points into path */
	int as_found;        /* another user's link, or an entry on its way, was
			      * there (PROTECT_WATCH_LINK): */
	dev_t dev;           /* that entry, (dev, ino), is no new entry */
	ino_t ino;
	char *early;         /* root/MOVED, where protect_watch_move_aside put it; owned, NULL: not */
	mode_t early_mode;   /* what it was */
	int git;             /* an entry of a git dir (--git commit, plan/gitdir.h) */
	char *via;           /* on the way of another user's link at a protected
			      * name (plan/linkwalk.h): its path; owned, NULL: not */
	int hold;            /* as_found: O_PATH of that entry, held so that its
			      * inode number is not reused while watched; owned */
};

struct protect_watch {
	int fd;              /* inotify descriptor; -1: nothing is watched */
	struct protect_watch_dir *dirs;   size_t ndirs, capdirs;
	struct protect_watch_name *names; size_t nnames, capnames;
	int hit;             /* a watched name appeared */
	int settled;
	struct timespec since; /* CLOCK_REALTIME before the first watch was added */
};

#define PROTECT_WATCH_INIT { .fd = -1 }

/* Before protect_prepare: take the inotify instance and a watch on each
 * writable root, while the run can still choose another way.  When the
 * caller's inotify budget is spent (its other processes, or 128 other runs,
 * hold fs.inotify.max_user_instances), the run never refuses and never
 * watches less: protect_watch_lost gives every missing name a placeholder
 * instead.  Other failures are errors. */
int protect_watch_reserve(struct protect_watch *w, const struct resolved *r, struct protect_run *p,
		  struct cordon_err *e) __attribute__((warn_unused_result));

/* Watch every name protect decided to watch (PROTECT_WATCH, and
 * PROTECT_WATCH_LINK: another user's link, or an entry on its way, which
 * counts as absent while it is the same entry), then look at each once: one that exists already was
 * made by someone on the host since cordon looked (the command has not
 * started), and the run is refused (-EAGAIN, "run again").  Uses the
 * instance protect_watch_reserve took; nothing to watch: 0 with w->fd -1 (the
 * instance given back). */
int protect_watch_start(struct protect_watch *w, const struct resolved *r, const struct protect_run *p,
		struct cordon_err *e) __attribute__((warn_unused_result));

/* Hand the guardian (hostpaths/guardian.h) every watched root and its
 * names, so that it moves aside what the command created if cordon dies.
 * Best effort, like the guardian's other records: 0, or -errno. */
int protect_watch_tell(const struct protect_watch *w, struct guardian *g, struct cordon_err *e);

/* The inotify descriptor is readable: read every event.  1 if a watched
 * name appeared (the sandbox must be stopped), else 0. */
int protect_watch_on_event(void *w);

/* The sandbox was just sent SIGKILL for a name: move every watched name
 * there now aside at once (hostpaths/protect_quarantine.h), without waiting for the
 * sandbox to be gone, which takes milliseconds (PID 1 must run to die, then
 * the kernel ends the rest of its namespace and bwrap reaps it): that is
 * how long a host process could find the name otherwise.  What is moved is
 * remembered for protect_watch_settle, which reports it and still looks at every
 * name again once bwrap is gone (a process of the sandbox not yet dead
 * could make the name again, or rename the entry back).  Says nothing. */
void protect_watch_move_aside(struct protect_watch *w);

/* Remove the watches (the command is gone).  Closing an inotify descriptor
 * waits for the kernel to free its marks (an SRCU grace period, several ms
 * on a loaded machine); removed early, they are freed in the background
 * meanwhile and the close at the end is cheap. */
void protect_watch_stop(struct protect_watch *w);

/* Pure: the tool's own way not to create the protected name `name`, when
 * the command (argv, NULL-terminated; its words split at blanks, so a
 * `sh -c` string counts) names the tool that did (`cargo init` -> `cargo init
 * --vcs none`); for .git without one, the general way (a subdirectory);
 * else NULL.  A sentence without the final period. */
const char *protect_watch_tool_hint(const char *name, char *const *argv);

/* One watched name found after the run, for whoever records violations
 * (run.c hands them to --report; this module knows nothing of it). */
struct protect_watch_found {
	const char *name;     /* the protected name, ".git" (with via: the link's) */
	const char *path;     /* where it was created, root/name */
	const char *moved;    /* where it was moved aside, root/NAME.cordon-quarantine-RANDOM;
			       * NULL: it could not be (move_err) */
	const char *kind;     /* "a directory", "a file", ... */
	int move_err;         /* -errno of the failed move, or 0 */
	int removed;          /* moved aside at the kill, then removed by a process of
			       * the sandbox not yet dead (git's cleanup of a clone) */
	int git;              /* an entry of a git dir (--git commit) */
	const char *via;      /* another user's link at a protected name that leads
			       * through path (plan/linkwalk.h), or NULL */
	int disarmed;         /* not moved aside, and made mode 000 instead (the last
			       * resort, hostpaths/protect_quarantine.h) */
	const char *say;      /* what the user is to be told, whole lines; NULL: it
			       * was said on stderr already */
};

typedef void protect_watch_found_fn(void *ctx, const struct protect_watch_found *f);

/* The sandbox is gone: take what protect_watch_move_aside moved, look at every
 * watched name, move each one found aside (hostpaths/protect_quarantine.h), and
 * pass it to found with ctx, with what the user is to be told (what was
 * created, that it is protected and which flag would allow it); found NULL:
 * that is said on stderr here.  The number of names found (0: the run created none). */
size_t protect_watch_settle(struct protect_watch *w, const struct config *c, protect_watch_found_fn *found, void *ctx);

void protect_watch_free(struct protect_watch *w);

#endif
