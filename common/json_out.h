/* json_out.h: a small bounded JSON writer (explain --json, --report).
 *
 * Output goes to a buffer that grows up to a fixed cap; past the cap, or
 * without memory, the writer stops writing and json_out_finish says so, so a
 * caller checks once at the end, never after each value.  Strings are
 * escaped; bytes that are not UTF-8 (a path may hold any) are written as
 * \u00XX, so the output is always valid JSON.  Keys are given with each
 * value inside an object and are NULL inside an array. */
#ifndef CORDON_JSON_OUT_H
#define CORDON_JSON_OUT_H

#include <stddef.h>

#define JSON_OUT_DEPTH 16

struct json_out {
	char *buf;
	size_t len, size, cap;
	int failed;                     /* -ENOSPC or -ENOMEM once it happened */
	int depth;
	int count[JSON_OUT_DEPTH];      /* values written at each depth */
	char kind[JSON_OUT_DEPTH];      /* '{' or '[' open at each depth */
};

/* An empty writer whose output may grow to cap bytes. */
void json_out_init(struct json_out *j, size_t cap);

void json_out_object(struct json_out *j, const char *key);   /* { */
void json_out_array(struct json_out *j, const char *key);    /* [ */
void json_out_end(struct json_out *j);                       /* } or ] */
void json_out_str(struct json_out *j, const char *key, const char *s); /* NULL: null */
void json_out_strn(struct json_out *j, const char *key, const char *s, size_t n);
void json_out_int(struct json_out *j, const char *key, long long v);
void json_out_uint(struct json_out *j, const char *key, unsigned long long v);
void json_out_double(struct json_out *j, const char *key, double v);
void json_out_bool(struct json_out *j, const char *key, int v);
void json_out_null(struct json_out *j, const char *key);
/* v, or null when it is 0 (a setting's "none", a signal that did not come). */
void json_out_nonzero(struct json_out *j, const char *key, unsigned long long v);
/* An array of the n strings of v, ending early at a NULL: (argv, SIZE_MAX)
 * writes a NULL-terminated argv; v NULL writes []. */
void json_out_strs(struct json_out *j, const char *key, const char *const *v, size_t n);

/* 0 with the text (NUL-terminated, j->len bytes) in j->buf, or -errno. */
int json_out_finish(struct json_out *j) __attribute__((warn_unused_result));
void json_out_free(struct json_out *j);

#endif
