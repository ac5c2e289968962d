/* gitdir.h: the commit mode's rule for a protected git directory
 * (--git commit, DESIGN.md section 5 "Git directories in the commit mode").
 *
 * By default a protected .git is bound read-only as a whole.  In the commit
 * mode git's own data is writable and everything that makes git run a
 * program or read configuration stays read-only, or absent and watched.
 * The whole rule is gitdir_rules, one table, which `cordon explain` prints;
 * hostpaths/protect_git.c walks it over each .git (lstat, open) and turns
 * gitdir_decide's verdicts into protected names that protect_decide binds
 * or watches like any other.
 *
 * How a writable directory keeps a read-only file: git writes X by creating
 * X.lock beside it and renaming it over X, so the git directory itself must
 * be writable.  It is bound writable onto itself (a mount point cannot be
 * renamed or removed: EBUSY), and each code-bearing entry in it is bound
 * read-only over itself: writing it fails with EROFS, renaming over it or
 * unlinking it with EBUSY, and renaming a directory that holds one (a
 * HOLDER: objects/info, worktrees/NAME, modules/NAME) is refused the same
 * way because each such directory is pinned too.  A code-bearing entry that
 * is missing is watched in its (pinned) directory exactly as a missing
 * protected name is in a writable root.
 *
 * State files (STATE) are writable, because git needs them during the run,
 * but a later host git turns their content into a command
 * (rebase-merge/git-rebase-todo's `exec` lines run on `git rebase
 * --continue`): hostpaths/gitstate.c moves aside one that the run created
 * or changed and that gitdir_todo_runs or gitdir_strategy_runs flags. */
#ifndef CORDON_GITDIR_H
#define CORDON_GITDIR_H

#include <stddef.h>

enum gitdir_scope {
	GITDIR_REPO = 1,      /* a repository's git dir: .git, modules/NAME */
	GITDIR_WORKTREE = 2,  /* a linked worktree's: worktrees/NAME */
};

enum gitdir_role {
	GITDIR_DATA,          /* git's own data: writable */
	GITDIR_CODE,          /* runs a program or is read as configuration:
			       * read-only; absent and watched when missing */
	GITDIR_HOLDER,        /* a directory holding CODE entries: writable, pinned in
			       * place; when missing, watched if watch_missing */
	GITDIR_STATE,         /* writable; checked at the end of the run */
	GITDIR_EACH_WORKTREE, /* each subdirectory is a linked worktree's git dir */
	GITDIR_EACH_MODULE,   /* each subdirectory is a submodule's git dir (or, without
			       * a HEAD, a level of a submodule name with a slash) */
};

struct gitdir_rule {
	const char *path;     /* relative to the git dir; "" is the dir itself */
	unsigned scopes;      /* GITDIR_REPO | GITDIR_WORKTREE */
	enum gitdir_role role;
	int watch_missing;    /* HOLDER only */
	const char *why;
};

extern const struct gitdir_rule gitdir_rules[];
extern const size_t gitdir_nrules;

/* How deep modules/ nest (a submodule's submodules, a name with slashes). */
#define GITDIR_MAX_DEPTH 4

/* One entry as lstat saw it. */
struct gitdir_seen {
	int exists;
	int is_dir;
	int is_symlink;
};

enum gitdir_act {
	GITDIR_ACT_NONE,       /* writable as it is, or may be created */
	GITDIR_ACT_PIN,        /* bound writable onto itself */
	GITDIR_ACT_READ_ONLY,  /* bound read-only from its descriptor */
	GITDIR_ACT_WATCH,      /* missing: watched in its directory */
	GITDIR_ACT_EXPAND,     /* a directory whose subdirectories are git dirs */
	GITDIR_ACT_REFUSE,     /* a symbolic link where a pinned or read-only entry is:
			        * a mount lands on the target, and the link itself
			        * could be unlinked and replaced */
};

/* The verdict for rule r given what is at its path.  Pure. */
enum gitdir_act gitdir_decide(const struct gitdir_rule *r, const struct gitdir_seen *s);

