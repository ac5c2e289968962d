/* gitaudit.c: see gitaudit.h.  Belongs here: the walk and the moves; the
 * verdicts are plan/gitaudit.c's. */
#include "hostpaths/gitaudit.h"

#include <dirent.h>
#include <stdint.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "hostpaths/protect_quarantine.h"
#include "plan/gitaudit.h"
#include "sys.h"
#include "grow.h"

struct audit {
	const struct timespec *since;
	uid_t caller;
	gitaudit_found_fn *found;
	void *ctx;
	size_t n;
	char path[PATH_MAX];
};

/* An entry of the directory being read, to act on once it is read: a
 * rename during the listing may show the moved entry again under its new
 * name, and a subdirectory is walked with the listing's buffer free. */
struct later {
	char *name;
	const char *why;            /* a victim's reason; NULL: a subdirectory */
	struct stat st;
};

static int add_later(struct later **v, size_t *n, size_t *cap, const char *name,
		     const char *why, const struct stat *st)
{
	if (grow_reserve(v, cap, *n + 1, sizeof(**v)) < 0)
		return -ENOMEM;
	struct later *nv = *v;
	if (!(nv[*n].name = strdup(name)))
		return -ENOMEM;
	nv[*n].why = why;
	nv[(*n)++].st = *st;
	return 0;
}

static void move_aside(struct audit *a, int dfd, size_t plen, const struct later *v)
{
	char moved[NAME_MAX + 1];
	int r = protect_quarantine_hide(dfd, v->name, moved, sizeof(moved));
	if (r == -ENOENT)
		return;
	char what[PATH_MAX + NAME_MAX + 2], where[PATH_MAX + NAME_MAX + 2];
	(void)snprintf(what, sizeof(what), "%.*s/%s", (int)plen, a->path, v->name);
	(void)snprintf(where, sizeof(where), "%.*s/%s", (int)plen, a->path, moved);
	if (r == 0)
		fprintf(stderr, "cordon: %s was made or changed during the run and %s: moved "
			"aside, not deleted, to %s (--git commit)\n", what, v->why, where);
	else
		fprintf(stderr, "cordon: %s was made or changed during the run and %s, and it "
			"could not be moved aside (%s): remove it before running git there on "
			"the host\n", what, v->why, strerror(-r));
	if (a->found)
		a->found(a->ctx, what, r == 0 ? where : NULL, v->why);
	a->n++;
}

/* dfd is a git dir (it holds HEAD): its objects/ holds only objects. */
static int is_gitdir(int dfd)
{
	struct stat st;
	return fstatat(dfd, "HEAD", &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode);
}

/* getdents64's record (the kernel's struct linux_dirent64): 64-bit inode
 * and offset, then the record's length, the type and the name. */
#define DENT_RECLEN 16
#define DENT_TYPE 18
#define DENT_NAME 19

/* One buffer for every listing: a directory is listed whole before its
 * subdirectories are walked.  Large, because a loose object directory may
 * hold thousands of entries and libc's readdir (musl's: 2 KiB) would make
 * a system call for every few dozen. */
_Alignas(8) static char dents[64 * 1024];

static void audit_dir(struct audit *a, int dfd, const struct stat *self, size_t plen, int depth,
		      int in_objects);

/* The subdirectory name of dfd (st: its lstat), walked in turn. */
static void descend(struct audit *a, int dfd, const char *name, const struct stat *st,
		    size_t plen, int depth, int in_objects)
{
	size_t l = strlen(name);
	if (plen + 1 + l >= sizeof(a->path))
		return;
	AUTO_FD sub = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	struct stat now;
	/* Swapped between the lstat and the open (nothing of the command is
	 * left to do that): not the directory looked at, left alone. */
	if (sub < 0 || fstat(sub, &now) < 0 || now.st_ino != st->st_ino || now.st_dev != st->st_dev)
		return;
	a->path[plen] = '/';
	memcpy(a->path + plen + 1, name, l + 1);
	audit_dir(a, sub, &now, plen + 1 + l, depth + 1,
		  in_objects || (strcmp(name, "objects") == 0 && is_gitdir(dfd)));
	a->path[plen] = '\0';
}

/* The verdict on one entry of dfd: a victim, a subdirectory to walk, or
 * nothing (*out untouched).  changed: dfd itself changed since the start. */
static const char *look(struct audit *a, int dfd, const char *name, unsigned char type,
			int changed, int depth, int in_objects, struct stat *st, int *walk)
{
	*walk = 0;
	if (gitaudit_pass(name, changed, type == DT_DIR || type == DT_UNKNOWN) ||
	    fstatat(dfd, name, st, AT_SYMLINK_NOFOLLOW) < 0)
		return NULL;
	struct gitaudit_seen s = { st->st_mode, st->st_nlink, st->st_uid, st->st_ctim, in_objects };
	return gitaudit_look(&s, a->since, a->caller, depth, walk);
}

static void audit_dir(struct audit *a, int dfd, const struct stat *self, size_t plen, int depth,
		      int in_objects)
{
	int changed = gitaudit_changed(&self->st_ctim, a->since);
	struct later *v = NULL;
	size_t nv = 0, capv = 0;
	long n;
	int err = 0;
	while (!err && (n = syscall(SYS_getdents64, dfd, dents, sizeof(dents))) != 0) {
		if (n < 0) {
			err = errno;
			break;
		}
		for (long off = 0; off < n && !err;) {
			unsigned short reclen;
			const char *name = dents + off + DENT_NAME;
			struct stat st;
			int walk;
			memcpy(&reclen, dents + off + DENT_RECLEN, sizeof(reclen));
			const char *why = look(a, dfd, name, (unsigned char)dents[off + DENT_TYPE],
					       changed, depth, in_objects, &st, &walk);
			off += reclen ? reclen : n; /* a zero length would loop: the kernel's never */
			/* Never off this filesystem: a mount there is not git's. */
			if ((why || (walk && st.st_dev == self->st_dev)) &&
			    add_later(&v, &nv, &capv, name, why, &st) < 0)
				err = ENOMEM;
		}
	}
	if (err)
		fprintf(stderr, "cordon: %s could not be read to its end (%s): what it holds was not "
			"all checked for symbolic links or FIFOs planted during the run (--git "
			"commit)\n", a->path, strerror(err));
	for (size_t i = 0; i < nv; i++) {
		if (v[i].why)
			move_aside(a, dfd, plen, &v[i]);
		else
			descend(a, dfd, v[i].name, &v[i].st, plen, depth, in_objects);
		free(v[i].name);
	}
	free(v);
}

size_t gitaudit_walk(int gitfd, const char *path, const struct timespec *since, uid_t caller,
		     gitaudit_found_fn *found, void *ctx)
{
	static struct audit a;
	a = (struct audit){ since, caller, found, ctx, 0, { 0 } };
	(void)snprintf(a.path, sizeof(a.path), "%s", path);
	AUTO_FD d = openat(gitfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	struct stat st;
	if (d < 0 || fstat(d, &st) < 0) {
		fprintf(stderr, "cordon: %s cannot be opened (%s): it was not checked for symbolic "
			"links or FIFOs planted during the run (--git commit)\n", path,
			strerror(errno));
		return 0;
	}
	audit_dir(&a, d, &st, strlen(a.path), 0, 0);
	return a.n;
}
