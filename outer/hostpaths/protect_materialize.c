/* protect_materialize.c: see protect.h.  Belongs here: carrying out the
 * decision on disk for --protect-missing mount (the record's intent first,
 * then each placeholder made and opened, or an existing one taken over). */
#include "hostpaths/protect.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "hostpaths/registry_io.h"
#include "path.h"
#include "procstat.h"
#include "sys.h"

/* The record names cordon, the guardian and bwrap from its first write. */
static void record_sandbox(struct protect_run *p, pid_t bwrap)
{
	uint64_t bwrap_start;
	/* Best effort: without it a sweep still sees cordon or the guardian
	 * alive, and bwrap dies with cordon. */
	if (bwrap > 0 && procstat_start(bwrap, &bwrap_start) == 0)
		p->rec.proc[REC_SANDBOX] = (struct rec_proc){ bwrap, bwrap_start };
}

/* The intent entry of path in this run's record, or SIZE_MAX. */
static size_t intent_of(const struct record *rec, const char *path)
{
	for (size_t i = 0; i < rec->n; i++)
		if (rec->v[i].kind == REC_INTENT && strcmp(rec->v[i].path, path) == 0)
			return i;
	return SIZE_MAX;
}

/* Created meanwhile by someone else: bind what is there (cordon-inner checks
 * that it is what was opened here), unless it is a symlink. */
static int take_existing(struct protect_run *p, int rootfd, const char *name, const char *path,
			 struct cordon_err *e)
{
	struct stat st;
	struct rpath o;
	if (fstatat(rootfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return err_sys(e, errno, "cannot inspect protected %s", path);
	if (S_ISLNK(st.st_mode))
		return err_set(e, EPERM,
			       "protected %s is a symbolic link, which cordon cannot keep read-only; "
			       "replace it with what it points to, or pass --unprotect %s", path,
			       path_base(path));
	int rc = resolve_open_at(rootfd, name, path, st.st_dev, st.st_ino, &o);
	if (rc == -EAGAIN)
		return err_set(e, EAGAIN, "protected %s changed while cordon looked at it; run again",
			       path);
	if (rc < 0)
		return err_sys(e, -rc, "cannot open protected %s", path);
	return protect_push_check(p, &o) < 0 ? err_set(e, ENOMEM, "out of memory") : 0;
}

/* Create one directory whose intent is recorded, and open it. */
static int create_one(const struct resolved *r, struct protect_run *p,
		      const struct protect_action *a, struct cordon_err *e)
{
	int rootfd = r->roots[p->names[a->src].root].fd;
	const char *name = path_base(a->path);
	struct rpath made;
	if (mkdirat(rootfd, name, 0755) < 0) {
		if (errno == EEXIST)
			return take_existing(p, rootfd, name, a->path, e);
		return err_sys(e, errno, "cannot create %s, the empty directory cordon "
			       "mounts read-only so that the sandbox cannot create the "
			       "protected name (is the writable root writable for you?)", a->path);
	}
	int r2 = resolve_open_created(rootfd, name, a->path, &made);
	if (r2 < 0) {
		/* rmdir removes nothing but an empty directory. */
		(void)unlinkat(rootfd, name, AT_REMOVEDIR);
		return err_sys(e, -r2, "cannot open %s, which cordon just created", a->path);
	}
	if (!made.is_dir) {
		rpath_free(&made);
		return err_set(e, EAGAIN, "%s changed while cordon created it; run again", a->path);
	}
	size_t k = intent_of(&p->rec, a->path);
	if (k != SIZE_MAX)
		p->rec.v[k] = (struct rec_entry){ REC_CREATED, made.dev, made.ino, p->rec.v[k].path };
	return protect_push_check(p, &made) < 0 ? err_set(e, ENOMEM, "out of memory") : 0;
}

/* Create the directories whose intent is recorded.  The plan binds each by
 * path already, so one that cannot be made fails the run (bwrap is then
 * killed before it mounts anything).  Entries left as intents (a name
 * someone else created meanwhile) leave the record. */
static int create_all(const struct resolved *r, struct protect_run *p, struct cordon_err *e)
{
	int rc = 0;
	for (size_t i = 0; i < p->plan.n && rc == 0; i++)
		if (p->plan.v[i].act == PROTECT_CREATE)
			rc = create_one(r, p, &p->plan.v[i], e);
	for (size_t j = p->rec.n; j-- > 0;)
		if (p->rec.v[j].kind == REC_INTENT)
			record_remove(&p->rec, j);
	return rc;
}

int protect_materialize(const struct resolved *r, struct protect_run *p, struct cordon_err *e)
{
	int rc = 0;
	/* Nothing to own or share: no record. */
	if (p->reg.locked && p->name[0]) {
		/* Intent first, on disk, then the directories: a crash in
		 * between leaves a record that names every path that may exist. */
		record_sandbox(p, p->bwrap);
		if ((rc = registry_write(&p->reg, p->name, &p->rec, e)) == 0) {
			rc = create_all(r, p, e);
			int w = registry_write(&p->reg, p->name, &p->rec, rc < 0 ? NULL : e);
			if (rc == 0)
				rc = w;
		}
	}
	registry_unlock(&p->reg);
	return rc;
}
