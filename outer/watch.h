/* watch.h: the missing protected names of a run in watch mode
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
 * gone watch_settle looks at every watched name again (an event can race the
 * end) and moves what it finds aside (hostpaths/quarantine.h).
 *
 * Reading inotify events and lstat are no host writes: this module lives
 * beside run.c, and only the quarantine's rename is in hostpaths/. */
#ifndef CORDON_WATCH_H
#define CORDON_WATCH_H

#include <stddef.h>
#include "config.h"
#include "err.h"
#include <time.h>
#include "hostpaths/guardian.h"
#include "hostpaths/protect.h"
#include "plan/resolve.h"

struct watch_dir {
	int fd;              /* O_PATH descriptor of the writable root, owned */
	int wd;              /* its inotify watch */
	char *path;          /* the root's path, owned */
	dev_t dev;
	ino_t ino;
};

struct watch_name {
	size_t dir;          /* index into dirs */
	char *path;          /* root/name, owned */
	const char *name;    /* points into path */
};

struct watch {
	int fd;              /* inotify descriptor; -1: nothing is watched */
	struct watch_dir *dirs;   size_t ndirs;
	struct watch_name *names; size_t nnames;
	int hit;             /* a watched name appeared */
	int settled;
	struct timespec since; /* CLOCK_REALTIME before the first watch was added */
};

#define WATCH_INIT { .fd = -1 }

/* Watch every name protect decided to watch (PROTECT_WATCH), then look at
 * each once: one that exists already was made by someone on the host since
 * cordon looked (the command has not started), and the run is refused
 * (-EAGAIN, "run again").  Nothing to watch: 0 with w->fd -1. */
int watch_start(struct watch *w, const struct resolved *r, const struct protect_run *p,
		struct cordon_err *e) __attribute__((warn_unused_result));

/* Hand the guardian (hostpaths/guardian.h) every watched root and its
 * names, so that it moves aside what the command created if cordon dies.
 * Best effort, like the guardian's other records: 0, or -errno. */
int watch_tell(const struct watch *w, struct guardian *g, struct cordon_err *e);

/* The inotify descriptor is readable: read every event.  1 if a watched
 * name appeared (the sandbox must be stopped), else 0. */
int watch_on_event(void *w);

/* Remove the watches (the command is gone).  Closing an inotify descriptor
 * waits for the kernel to free its marks (an SRCU grace period, several ms
 * on a loaded machine); removed early, they are freed in the background
 * meanwhile and the close at the end is cheap. */
void watch_stop(struct watch *w);

/* Pure: the tool's own way not to create the protected name `name`, when
 * the command (argv, NULL-terminated; its words split at blanks, so a
 * `sh -c` string counts) names the tool that did (`cargo init` -> `cargo init
 * --vcs none`); for .git without one, the general way (a subdirectory);
 * else NULL.  A sentence without the final period. */
const char *watch_tool_hint(const char *name, char *const *argv);

/* One watched name found after the run, for whoever records violations
 * (run.c hands them to --report; this module knows nothing of it). */
struct watch_found {
	const char *name;     /* the protected name, ".git" */
	const char *path;     /* where it was created, root/name */
	const char *moved;    /* where it was moved aside, root/NAME.cordon-quarantine-TAG;
			       * NULL: it could not be (move_err) */
	const char *kind;     /* "a directory", "a file", ... */
	int move_err;         /* -errno of the failed move, or 0 */
};

typedef void watch_found_fn(void *ctx, const struct watch_found *f);

/* The sandbox is gone: look at every watched name, move each one found
 * aside (NAME.cordon-quarantine-TAG), say on stderr what was created, that
 * it is protected and which flag would allow it, and pass it to found (may
 * be NULL) with ctx.  The number of names found (0: the run created none). */
size_t watch_settle(struct watch *w, const struct config *c, const char *tag,
		    watch_found_fn *found, void *ctx);

void watch_free(struct watch *w);

#endif
