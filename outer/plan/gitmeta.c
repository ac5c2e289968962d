/* gitmeta.c: see gitmeta.h. */
#include "plan/gitmeta.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>
#include "path.h"
#include "sys.h"

int gitmeta_parse_gitfile(const char *buf, size_t n, char *out, size_t outlen)
{
	static const char tag[] = "gitdir:";
	if (n < sizeof(tag) - 1 || memcmp(buf, tag, sizeof(tag) - 1) != 0)
		return -EINVAL;
	size_t i = sizeof(tag) - 1;
	while (i < n && (buf[i] == ' ' || buf[i] == '\t'))
		i++;
	size_t end = i;
	while (end < n && buf[end] != '\n' && buf[end] != '\0')
		end++;
	while (end > i && isspace((unsigned char)buf[end - 1]))
		end--;
	if (end == i)
		return -EINVAL;
	if (end - i >= outlen)
		return -ENAMETOOLONG;
	memcpy(out, buf + i, end - i);
	out[end - i] = '\0';
	return 0;
}

/* A bounded reader of git's config syntax, enough to find one key. */
struct cfg {
	const char *p, *end;
};

static int cfg_peek(const struct cfg *c)
{
	return c->p < c->end ? (unsigned char)*c->p : -1;
}

static void cfg_skip_line(struct cfg *c)
{
	while (c->p < c->end && *c->p != '\n')
		c->p++;
}

static void cfg_skip_blank(struct cfg *c)
{
	while (c->p < c->end && (*c->p == ' ' || *c->p == '\t' || *c->p == '\r'))
		c->p++;
}

/* "[name]" or "[name \"sub\"]": 1 when the section is exactly [core]. */
static int cfg_section(struct cfg *c)
{
	char name[16];
	size_t len = 0;
	int plain = 1;
	c->p++; /* '[' */
	while (c->p < c->end && *c->p != ']' && *c->p != '\n') {
		char ch = *c->p++;
		if (ch != ' ' && ch != '"' && ch != '.' && len < sizeof(name) - 1)
			name[len++] = ch;
		else
			plain = 0;
	}
	name[len] = '\0';
	if (cfg_peek(c) == ']')
		c->p++;
	return plain && strcasecmp(name, "core") == 0;
}

/* The value after '=': quotes, escapes, comments, trailing blanks. */
static int cfg_value(struct cfg *c, char *out, size_t outlen)
{
	size_t len = 0, keep = 0;
	int quoted = 0;
	cfg_skip_blank(c);
	while (c->p < c->end && *c->p != '\n') {
		char ch = *c->p++;
		if (ch == '"') {
			quoted = !quoted;
			keep = len; /* blanks before a quote are the value's */
			continue;
		}
		if (!quoted && (ch == '#' || ch == ';')) {
			cfg_skip_line(c);
			break;
		}
		if (ch == '\\') {
			if (c->p >= c->end || *c->p == '\n')
				break; /* a continuation line: not followed */
			ch = *c->p++;
			if (ch == 't')
				ch = '\t';
			else if (ch == 'n')
				ch = '\n';
			else if (ch == 'b')
				ch = '\b';
			keep = len + 1;
		} else if (ch == ' ' || ch == '\t' || ch == '\r') {
			if (quoted)
				keep = len + 1;
		} else {
			keep = len + 1;
		}
		if (len + 1 >= outlen)
			return -ENAMETOOLONG;
		out[len++] = ch;
	}
	out[keep < len ? keep : len] = '\0';
	return 0;
}

int gitmeta_parse_hookspath(const char *buf, size_t n, char *out, size_t outlen)
{
	struct cfg c = { buf, buf + n };
	int in_core = 0, found = 0;
	char val[PATH_MAX];
	while (c.p < c.end) {
		cfg_skip_blank(&c);
		int ch = cfg_peek(&c);
		if (ch == '[') {
			in_core = cfg_section(&c);
			continue; /* a key may follow on the same line */
		}
		if (ch == '\n') {
			c.p++;
			continue;
		}
		if (ch == '#' || ch == ';' || !isalpha(ch)) {
			cfg_skip_line(&c);
			continue;
		}
		const char *k = c.p;
		while (c.p < c.end && (isalnum((unsigned char)*c.p) || *c.p == '-'))
			c.p++;
		size_t klen = (size_t)(c.p - k);
		cfg_skip_blank(&c);
		int is_key = in_core && klen == 9 && strncasecmp(k, "hookspath", 9) == 0;
		if (cfg_peek(&c) != '=') {
			cfg_skip_line(&c); /* a boolean key, or garbage */
			continue;
		}
		c.p++;
		int rc = cfg_value(&c, val, sizeof(val));
		if (rc < 0)
			return rc;
		if (is_key) {
			if (strlen(val) >= outlen)
				return -ENAMETOOLONG;
			(void)snprintf(out, outlen, "%s", val);
			found = val[0] != '\0';
		}
	}
	return found;
}

