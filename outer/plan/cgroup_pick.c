/* cgroup_pick.c: see cgroup_pick.h. */
#include "plan/cgroup_pick.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int copy(char *out, size_t n, const char *s, size_t len)
{
	if (len >= n)
		return -ENAMETOOLONG;
	memcpy(out, s, len);
	out[len] = '\0';
	return 0;
}

/* 1 if the sep-separated list s[0..len) holds word. */
static int list_has(const char *s, size_t len, char sep, const char *word)
{
	size_t wl = strlen(word);
	for (size_t i = 0; i < len;) {
		size_t j = i;
		while (j < len && s[j] != sep && s[j] != '\n')
			j++;
		if (j - i == wl && memcmp(s + i, word, wl) == 0)
			return 1;
		i = j + 1;
	}
	return 0;
}

int cgroup_pick_lists(const char *list, const char *ctrl)
{
	/* Controllers are separated by single spaces; the file ends in \n. */
	return list && list_has(list, strlen(list), ' ', ctrl);
}

int cgroup_pick_self(const char *text, const char *ctrl, char *path, size_t n)
{
	for (const char *l = text; l && *l;) {
		const char *end = strchr(l, '\n');
		size_t len = end ? (size_t)(end - l) : strlen(l);
		const char *c1 = memchr(l, ':', len);
		const char *c2 = c1 ? memchr(c1 + 1, ':', len - (size_t)(c1 + 1 - l)) : NULL;
		if (c2) {
			size_t cl = (size_t)(c2 - c1 - 1);
			int v2 = cl == 0 && c1 - l == 1 && l[0] == '0';
			if (ctrl ? list_has(c1 + 1, cl, ',', ctrl) : v2)
				return copy(path, n, c2 + 1, len - (size_t)(c2 + 1 - l));
		}
		l = end ? end + 1 : NULL;
	}
	return -ENOENT;
}

/* The next space-separated field of a mountinfo line. */
static const char *field(const char **p, const char *end, size_t *len)
{
	while (*p < end && **p == ' ')
		(*p)++;
	const char *s = *p;
	while (*p < end && **p != ' ')
		(*p)++;
	*len = (size_t)(*p - s);
	return *len ? s : NULL;
}

/* One mountinfo line: if it mounts the hierarchy asked for, its root and
 * mount point.  1 if it does, 0 if not. */
static int mount_line(const char *l, const char *end, const char *ctrl, const char **root,
		      size_t *rl, const char **mnt, size_t *ml)
{
	size_t len;
	const char *f;
	for (int i = 0; i < 3; i++)
		if (!field(&l, end, &len))
			return 0;
	*root = field(&l, end, rl);
	*mnt = field(&l, end, ml);
	/* The optional fields end at a lone "-". */
	while ((f = field(&l, end, &len)) && !(len == 1 && *f == '-'))
		;
	const char *type = field(&l, end, &len);
	size_t tl = len;
	if (!f || !type || !field(&l, end, &len))
		return 0;
	const char *opts = field(&l, end, &len);
	/* Escaped paths (\040 for a space) are no cgroup mount of ours. */
	if (!*root || !*mnt || memchr(*root, '\\', *rl) || memchr(*mnt, '\\', *ml))
		return 0;
	if (!ctrl)
		return tl == 7 && memcmp(type, "cgroup2", 7) == 0;
	return tl == 6 && memcmp(type, "cgroup", 6) == 0 && opts && list_has(opts, len, ',', ctrl);
}

int cgroup_pick_mount(const char *text, const char *ctrl, char *mnt, size_t mn, char *root,
		      size_t rn)
{
	for (const char *l = text; l && *l;) {
		const char *end = strchr(l, '\n');
		if (!end)
			end = l + strlen(l);
		const char *r, *m;
		size_t rl, ml;
		if (mount_line(l, end, ctrl, &r, &rl, &m, &ml)) {
			int rc = copy(mnt, mn, m, ml);
			return rc < 0 ? rc : copy(root, rn, r, rl);
		}
		l = *end ? end + 1 : NULL;
	}
	return -ENOENT;
}

int cgroup_pick_dir(const char *mnt, const char *root, const char *path, char *out, size_t n)
{
	size_t rl = strcmp(root, "/") == 0 ? 0 : strlen(root);
	if (path[0] != '/' || strncmp(path, root, rl) != 0 || (path[rl] != '/' && path[rl]))
		return -ENOENT;
	const char *rest = path + rl;
	/* "/" alone: the mount itself. */
	if (strcmp(rest, "/") == 0)
		rest = "";
	/* A path shown as "/.." is out of this namespace's sight. */
	if (strstr(rest, "/../") || (strlen(rest) >= 3 && !strcmp(rest + strlen(rest) - 3, "/..")))
		return -ENOENT;
	int len = snprintf(out, n, "%s%s", mnt, rest);
	return len < 0 || (size_t)len >= n ? -ENAMETOOLONG : 0;
}