/* 1 if a sequencer todo list (rebase-merge/git-rebase-todo, sequencer/todo)
 * holds a line that git runs as a shell command (`exec CMD`, `x CMD`),
 * else 0.  Leading blanks are skipped and `#` comments ignored, as git's
 * parser does. */
int gitdir_todo_runs(const char *buf, size_t n);

/* 1 if the merge strategy named by the bytes (rebase-merge/strategy: the
 * bare name; sequencer/opts when opts: a `strategy = NAME` key) is not one
 * of git's built-in strategies: git would run `git-merge-NAME` from PATH. */
int gitdir_strategy_runs(const char *buf, size_t n, int opts);

/* 1 if an index entry's name (len bytes) is one git itself writes
 * (read-cache.c verify_path): not empty, no leading or trailing '/', no
 * empty, ".", ".." or ".git" (any case) component, no NUL.  Only such a
 * name is ever turned into a path: an entry named "." or "" with mode
 * 160000 would otherwise make PATH/.git the repository's own .git. */
int gitdir_index_name_ok(const char *name, size_t len);

/* How gitdir_index_gitlinks reads an index. */
struct gitdir_index_walk {
	int all;          /* in: fn for every entry with a good name, not only gitlinks
			   * (the shared part of a split index whose replaced entries
			   * may be gitlinks now) */
	size_t stripped;  /* out: gitlinks with an empty name: in a split index, an
			   * entry that replaces one of the shared part (sharedindex.*) */
	size_t bad;       /* out: gitlinks with another name gitdir_index_name_ok refuses */
};

/* The gitlinks (mode 160000: submodule entries) of an index's bytes
 * (versions 2, 3 and 4; oidlen 20 for SHA-1, 32 for SHA-256): fn(ctx,
 * path, len) for each whose name gitdir_index_name_ok takes (every such
 * entry when w->all), path not NUL-terminated; the others are counted in
 * *w.  A host `git status` runs git inside each populated one, and so that
 * repository's config.  0, or -EINVAL when the bytes are not such an
 * index (wrong oidlen included), or fn's first failure. */
int gitdir_index_gitlinks(const unsigned char *buf, size_t n, size_t oidlen,
			  struct gitdir_index_walk *w,
			  int (*fn)(void *ctx, const char *path, size_t len), void *ctx);

/* A linked worktree whose git dir G lies outside every writable root (the
 * main repository elsewhere): what plan/gitlinked.c found of it.  Its
 * common dir C is then split by this same rule, as a .git inside a root
 * is, but only if it is beyond doubt a linked worktree of the caller's: a
 * .git file is a file of a writable root, which an earlier run may have
 * written, and pointing it at ~/.ssh or /etc must make nothing writable. */
struct gitdir_linked {
	const char *gitfile;   /* ROOT/.git, the .git file (a clean absolute path) */
	const char *gitdir;    /* G as the .git file names it, joined and cleaned */
	const char *gitdir_real; /* G's canonical path; NULL: cannot be resolved */
	const char *common;    /* G/commondir joined to G and cleaned; NULL: none */
	const char *common_real; /* its canonical path; NULL: cannot be resolved */
	const char *back;      /* G/gitdir joined and cleaned; NULL: none */
	int link;              /* one of the files or directories read is a symbolic link */
	int foreign;           /* one of them is not the caller's */
	int repo;              /* C has objects/, refs/ (directories) and HEAD */
	int config_paths;      /* a config git reads there (C/config, C/config.worktree,
				* G/config.worktree) names an include or core.hooksPath:
				* files cordon would have to follow */
	int root_inside;       /* a writable root lies in C (or is C) */
};

/* NULL when C may be split by the rule (its data writable), else why not,
 * for the note that leaves it read-only.  Pure.  Required: G and C named
 * without a symbolic link (canonical == as named), G = C/worktrees/NAME
 * (where git worktree add puts it, so the rule's worktrees/NAME entry covers G),
 * G/gitdir naming this very .git file back, C a repository, all of it the
 * caller's, no include or hooksPath to follow, no writable root in C. */
const char *gitdir_linked_refusal(const struct gitdir_linked *f);

#endif
