/* protect_decide.h: what a run does about each protected name, decided from
 * facts alone.  Pure, like reclaim_decide: protect.c (hostpaths/) gathers
 * the facts (lstat of each name in its writable root, the registry's live
 * runs and what its sweep removed, which roots are read-only) and carries
 * out the actions; the mount plan binds what the decision says.
 *
 * Rules, in the words of DESIGN.md section 5:
 * - an existing name is bound read-only from the descriptor gathered before
 *   bwrap was forked; a symbolic link is refused (a mount lands on its
 *   target, and the command could rename the link and create the name),
 *   unless it is another user's in a directory others can write (the host's
 *   /tmp with --tmp host): neither an earlier run nor the caller made it,
 *   so refusing would let any local user stop every run.  It is left as it
 *   is and the name is watched as if missing, in mount mode too: any new
 *   entry under the name stops the run.  What of its way the command could
 *   change (plan/linkwalk.h) gets names of its own, each with `via` set to
 *   the link: a missing name watched in its directory, an entry on the way
 *   watched as found, the end bound read-only;
 * - an existing name that another live run materialized is shared: the same
 *   binding, plus a reference in this run's record, so the last run out
 *   removes it;
 * - a missing name (or one the sweep just removed as a dead run's leftover)
 *   is watched (--protect-missing watch, the default: absent inside as on
 *   the host, and creating it stops the run; a protected dotfile always
 *   is), or in mount mode created by
 *   cordon as an empty directory and bound read-only by path; in a
 *   read-only root nothing is done (neither cordon nor the command can
 *   create it there); if a live run materialized it meanwhile, it is
 *   adopted (shared, bound by path) in either mode;
 * - another live run's mount point beneath a writable root (and not above
 *   one) is pinned: bound read-only here too, so this command cannot rmdir
 *   it from under the other sandbox.
 * The registry's own carve-out and the pins of its ancestors are decided
 * here too (protect_decide_carves, the reasons in
 * hostpaths/registry_carve.h, which opens what it decides);
 * protect_apply.c appends them to the decision as PROTECT_CARVE and
 * PROTECT_KEEP actions, so that the plan has one input for both. */
#ifndef CORDON_PROTECT_DECIDE_H
#define CORDON_PROTECT_DECIDE_H

#include <stddef.h>
#include <stdint.h>
#include "err.h"

/* A protected name that is a symbolic link. */
enum protect_link {
	LINK_OWN,            /* the caller's (an earlier run may have planted it),
			      * or in a root only the caller can write */
	LINK_FOREIGN,        /* another user's, in a root others can write: what
			      * of its way the command could change follows it
			      * in names[], with via set */
};

/* A protected name directly inside a writable root, as lstat saw it. */
struct protect_name {
	size_t root;          /* index into protect_facts.roots */
	const char *path;     /* root/name */
	int exists;
	int is_dir, is_symlink;
	uint64_t dev, ino;
	int fd;               /* O_PATH descriptor gathered before bwrap was forked
			       * (bwrap inherits it), -1 when missing */
	int watch_only;       /* a protected dotfile: watched when missing, in
			       * mount mode too */
	enum protect_link link; /* with is_symlink: whose, and where it leads */
	/* --git commit (plan/gitdir.h, hostpaths/protect_git.c): */
	int pin;              /* existing: bound writable onto itself (PROTECT_KEEP),
			       * by path, so that it cannot be renamed or removed */
	const char *why;      /* the gitdir rule's, for explain; NULL: not a git entry */
	int dirfd;            /* a git entry (why set): its directory, a pinned git
			       * dir (borrowed), where a missing one is watched;
			       * a step of a link (via set): its directory, owned
			       * (-1 for a target, which is bound) */
	/* On the way of another user's link at a protected name (linkwalk.h): */
	const char *via;      /* that link's path (names[].path); NULL: not */
	int as_found;         /* existing, on the way: watched as found, not bound */
	/* Watched as found (a foreign link, an entry on its way): O_PATH of
	 * that entry, held while it is watched, so that its inode number
	 * cannot be given to an entry the command makes; -1: none.  Owned;
	 * read only for those (protect_holds_entry). */
	int hold;
	int outside;          /* with pin: a linked worktree's common dir outside every
			       * root (plan/gitlinked.h), writable for Landlock too */
};

struct protect_root {
	const char *path;
	uint64_t dev, ino;
	int read_only;        /* on a read-only mount: nothing can be created in it */
};

/* A path another live run materialized (registry entry, not an intent). */
struct protect_live {
	const char *path;
	uint64_t dev, ino;
	int fd;               /* opened by (dev, ino) under the registry lock when
			       * protect_live_wanted; -1: not there, or not wanted */
};

