/* walk.c: see walk.h. */
#include "plan/walk.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <sys/syscall.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "sys.h"

enum { WALK_MAX_LINKS = 40 }; /* the kernel's own limit */

/* The components still to walk: a link's target is put in front of what
 * followed the link. */
struct rest {
	char buf[2 * PATH_MAX];
	size_t at;
};

static int rest_prepend(struct rest *r, const char *target, size_t tlen)
{
	size_t left = strlen(r->buf + r->at);
	if (tlen + 1 + left + 1 > sizeof(r->buf))
		return -ENAMETOOLONG;
	memmove(r->buf + tlen + 1, r->buf + r->at, left + 1);
	memcpy(r->buf, target, tlen);
	r->buf[tlen] = '/';
	r->at = 0;
	return 0;
}

/* The walked path, only for messages: ".." drops the last component. */
static void shown_step(char *shown, size_t len, const char *comp, size_t clen)
{
	size_t n = strlen(shown);
	if (clen == 2 && comp[0] == '.' && comp[1] == '.') {
		char *slash = strrchr(shown, '/');
		if (slash)
			*slash = '\0';
		return;
	}
	if (n + 1 + clen + 1 > len)
		return;
	shown[n] = '/';
	memcpy(shown + n + 1, comp, clen);
	shown[n + 1 + clen] = '\0';
}

static int start_at(const char *path, char *shown, size_t len)
{
	if (path[0] == '/') {
		shown[0] = '\0';
		return open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	}
	if (!getcwd(shown, len))
		shown[0] = '\0';
	return open(".", O_PATH | O_DIRECTORY | O_CLOEXEC);
}

int walk_system_link_dir(const char *dir)
{
	return strcmp(dir, "") == 0 || strcmp(dir, "/") == 0 || strcmp(dir, "/usr") == 0 ||
	       strcmp(dir, "/var") == 0;
}

/* One symbolic link met on the way (in the directory dir, as walked),
 * opened as itself: refuse it unless root owns it (and, with
 * WALK_SYSTEM_LINKS, it is the system's), else queue its target.  The owner
 * and the target are read from the opened link, so both belong to the same
 * inode. */
static int take_link(int linkfd, const struct stat *st, const char *dir, const char *shown,
		     enum walk_trust trust, struct rest *r, int *cur, struct walk_link *bad)
{
	char target[PATH_MAX];
	int not_system = trust == WALK_SYSTEM_LINKS && !walk_system_link_dir(dir);
	if (st->st_uid != 0 || not_system) {
		(void)snprintf(bad->path, sizeof(bad->path), "%s", shown[0] ? shown : "/");
		bad->owner = st->st_uid;
		bad->not_system = not_system && st->st_uid == 0;
		return -EPERM;
	}
	ssize_t n = readlinkat(linkfd, "", target, sizeof(target));
	if (n < 0)
		return -errno;
	if ((size_t)n >= sizeof(target))
		return -ENAMETOOLONG;
	int rc = rest_prepend(r, target, (size_t)n);
	if (rc < 0)
		return rc;
	if (target[0] == '/') {
		int root = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (root < 0)
			return -errno;
		sys_close(cur);
		*cur = root;
	}
	return 0;
}

/* Most paths hold no link at all: one openat2 that refuses every link opens
 * them (ELOOP sends the path to the walk; so does a kernel before 5.6). */
static int open_linkless(const char *path)
{
	struct open_how how = {
		.flags = O_PATH | O_CLOEXEC,
		.resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS,
	};
	long fd = syscall(SYS_openat2, AT_FDCWD, path, &how, sizeof(how));
	return fd < 0 ? -errno : (int)fd;
}

int walk_open(const char *path, enum walk_trust trust, struct walk_link *bad)
{
	int fast = open_linkless(path);
	if (fast >= 0 || (fast != -ELOOP && fast != -ENOSYS && fast != -EPERM && fast != -EXDEV))
		return fast;
	struct rest r;
	char shown[PATH_MAX];
	int links = 0;
	size_t plen = strlen(path);
	if (plen + 1 > sizeof(r.buf))
		return -ENAMETOOLONG;
	memcpy(r.buf, path, plen + 1);
	r.at = 0;
	AUTO_FD cur = start_at(path, shown, sizeof(shown));
	if (cur < 0)
		return -errno;
	for (;;) {
		char *p = r.buf + r.at;
		while (*p == '/')
			p++;
		if (!*p)
			break;
		size_t clen = strcspn(p, "/");
		char comp[NAME_MAX + 1];
		if (clen > NAME_MAX)
			return -ENAMETOOLONG;
		memcpy(comp, p, clen);
		comp[clen] = '\0';
		r.at = (size_t)(p - r.buf) + clen;
		if (strcmp(comp, ".") == 0)
			continue;
		AUTO_FD next = openat(cur, comp, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		if (next < 0)
			return -errno;
		struct stat st;
		if (fstat(next, &st) < 0)
			return -errno;
		char before[PATH_MAX];
		memcpy(before, shown, sizeof(before));
		shown_step(shown, sizeof(shown), comp, clen);
		if (S_ISLNK(st.st_mode)) {
			if (++links > WALK_MAX_LINKS)
				return -ELOOP;
			int rc = take_link(next, &st, before, shown, trust, &r, &cur, bad);
			if (rc < 0)
				return rc;
			/* The target replaces the link: a relative one is
			 * walked from the directory that held the link. */
			memcpy(shown, before, sizeof(shown));
			if (r.buf[0] == '/')
				shown[0] = '\0';
			continue;
		}
		sys_close(&cur);
		cur = sys_take_fd(&next);
	}
	return sys_take_fd(&cur);
}
