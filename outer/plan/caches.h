/* caches.h: --cache private, the pure part: where a workspace's caches live
 * and which variables name them to the command.  Nothing here touches the
 * filesystem; hostpaths/caches.c creates and checks the directory.
 *
 * One directory per user and workspace, $XDG_CACHE_HOME/cordon/NAME (default
 * ~/.cache/cordon/NAME), bound writable at the same path inside.  The
 * workspace is the first writable root (-w), or the working directory when
 * there is none; NAME is the last component of its canonical path (for a
 * person reading `cordon doctor`) followed by 16 hex digits of the FNV-1a
 * 64-bit hash of the whole canonical path (the identity).  The hash guards
 * against nothing: both workspaces would be the same user's, and a run that
 * can write one of them can write the other's cache only if it has -w over
 * both. */
#ifndef CORDON_PLAN_CACHES_H
#define CORDON_PLAN_CACHES_H

#include <stddef.h>
#include "argv.h"
#include "config.h"
#include "err.h"

#define CACHES_NAME_MAX 64

/* The base directory ($XDG_CACHE_HOME/cordon, or HOME/.cache/cordon when
 * XDG_CACHE_HOME is unset or relative, as the XDG spec says) from an
 * environment, lexically clean, into out; *must_exist: how many leading
 * components must exist already (cordon creates the cache directories, never
 * a home directory).  home: the password database's home directory, used
 * when HOME is unset (may be NULL).  0, -ENOENT (no home), -ENAMETOOLONG. */
int caches_base(char *const *env, const char *home, char *out, size_t outlen,
		size_t *must_exist) __attribute__((warn_unused_result));

/* NAME for the workspace at the canonical absolute path ws. */
int caches_dir_name(const char *ws, char *out, size_t outlen) __attribute__((warn_unused_result));

struct caches_in {
	const char *dir;            /* the workspace's cache directory */
	char *const *host_env;      /* cordon's own environment */
	const struct env_op *ops;   /* --setenv/--unsetenv, in order */
	size_t nops;
	const char *goenv;          /* the text of Go's env file (`go env -w`), NULL: none */
};

/* Name the cache directory to the command in env (built by env_build from
 * in->host_env and in->ops): each tool's own variable (the table in
 * caches.c).  A value set with --setenv wins; an inherited one is replaced
 * (in whatever case npm reads it), since it names the host's cache, which
 * the sandbox must not write and where the tool would fail.  Go's
 * GOPROXY gets the host's module cache (GOMODCACHE, GOPATH or HOME in
 * host_env or Go's env file) as a file:// entry before the command's
 * GOPROXY, the env file's, or Go's default, so modules already downloaded
 * on the host build offline without
 * the host's cache being written. */
int caches_env(struct argv *env, const struct caches_in *in, struct cordon_err *e)
	__attribute__((warn_unused_result));

/* --- pruning: which cache directories a run removes in the background ---
 *
 * Beside each workspace's directory NAME, the base holds NAME.workspace: the
 * workspace's canonical path, written when a run first uses NAME; its mtime
 * is set at each run's start (the last use).  The base's .pruned says when
 * caches were last pruned.  Neither is inside a directory the sandbox can
 * write.  At most once a day (CACHES_PRUNE_EVERY_S), a run removes, in the
 * background, each directory of cordon's naming whose workspace is gone or
 * whose last use is CACHES_UNUSED_S old, and its record. */
#define CACHES_PRUNE_EVERY_S (24LL * 3600)
#define CACHES_UNUSED_S (30LL * 24 * 3600)
#define CACHES_RECORD_SUFFIX ".workspace"
#define CACHES_PRUNED_STAMP ".pruned"

/* 1 if name is a directory name caches_dir_name makes (LABEL-16 hex
 * digits), else 0. */
int caches_name_is_ours(const char *name);

/* What prune knows of one entry of the base. */
enum caches_ws { CACHES_WS_UNKNOWN, CACHES_WS_PRESENT, CACHES_WS_GONE };
struct caches_entry {
	int ours;             /* a directory of cordon's naming, the user's, not a link */
	long long unused_s;   /* seconds since its last use (its record's mtime, else its own) */
	enum caches_ws ws;    /* the workspace its record names (UNKNOWN: no valid record) */
};

enum caches_verdict { CACHES_KEEP, CACHES_REMOVE_GONE, CACHES_REMOVE_UNUSED };

/* Pure: remove the entry?  Only a directory that is ours; its workspace
 * gone (a record that names it and hashes to its name), or unused for
 * CACHES_UNUSED_S. */
enum caches_verdict caches_prune_verdict(const struct caches_entry *f);

/* Pure: 1 if a prune is due, given seconds since the last (-1: never). */
int caches_prune_due_after(long long since_s);

/* Pure: 1 if record (a NAME.workspace's text, len bytes) names a canonical
 * path whose caches_dir_name is name; the path into ws. */
int caches_record_matches(const char *name, const char *record, size_t len, char *ws,
			  size_t wslen);

/* Why caches_env sets or removes key (in any case npm reads it), NULL
 * when it does not. */
const char *caches_env_why(const char *key);

/* Where Go's env file is (GOENV, else $XDG_CONFIG_HOME/go/env, else
 * ~/.config/go/env), from an environment; -ENOENT when there is none. */
int caches_goenv_path(char *const *env, char *out, size_t outlen)
	__attribute__((warn_unused_result));

#endif
