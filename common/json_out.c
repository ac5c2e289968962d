/* json_out.c: see json_out.h. */
#include "json_out.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void json_out_init(struct json_out *j, size_t cap)
{
	memset(j, 0, sizeof(*j));
	j->cap = cap;
}

static void put(struct json_out *j, const char *s, size_t n)
{
	if (j->failed)
		return;
	if (j->len + n + 1 > j->cap) {
		j->failed = -ENOSPC;
		return;
	}
	if (j->len + n + 1 > j->size) {
		size_t size = j->size ? j->size : 256;
		while (size < j->len + n + 1)
			size *= 2;
		if (size > j->cap)
			size = j->cap;
		char *b = realloc(j->buf, size);
		if (!b) {
			j->failed = -ENOMEM;
			return;
		}
		j->buf = b;
		j->size = size;
	}
	if (!j->buf) {
		j->failed = -ENOMEM;
		return;
	}
	memcpy(j->buf + j->len, s, n);
	j->len += n;
	j->buf[j->len] = '\0';
}

static void puts_(struct json_out *j, const char *s)
{
	put(j, s, strlen(s));
}

/* The length of the UTF-8 sequence at s (n bytes left), 0 if it is none:
 * overlong forms, surrogates and values past U+10FFFF count as none. */
static size_t utf8_len(const unsigned char *s, size_t n)
{
	size_t len = s[0] >= 0xf0 ? 4 : s[0] >= 0xe0 ? 3 : s[0] >= 0xc0 ? 2 : 0;
	if (len == 0 || len > n || s[0] > 0xf4 || s[0] == 0xc0 || s[0] == 0xc1)
		return 0;
	for (size_t i = 1; i < len; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	if ((s[0] == 0xe0 && s[1] < 0xa0) || (s[0] == 0xed && s[1] >= 0xa0) ||
	    (s[0] == 0xf0 && s[1] < 0x90) || (s[0] == 0xf4 && s[1] >= 0x90))
		return 0;
	return len;
}

static void put_string(struct json_out *j, const char *str, size_t n)
{
	const unsigned char *s = (const unsigned char *)str;
	put(j, "\"", 1);
	for (size_t i = 0; i < n;) {
		size_t run = i;
		while (run < n && s[run] >= 0x20 && s[run] < 0x80 && s[run] != '"' && s[run] != '\\')
			run++;
		put(j, str + i, run - i);
		if (run == n)
			break;
		i = run;
		size_t u = s[i] >= 0x80 ? utf8_len(s + i, n - i) : 0;
		char esc[8];
		if (u) {
			put(j, str + i, u);
			i += u;
			continue;
		}
		if (s[i] == '"' || s[i] == '\\')
			(void)snprintf(esc, sizeof(esc), "\\%c", s[i]);
		else if (s[i] == '\n')
			(void)snprintf(esc, sizeof(esc), "\\n");
		else if (s[i] == '\t')
			(void)snprintf(esc, sizeof(esc), "\\t");
		else
			(void)snprintf(esc, sizeof(esc), "\\u%04x", s[i]);
		puts_(j, esc);
		i++;
	}
	put(j, "\"", 1);
}

/* The comma and the key before a value. */
static void lead(struct json_out *j, const char *key)
{
	if (j->depth > 0 && j->count[j->depth - 1]++ > 0)
		put(j, ",", 1);
	if (key) {
		put_string(j, key, strlen(key));
		put(j, ":", 1);
	}
}

static void open_(struct json_out *j, const char *key, const char *bracket)
{
	lead(j, key);
	if (j->depth >= JSON_OUT_DEPTH) {
		if (!j->failed)
			j->failed = -ENOSPC;
		return;
	}
	puts_(j, bracket);
	j->kind[j->depth] = bracket[0];
	j->count[j->depth++] = 0;
}

void json_out_object(struct json_out *j, const char *key)
{
	open_(j, key, "{");
}

void json_out_array(struct json_out *j, const char *key)
{
	open_(j, key, "[");
}

void json_out_end(struct json_out *j)
{
	if (j->depth == 0) {
		if (!j->failed)
			j->failed = -EINVAL;
		return;
	}
	j->depth--;
	puts_(j, j->kind[j->depth] == '{' ? "}" : "]");
}

void json_out_str(struct json_out *j, const char *key, const char *s)
{
	if (!s) {
		json_out_null(j, key);
		return;
	}
	json_out_strn(j, key, s, strlen(s));
}

void json_out_strn(struct json_out *j, const char *key, const char *s, size_t n)
{
	lead(j, key);
	put_string(j, s, n);
}

void json_out_int(struct json_out *j, const char *key, long long v)
{
	char num[32];
	lead(j, key);
	(void)snprintf(num, sizeof(num), "%lld", v);
	puts_(j, num);
}

void json_out_uint(struct json_out *j, const char *key, unsigned long long v)
{
	char num[32];
	lead(j, key);
	(void)snprintf(num, sizeof(num), "%llu", v);
	puts_(j, num);
}

void json_out_double(struct json_out *j, const char *key, double v)
{
	char num[40];
	lead(j, key);
	if (!isfinite(v))
		v = 0; /* JSON has no NaN or infinity */
	(void)snprintf(num, sizeof(num), "%.6f", v);
	puts_(j, num);
}

void json_out_bool(struct json_out *j, const char *key, int v)
{
	lead(j, key);
	puts_(j, v ? "true" : "false");
}

void json_out_null(struct json_out *j, const char *key)
{
	lead(j, key);
	puts_(j, "null");
}

void json_out_nonzero(struct json_out *j, const char *key, unsigned long long v)
{
	if (v)
		json_out_uint(j, key, v);
	else
		json_out_null(j, key);
}

void json_out_strs(struct json_out *j, const char *key, const char *const *v, size_t n)
{
	json_out_array(j, key);
	for (size_t i = 0; v && i < n && v[i]; i++)
		json_out_str(j, NULL, v[i]);
	json_out_end(j);
}

int json_out_finish(struct json_out *j)
{
	if (!j->failed && j->depth != 0)
		j->failed = -EINVAL;
	if (!j->failed && !j->buf)
		put(j, "", 0);
	return j->failed;
}

void json_out_free(struct json_out *j)
{
	free(j->buf);
	memset(j, 0, sizeof(*j));
}
