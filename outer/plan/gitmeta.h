/* gitmeta.h: the git directories a repository at the top of a writable root
 * names besides its own `.git`, where host git would run hooks from:
 *   - the real git directory of a `.git` file (`gitdir: PATH`, a worktree or
 *     submodule checkout), and its common directory (`commondir`), which
 *     holds the hooks of a worktree;
 *   - the directory `core.hooksPath` names in the repository's config.
 * Each one that lies inside a writable root is bound read-only (resolve.c).
 *
 * The files read here lie in a writable root: their bytes are untrusted.
 * The parsers are bounded (GITMETA_MAX_FILE), never allocate, and take only
 * what git itself would. */
#ifndef CORDON_GITMETA_H
#define CORDON_GITMETA_H

#include <stddef.h>

#define GITMETA_MAX_FILE 65536
#define GITMETA_MAX_PATHS 3

/* The `gitdir:` of a .git file's bytes, trailing whitespace dropped, into
 * out.  0, or -EINVAL when it is not a gitfile, -ENAMETOOLONG. */
int gitmeta_parse_gitfile(const char *buf, size_t n, char *out, size_t outlen)
	__attribute__((warn_unused_result));

/* The last `hooksPath` of the `[core]` section of a git config's bytes
 * (section and key names are case-insensitive; quotes and the escapes \" \\
 * \t \n are git's), into out.  1 when found, 0 when not, -ENAMETOOLONG. */
int gitmeta_parse_hookspath(const char *buf, size_t n, char *out, size_t outlen)
	__attribute__((warn_unused_result));

/* Join a path found in one of those files to the directory it is relative
 * to (an absolute one is kept; "~/" is home's, NULL home: -ENOENT), into
 * out, lexically cleaned.  0 or -errno. */
int gitmeta_join(const char *base, const char *found, const char *home, char *out, size_t outlen)
	__attribute__((warn_unused_result));

/* The paths named by the repository whose worktree is the directory rootfd
 * (at root, an absolute clean path): up to GITMETA_MAX_PATHS absolute clean
 * paths into paths, their count into *n, each tagged with what named it
 * (why[i]: "gitdir", "commondir", "core.hooksPath").  Files that are absent
 * are skipped; 0 or -errno. */
int gitmeta_find(int rootfd, const char *root, const char *home,
		 char paths[GITMETA_MAX_PATHS][4096], const char *why[GITMETA_MAX_PATHS], size_t *n)
	__attribute__((warn_unused_result));

/* Read a small regular file at dirfd/name without following a link: at
 * most len - 1 bytes into buf, NUL-terminated.  0, or -errno (-ENOENT when
 * absent, -EINVAL when not a regular file). */
int gitmeta_read_small(int dirfd, const char *name, char *buf, size_t len, size_t *n)
	__attribute__((warn_unused_result));

#endif
