/* path.h: side-effect-free path helpers (no filesystem access). */
#ifndef CORDON_PATH_H
#define CORDON_PATH_H

#include <stddef.h>

/* 1 if `path` is `dir` or lies beneath it (both absolute and clean). */
int path_is_under(const char *path, const char *dir);

/* Number of components of an absolute clean path ("/" is 0, "/a/b" is 2). */
size_t path_depth(const char *path);

/* Lexically clean an absolute path into out (collapse //, /./, /../, trailing
 * slash).  -EINVAL if not absolute, -ENAMETOOLONG if it does not fit. */
int path_clean(const char *in, char *out, size_t outlen);

/* Join dir and name with one slash into out; -ENAMETOOLONG if it does not fit. */
int path_join(const char *dir, const char *name, char *out, size_t outlen);

/* Walk a path's components: skips slashes at *p, returns the start of the
 * next component, sets *len to its length (0 at the end) and advances *p
 * past it. */
const char *path_next(const char **p, size_t *len);

/* The last component of a clean absolute path (pointer into path). */
const char *path_base(const char *path);

#endif
