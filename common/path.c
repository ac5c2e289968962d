/* path.c: see path.h. */
#include "path.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

int path_is_under(const char *path, const char *dir)
{
	size_t n = strlen(dir);
	if (n == 1 && dir[0] == '/')
		return path[0] == '/';
	return strncmp(path, dir, n) == 0 && (path[n] == '\0' || path[n] == '/');
}

size_t path_depth(const char *path)
{
	size_t d = 0;
	for (const char *p = path; *p; p++)
		if (*p == '/' && p[1] != '\0')
			d++;
	return d;
}

const char *path_next(const char **p, size_t *len)
{
	while (**p == '/')
		(*p)++;
	const char *s = *p;
	while (**p && **p != '/')
		(*p)++;
	*len = (size_t)(*p - s);
	return s;
}

int path_clean(const char *in, char *out, size_t outlen)
{
	if (in[0] != '/')
		return -EINVAL;
	if (outlen < 2)
		return -ENAMETOOLONG;
	size_t o = 0;
	out[o++] = '/';
	const char *p = in;
	while (*p) {
		size_t len;
		const char *s = path_next(&p, &len);
		if (len == 0 || (len == 1 && s[0] == '.'))
			continue;
		if (len == 2 && s[0] == '.' && s[1] == '.') {
			while (o > 1 && out[o - 1] != '/')
				o--;
			if (o > 1)
				o--;
			continue;
		}
		if (o > 1) {
			if (o + 1 >= outlen)
				return -ENAMETOOLONG;
			out[o++] = '/';
		}
		if (o + len >= outlen)
			return -ENAMETOOLONG;
		memcpy(out + o, s, len);
		o += len;
	}
	out[o] = '\0';
	return 0;
}

int path_join(const char *dir, const char *name, char *out, size_t outlen)
{
	size_t dl = strlen(dir);
	int n = snprintf(out, outlen, "%s%s%s", dir,
			 (dl && dir[dl - 1] == '/') ? "" : "/", name);
	return (n < 0 || (size_t)n >= outlen) ? -ENAMETOOLONG : 0;
}

const char *path_base(const char *path)
{
	const char *s = strrchr(path, '/');
	return (s && s[1]) ? s + 1 : path;
}