int gitmeta_join(const char *base, const char *found, const char *home, char *out, size_t outlen)
{
	char joined[2 * PATH_MAX];
	int w;
	if (found[0] == '/')
		w = snprintf(joined, sizeof(joined), "%s", found);
	else if (found[0] == '~' && (found[1] == '/' || found[1] == '\0')) {
		if (!home || home[0] != '/')
			return -ENOENT;
		w = snprintf(joined, sizeof(joined), "%s/%s", home, found + 1);
	} else if (found[0] == '~')
		return -ENOENT; /* ~user: not looked up */
	else
		w = snprintf(joined, sizeof(joined), "%s/%s", base, found);
	if (w < 0 || (size_t)w >= sizeof(joined))
		return -ENAMETOOLONG;
	return path_clean(joined, out, outlen);
}

/* Read a small regular file at dirfd/name without following a link: its
 * bytes into buf (NUL-terminated).  -ENOENT when absent. */
int gitmeta_read_small(int dirfd, const char *name, char *buf, size_t len, size_t *n)
{
	*n = 0;
	AUTO_FD fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	struct stat st;
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0)
		return -errno;
	if (!S_ISREG(st.st_mode))
		return -EINVAL;
	ssize_t got = sys_read_full(fd, buf, len - 1);
	if (got < 0)
		return (int)got;
	buf[got] = '\0';
	*n = (size_t)got;
	return 0;
}

static int read_at_path(const char *path, char *buf, size_t len, size_t *n)
{
	AUTO_FD dir = -1;
	char parent[PATH_MAX];
	(void)snprintf(parent, sizeof(parent), "%s", path);
	char *slash = strrchr(parent, '/');
	if (!slash)
		return -EINVAL;
	*slash = '\0';
	dir = open(parent[0] ? parent : "/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (dir < 0)
		return -errno;
	return gitmeta_read_small(dir, slash + 1, buf, len, n);
}

static int push(char paths[GITMETA_MAX_PATHS][4096], const char *why[], size_t *n,
		const char *path, const char *tag)
{
	for (size_t i = 0; i < *n; i++)
		if (strcmp(paths[i], path) == 0)
			return 0;
	if (*n >= GITMETA_MAX_PATHS)
		return -E2BIG;
	(void)snprintf(paths[*n], 4096, "%s", path);
	why[(*n)++] = tag;
	return 0;
}

int gitmeta_find(int rootfd, const char *root, const char *home,
		 char paths[GITMETA_MAX_PATHS][4096], const char *why[GITMETA_MAX_PATHS], size_t *n)
{
	static char buf[GITMETA_MAX_FILE + 1];
	char found[PATH_MAX], gitdir[PATH_MAX], common[PATH_MAX], cfgpath[PATH_MAX + 8];
	size_t len = 0;
	struct stat st;
	int rc;
	*n = 0;
	if (fstatat(rootfd, ".git", &st, AT_SYMLINK_NOFOLLOW) < 0)
		return errno == ENOENT ? 0 : -errno;
	if (S_ISDIR(st.st_mode)) {
		(void)snprintf(common, sizeof(common), "%s/.git", root);
	} else if (S_ISREG(st.st_mode)) {
		if ((rc = gitmeta_read_small(rootfd, ".git", buf, sizeof(buf), &len)) < 0)
			return rc;
		if (gitmeta_parse_gitfile(buf, len, found, sizeof(found)) < 0)
			return 0; /* not a gitfile: git ignores it too */
		if ((rc = gitmeta_join(root, found, home, gitdir, sizeof(gitdir))) < 0 ||
		    (rc = push(paths, why, n, gitdir, "gitdir")) < 0)
			return rc;
		(void)snprintf(common, sizeof(common), "%s", gitdir);
		(void)snprintf(cfgpath, sizeof(cfgpath), "%s/commondir", gitdir);
		rc = read_at_path(cfgpath, buf, sizeof(buf), &len);
		if (rc == 0) {
			/* commondir holds a bare path, relative to the git dir. */
			while (len > 0 && isspace((unsigned char)buf[len - 1]))
				buf[--len] = '\0';
			if (len && ((rc = gitmeta_join(gitdir, buf, home, common, sizeof(common))) < 0 ||
				    (rc = push(paths, why, n, common, "commondir")) < 0))
				return rc;
		} else if (rc != -ENOENT && rc != -ENOTDIR) {
			return rc;
		}
	} else {
		return 0;
	}
	(void)snprintf(cfgpath, sizeof(cfgpath), "%s/config", common);
	rc = read_at_path(cfgpath, buf, sizeof(buf), &len);
	if (rc == -ENOENT || rc == -ENOTDIR)
		return 0;
	if (rc < 0)
		return rc;
	if ((rc = gitmeta_parse_hookspath(buf, len, found, sizeof(found))) <= 0)
		return rc;
	char hooks[PATH_MAX];
	if (gitmeta_join(root, found, home, hooks, sizeof(hooks)) < 0)
		return 0; /* ~user: git would look it up; cordon leaves it alone */
	return push(paths, why, n, hooks, "core.hooksPath");
}
