/* fstype.c: see fstype.h. */
#include "plan/fstype.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include "path.h"
#include "grow.h"

static const struct {
	unsigned long magic;
	const char *name;
} pseudo[] = {
	{ 0x9fa0, "proc" },
	{ 0x62656572, "sysfs" },
	{ 0x1cd1, "devpts" },
	{ 0x27e0eb, "cgroup" },
	{ 0x63677270, "cgroup2" },
	{ 0x64626720, "debugfs" },
	{ 0x74726163, "tracefs" },
	{ 0x73636673, "securityfs" },
	{ 0xcafe4a11, "bpf" },
	{ 0x62656570, "configfs" },
	{ 0x6165676c, "pstore" },
	{ 0xde5e81e4, "efivarfs" },
	{ 0x65735543, "fusectl" },
	{ 0x958458f6, "hugetlbfs" },
	{ 0x42494e4d, "binfmt_misc" },
	{ 0xf97cff8c, "selinuxfs" },
	{ 0x43415d53, "smackfs" },
	{ 0x6e736673, "nsfs" },
	{ 0x19800202, "mqueue" },
	{ 0x67596969, "rpc_pipefs" },
};

#define TMPFS_MAGIC_NUMBER 0x01021994UL

const char *fstype_pseudo_name(unsigned long f_type, int is_devtmpfs)
{
	if (f_type == TMPFS_MAGIC_NUMBER)
		return is_devtmpfs ? "devtmpfs" : NULL;
	for (size_t i = 0; i < sizeof(pseudo) / sizeof(pseudo[0]); i++)
		if (pseudo[i].magic == f_type)
			return pseudo[i].name;
	return NULL;
}

static const char *pseudo_by_name(const char *type)
{
	if (strcmp(type, "devtmpfs") == 0)
		return "devtmpfs";
	for (size_t i = 0; i < sizeof(pseudo) / sizeof(pseudo[0]); i++)
		if (strcmp(pseudo[i].name, type) == 0)
			return pseudo[i].name;
	return NULL;
}

/* mountinfo escapes space, tab, newline and backslash as \ooo. */
static void unescape(char *s)
{
	char *w = s;
	for (char *r = s; *r; r++) {
		if (r[0] == '\\' && r[1] >= '0' && r[1] <= '3' && r[2] >= '0' && r[2] <= '7' &&
		    r[3] >= '0' && r[3] <= '7') {
			*w++ = (char)((r[1] - '0') * 64 + (r[2] - '0') * 8 + (r[3] - '0'));
			r += 3;
		} else {
			*w++ = *r;
		}
	}
	*w = '\0';
}

/* "ID PARENT MAJ:MIN ROOT POINT OPTS [OPTIONAL...] - TYPE SOURCE SUPER":
 * the pseudo mount a line names, appended to m; other lines are skipped. */
static int take_line(struct fstype_mounts *m, char *line)
{
	char *save = NULL, *tok = strtok_r(line, " ", &save);
	char *devs = NULL;
	for (int i = 1; tok && i < 5; i++) {
		tok = strtok_r(NULL, " ", &save);
		if (i == 2)
			devs = tok;
	}
	char *sep = save ? strstr(save, " - ") : NULL;
	char *colon = NULL, *rest = NULL;
	if (!tok || !sep || !devs)
		return 0;
	unsigned long ma = strtoul(devs, &colon, 10);
	if (*colon != ':')
		return 0;
	unsigned long mi = strtoul(colon + 1, &rest, 10);
	if (rest == colon + 1 || *rest != '\0')
		return 0;
	char *type = sep + 3, *end = strchr(type, ' ');
	if (end)
		*end = '\0';
	const char *name = pseudo_by_name(type);
	if (!name)
		return 0;
	unescape(tok);
	if (grow_reserve(&m->v, &m->cap, m->n + 1, sizeof(*m->v)) < 0)
		return -ENOMEM;
	if (!(m->v[m->n].point = strdup(tok)))
		return -ENOMEM;
	m->v[m->n].type = name;
	m->v[m->n].dev = makedev((unsigned)ma, (unsigned)mi);
	m->n++;
	return 0;
}

int fstype_mounts_load(struct fstype_mounts *m)
{
	*m = (struct fstype_mounts){ 0 };
	FILE *f = fopen("/proc/self/mountinfo", "re");
	if (!f)
		return -errno;
	char *line = NULL;
	size_t cap = 0;
	int rc = 0;
	while (rc == 0 && getline(&line, &cap, f) > 0)
		rc = take_line(m, line);
	if (rc == 0 && ferror(f))
		rc = -EIO;
	free(line);
	(void)fclose(f);
	if (rc < 0)
		fstype_mounts_free(m);
	return rc;
}

void fstype_mounts_free(struct fstype_mounts *m)
{
	for (size_t i = 0; i < m->n; i++)
		free(m->v[i].point);
	free(m->v);
	*m = (struct fstype_mounts){ 0 };
}

const char *fstype_pseudo_below(const struct fstype_mounts *m, const char *dir,
				const char **point)
{
	for (size_t i = 0; i < m->n; i++) {
		const char *p = m->v[i].point;
		if (p[0] == '/' && path_is_under(p, dir) && strcmp(p, dir) != 0) {
			*point = p;
			return m->v[i].type;
		}
	}
	return NULL;
}

const char *fstype_pseudo(int fd, const struct fstype_mounts *m, int *err)
{
	struct statfs sf;
	struct stat st;
	*err = 0;
	if (fstatfs(fd, &sf) < 0 || fstat(fd, &st) < 0) {
		*err = -errno;
		return NULL;
	}
	unsigned long type = (unsigned long)sf.f_type;
	int devtmpfs = 0;
	for (size_t i = 0; type == TMPFS_MAGIC_NUMBER && i < m->n; i++)
		if (m->v[i].dev == st.st_dev && strcmp(m->v[i].type, "devtmpfs") == 0)
			devtmpfs = 1;
	return fstype_pseudo_name(type, devtmpfs);
}