int cgroup_pick_parent(const char *dir, const char *mnt, char *out, size_t n)
{
	size_t ml = strlen(mnt);
	const char *slash = strrchr(dir, '/');
	if (strncmp(dir, mnt, ml) != 0 || !dir[ml] || !slash || (size_t)(slash - dir) < ml)
		return -ENOENT;
	return copy(out, n, dir, (size_t)(slash - dir));
}

int cgroup_pick_v2(const struct cgroup_v2_dir *own, const struct cgroup_v2_dir *parent,
		   const char *ctrl)
{
	if (own->exists && own->writable && (!ctrl || cgroup_pick_lists(own->subtree, ctrl)))
		return 0;
	if (parent->exists && parent->writable && (!ctrl || cgroup_pick_lists(parent->subtree, ctrl)))
		return 1;
	return -1;
}

/* A decimal count that ends the text or its line. */
static int count(const char *s, unsigned long long *out)
{
	if (*s < '0' || *s > '9')
		return -EINVAL;
	unsigned long long v = 0;
	for (; *s >= '0' && *s <= '9'; s++) {
		unsigned d = (unsigned)(*s - '0');
		if (v > (~0ULL - d) / 10)
			return -EINVAL;
		v = v * 10 + d;
	}
	if (*s && *s != '\n')
		return -EINVAL;
	*out = v;
	return 0;
}

int cgroup_pick_cpu_usec(const char *text, int v2, unsigned long long *usec)
{
	if (!text)
		return -EINVAL;
	if (!v2) {
		unsigned long long ns;
		int rc = count(text, &ns);
		if (rc == 0)
			*usec = ns / 1000;
		return rc;
	}
	static const char key[] = "usage_usec ";
	for (const char *l = text; *l;) {
		if (strncmp(l, key, sizeof(key) - 1) == 0)
			return count(l + sizeof(key) - 1, usec);
		const char *nl = strchr(l, '\n');
		if (!nl)
			break;
		l = nl + 1;
	}
	return -EINVAL;
}

int cgroup_pick_run_name(const char *name, long *pid, unsigned long long *start)
{
	char *end;
	if (strncmp(name, "cordon-", 7) != 0 || name[7] < '1' || name[7] > '9')
		return 0;
	*pid = strtol(name + 7, &end, 10);
	if (*end != '-' || end[1] < '0' || end[1] > '9')
		return 0;
	const char *s = end + 1;
	*start = strtoull(s, &end, 10);
	return *end == '\0' && *pid > 0;
}

int cgroup_pick_run_random(const char *name)
{
	if (strncmp(name, "cordon-", 7) != 0 || strlen(name) != CGROUP_PICK_RANDOM_LEN)
		return 0;
	return strspn(name + 7, "0123456789abcdef") == CGROUP_PICK_RANDOM_LEN - 7;
}

int cgroup_pick_sweep_random(const struct cgroup_sweep_facts *f)
{
	return f->mine || !f->held;
}

/* "MA:MI:INO" of a /proc/locks line (two hex numbers and a decimal one). */
static int lock_inode(const char *w, unsigned *major, unsigned *minor, unsigned long long *ino)
{
	char *end;
	unsigned long ma = strtoul(w, &end, 16);
	if (end == w || *end != ':')
		return 0;
	const char *m = end + 1;
	unsigned long mi = strtoul(m, &end, 16);
	if (end == m || *end != ':')
		return 0;
	const char *n = end + 1;
	*ino = strtoull(n, &end, 10);
	*major = (unsigned)ma;
	*minor = (unsigned)mi;
	return end != n && *end == '\0';
}

size_t cgroup_pick_lock_holders(const char *locks, unsigned major, unsigned minor,
				unsigned long long ino, long *pids, size_t max)
{
	size_t n = 0;
	for (const char *l = locks; l && *l && n < max;) {
		const char *start = l, *nl = strchr(l, '\n');
		char line[256];
		size_t len = nl ? (size_t)(nl - l) : strlen(l);
		l = nl ? nl + 1 : NULL;
		if (len >= sizeof(line))
			continue;
		memcpy(line, start, len);
		line[len] = '\0';
		/* "N: FLOCK ADVISORY WRITE PID MA:MI:INO 0 EOF"; a waiter's line
		 * has "->" after the number. */
		char *w[6], *save = NULL;
		size_t k = 0;
		for (char *t = strtok_r(line, " ", &save); t && k < 6; t = strtok_r(NULL, " ", &save))
			w[k++] = t;
		unsigned ma, mi;
		unsigned long long in;
		char *end;
		if (k < 6 || strcmp(w[1], "FLOCK") != 0 || !lock_inode(w[5], &ma, &mi, &in) ||
		    ma != major || mi != minor || in != ino)
			continue;
		long pid = strtol(w[4], &end, 10);
		if (end != w[4] && *end == '\0' && pid > 0)
			pids[n++] = pid;
	}
	return n;
}