struct protect_facts {
	const struct protect_name *names;  size_t nnames;
	const struct protect_root *roots;  size_t nroots;
	int full_write;                    /* "/" counts as a writable root */
	int watch;                         /* --protect-missing watch */
	int watch_lost;                    /* no inotify for this run: nothing watched */
	const struct protect_live *live;   size_t nlive;
	const char *const *swept;          size_t nswept;  /* paths the sweep removed */
};

enum protect_act {
	PROTECT_BIND,    /* names[src]: existing, read-only from its descriptor */
	PROTECT_SHARE,   /* names[src]: another live run's directory; referenced */
	PROTECT_CREATE,  /* names[src]: intent recorded, mkdir, bound by path */
	PROTECT_WATCH,   /* names[src]: missing, left absent and watched; not bound */
	PROTECT_WATCH_LINK, /* names[src]: a foreign link (protect_name), or an entry
			  * on its way (as_found), left as found and watched: any
			  * other entry there counts; not bound */
	PROTECT_ADOPT,   /* live[src]: materialized by a live run since names[] was
			  * gathered; referenced, bound by path */
	PROTECT_PIN,     /* live[src]: another run's mount point beneath a root */
	PROTECT_CARVE,   /* the registry, read-only at path (registry_carve) */
	PROTECT_KEEP,    /* an ancestor of the registry bound writable onto itself,
			  * so that it cannot be renamed (registry_carve); or, not
			  * carve, names[src] pinned (--git commit) */
};

struct protect_action {
	enum protect_act act;
	char *path;      /* owned */
	size_t src;      /* index into names or live (see enum); unused for CARVE */
	int bind_fd;     /* descriptor bwrap inherits and binds from; -1: bound by
			  * path, and cordon-inner checks (dev, ino) there */
	int carve;       /* 1: CARVE or KEEP, ranked with the writable roots;
			  * 0: a protected name, mounted after every root */
	const char *why; /* names[src].why, or NULL */
	const char *via; /* names[src].via, or NULL */
};

struct protect_decision {
	struct protect_action *v;
	size_t n, cap;
};

/* 1 if live entry i needs opening under the lock before protect_decide (it
 * may be adopted or pinned): the gatherer opens only these.  Record paths
 * are data from a place the command may have reached; none outside this
 * run's writable roots is ever opened. */
int protect_live_wanted(const struct protect_facts *f, size_t i);

/* Fill *out (empty on entry; free with protect_decision_free, also on
 * failure).  0, or -errno with *e filled (a protected name that is the
 * caller's symbolic link: -EPERM). */
int protect_decide(const struct protect_facts *f, struct protect_decision *out,
		   struct cordon_err *e) __attribute__((warn_unused_result));

void protect_decision_free(struct protect_decision *d);

/* The registry as protect_decide_carves sees it: its path, and "/" and
 * each directory down to it, by (dev, ino) and where its path ends. */
struct protect_regview {
	const char *path;                 /* absolute, free of symbolic links */
	const struct protect_anc {
		uint64_t dev, ino;
		size_t off;               /* its path is path[0..off) ("/": 0) */
	} *anc;
	size_t nanc;
};

/* A carve-out planned already (resolve's --read-only ones, earlier ones). */
struct protect_carved {
	const char *path;
	int pin;                          /* bound writable onto itself */
};

/* One place where the registry must be kept from a writable root. */
struct protect_carve {
	char *path;      /* where, under that root; owned */
	size_t root;     /* roots[root], or nroots: "/" (--full-write) */
	size_t top;      /* the ancestor that root is (anc[top]) */
	size_t anc;      /* pin: the ancestor bound here; reg->nanc: the registry */
	int pin;         /* 1: an ancestor bound writable onto itself (it cannot
			  * be renamed); 0: the registry itself, read-only */
};

/* For each root (and "/" with full_write) that is the registry or one of
 * its ancestors (same dev and inode, so a bind mount of an ancestor counts
 * too): the registry, read-only, at its path under that root, unless
 * carved there already; and a pin for each directory between the root and
 * the registry that is neither carved already nor inside a read-only
 * carve-out (have[] or one decided here: a pin there would make it
 * writable).  *out (*nout of them, room for *capout: common/grow.h) is
 * appended to (free with protect_carves_free).  0 or
 * -errno with *e filled. */
int protect_decide_carves(const struct protect_root *roots, size_t nroots, int full_write,
			  const struct protect_regview *reg, const struct protect_carved *have,
			  size_t nhave, struct protect_carve **out, size_t *nout,
			  size_t *capout, struct cordon_err *e) __attribute__((warn_unused_result));

void protect_carves_free(struct protect_carve *v, size_t n);

/* 1 if n's hold is an open descriptor (n is watched as found). */
int protect_holds_entry(const struct protect_name *n);

/* 1 for the actions that bind nothing and watch the name (WATCH, WATCH_LINK). */
int protect_act_watched(enum protect_act act);

#endif
