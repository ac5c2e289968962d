/* gitend.h: --git commit, the verdicts of the end of the run
 * (hostpaths/gitstate.h says the three looks; hostpaths/gitstate.c,
 * gitlinks.c and protect_git.c gather the facts and move aside).  Pure:
 * each function decides from what lstat, open and read found, and nothing
 * here touches the filesystem. */
#ifndef CORDON_PLAN_GITEND_H
#define CORDON_PLAN_GITEND_H

#include <stddef.h>
#include <sys/types.h>
#include "plan/gitdir.h"

/* The end's three looks, in the order they run (gitend_looks): the kind
 * of every entry first, so that nothing of cordon's after it opens a link
 * or a FIFO the command left; then the state files; then the submodule
 * entries of each index. */
enum gitend_look {
	GITEND_LOOK_KINDS,   /* hostpaths/gitaudit.h, over each top git dir */
	GITEND_LOOK_STATE,   /* each state file (gitdir.h, role GITDIR_STATE) */
	GITEND_LOOK_LINKS,   /* each repository's index (hostpaths/gitlinks.h) */
};
extern const enum gitend_look gitend_looks[];
extern const size_t gitend_nlooks;

/* What a state file is, by its rule's path. */
enum gitend_file {
	GITEND_STRATEGY,     /* rebase-merge/strategy: a bare strategy name */
	GITEND_OPTS,         /* sequencer/opts: a config file, its strategy key */
	GITEND_TODO,         /* a todo list: exec lines */
	GITEND_RRCACHE,      /* rerere's rr-cache: each entry changed goes */
};
enum gitend_file gitend_file_kind(const char *rel);

/* 1 if path lies strictly inside the git dir gitdir (so the walk of that
 * one covers it: it is not a top one of its own). */
int gitend_inside(const char *path, const char *gitdir);

/* A state file DIR/BASE of a git dir as the end found it, step by step:
 * each step is looked at only if the ones before it leave it open. */
enum gitend_dir_seen {
	GITEND_DIR_OPENED,   /* DIR opened as a directory, not following a link */
	GITEND_DIR_MISSING,  /* not there (or lstat failed) */
	GITEND_DIR_DIR,      /* a directory, but it could not be opened */
	GITEND_DIR_OTHER,    /* something else: a link, a file, a FIFO */
};
enum gitend_file_seen {
	GITEND_FILE_MISSING, /* lstat: ENOENT */
	GITEND_FILE_HIDDEN,  /* lstat failed otherwise (search permission taken) */
	GITEND_FILE_SEEN,
};
enum gitend_open_seen {
	GITEND_OPEN_OK,      /* opened and fstat'ed: its content decides */
	GITEND_OPEN_LINK,    /* O_NOFOLLOW: ELOOP */
	GITEND_OPEN_FAILED,
};
struct gitend_state_seen {
	enum gitend_dir_seen dir;
	int dir_changed;     /* GITEND_DIR_OTHER: its ctime at or after since */
	enum gitend_file_seen file;
	int file_changed;    /* GITEND_FILE_SEEN: its ctime at or after since */
	enum gitend_open_seen open;
};

enum gitend_act {
	GITEND_KEEP,         /* the user's own, or nothing there */
	GITEND_MOVE_DIR,     /* move DIR aside (in the git dir) */
	GITEND_MOVE_FILE,    /* move BASE aside (in DIR) */
	GITEND_READ,         /* its content decides (gitend_state_content) */
};

/* What to do about a state file; *why is set for a move. */
enum gitend_act gitend_state_look(const struct gitend_state_seen *s, const char **why);

/* Before reading an opened state file (mode and size from fstat; max:
 * the most cordon reads): why it goes unread, or NULL to read it. */
const char *gitend_state_unreadable(mode_t mode, off_t size, size_t max);

/* Why a state file whose read gave n bytes of buf (n < 0: the read
 * failed; n >= max: more than cordon reads) must go, or NULL. */
const char *gitend_state_content(enum gitend_file k, const char *buf, ssize_t n, size_t max);

/* rr-cache: 1 if the entry name is skipped (".", "..", or one a move
 * aside made). */
int gitend_rrcache_skip(const char *name);

/* rr-cache: an entry (HASH, a directory of preimage and postimage) as the
 * end found it. */
enum gitend_rr {
	GITEND_RR_CHANGED,   /* moved aside */
	GITEND_RR_KEPT,
	GITEND_RR_INSIDE,    /* a directory unchanged itself: its entries decide,
			      * one level deep (an entry rewritten in place) */
};
enum gitend_rr gitend_rrcache_entry(int changed, int is_dir);

/* A submodule entry's checkout PATH/.git at the start (existed 0: none,
 * or not known), and now. */
struct gitend_link_seen {
	int existed;
	dev_t dev;
	ino_t ino;
	mode_t mode;
};
enum gitend_link {
	GITEND_LINK_KEEP,
	GITEND_LINK_MOVE,    /* made, replaced, or written (a .git file) */
	GITEND_LINK_INSIDE,  /* the same directory: its configuration decides
			      * (gitend_link_code) */
};
/* was: NULL when not a gitlink at the start (or the start is not known);
 * now: PATH/.git, which exists; changed: its ctime at or after since. */
enum gitend_link gitend_link_look(const struct gitend_link_seen *was,
				  const struct gitend_link_seen *now, int changed);

/* The path inside a submodule's .git that rule r makes configuration a
 * host git status would read (a code entry, modules/, worktrees/), in buf
 * without a wildcard or a trailing slash: 1, or 0 when r names none. */
int gitend_link_code(const struct gitdir_rule *r, char *buf, size_t size);

/* The split of a rule's path (walk_rule, hostpaths/protect_git.c): the
 * length of its directory part (0: in the git dir itself), and its last
 * component. */
void gitend_rule_split(const struct gitdir_rule *r, size_t *dirlen, const char **base);

#endif
