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

int fstype_pseudo_each(const char *dir, int (*fn)(void *ctx, const char *point, const char *type),
		       void *ctx)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	if (!f)
		return -errno;
	char *line = NULL;
	size_t cap = 0;
	int rc = 0;
	while (rc == 0 && getline(&line, &cap, f) > 0) {
		char *save = NULL, *tok = strtok_r(line, " ", &save);
		for (int i = 1; tok && i < 5; i++)
			tok = strtok_r(NULL, " ", &save);
		char *sep = save ? strstr(save, " - ") : NULL;
		if (!tok || !sep)
			continue;
		char *type = sep + 3, *end = strchr(type, ' ');
		if (end)
			*end = '\0';
		unescape(tok);
		const char *name = pseudo_by_name(type);
		if (name && tok[0] == '/' && path_is_under(tok, dir) && strcmp(tok, dir) != 0)
			rc = fn(ctx, tok, name);
	}
	free(line);
	(void)fclose(f);
	return rc;
}

struct first {
	char *point;
	size_t len;
	const char *type;
};

static int take_first(void *ctx, const char *point, const char *type)
{
	struct first *f = ctx;
	(void)snprintf(f->point, f->len, "%s", point);
	f->type = type;
	return 1;
}

const char *fstype_pseudo_below(const char *dir, char *point, size_t len)
{
	struct first f = { point, len, NULL };
	if (fstype_pseudo_each(dir, take_first, &f) >= 0)
		return f.type;
	/* Unreadable mountinfo: cordon cannot tell, so it refuses. */
	(void)snprintf(point, len, "(unknown: /proc/self/mountinfo is unreadable)");
	return "unknown";
}

/* devtmpfs is built on shmem and reports tmpfs's magic: tell it apart by the
 * device number of its one superblock, as /proc/self/mountinfo lists it
 * ("ID PARENT MAJ:MIN ROOT POINT OPTS ... - TYPE SOURCE SUPER").  Unreadable
 * mountinfo counts as devtmpfs: cordon cannot tell, so it refuses. */
static int is_devtmpfs(dev_t dev)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	if (!f)
		return 1;
	char want[32], *line = NULL;
	size_t cap = 0;
	int found = 0;
	(void)snprintf(want, sizeof(want), "%u:%u", major(dev), minor(dev));
	while (!found && getline(&line, &cap, f) > 0) {
		char *save = NULL, *tok = strtok_r(line, " ", &save);
		for (int i = 1; tok && i < 3; i++)
			tok = strtok_r(NULL, " ", &save);
		if (!tok || strcmp(tok, want) != 0)
			continue;
		char *sep = strstr(save ? save : "", " - ");
		if (sep && strncmp(sep + 3, "devtmpfs ", 9) == 0)
			found = 1;
	}
	free(line);
	(void)fclose(f);
	return found;
}

const char *fstype_pseudo(int fd, int *err)
{
	struct statfs sf;
	struct stat st;
	*err = 0;
	if (fstatfs(fd, &sf) < 0 || fstat(fd, &st) < 0) {
		*err = -errno;
		return NULL;
	}
	unsigned long type = (unsigned long)sf.f_type;
	return fstype_pseudo_name(type, type == TMPFS_MAGIC_NUMBER && is_devtmpfs(st.st_dev));
}
