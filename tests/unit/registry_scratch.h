/* registry_scratch.h: a scratch $XDG_STATE_HOME for the registry's test
 * files, and records planted in it (static: each test binary its own copy;
 * no test_*.c name, so it is not a test). */
#ifndef CORDON_REGISTRY_SCRATCH_H
#define CORDON_REGISTRY_SCRATCH_H

#include <criterion/criterion.h>

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "hostpaths/record.h"
#include "hostpaths/registry.h"
#include "hostpaths/registry_io.h"
#include "procstat.h"

#define BOOT "07f2a143-0e38-44de-947f-95d598ba40a9"
#define OTHER_BOOT "11111111-2222-3333-4444-555555555555"
#define PIDNS 4026531836ULL

static char scratch[PATH_MAX];

static inline int rm_entry(const char *p, const struct stat *st, int flag, struct FTW *f)
{
	(void)st;
	(void)flag;
	(void)f;
	return remove(p);
}

static inline void scratch_init(void)
{
	strcpy(scratch, "/tmp/cordon-unit-registry.XXXXXX");
	cr_assert_not_null(mkdtemp(scratch));
	char state[PATH_MAX];
	snprintf(state, sizeof(state), "%s/state", scratch);
	setenv("XDG_STATE_HOME", state, 1);
}

static inline void scratch_fini(void)
{
	(void)nftw(scratch, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

static inline void sub(char *out, const char *rel)
{
	snprintf(out, PATH_MAX, "%s/%s", scratch, rel);
}

/* Sweeps over real directories. */
struct seen {
	char lines[16][PATH_MAX + 200];
	int n;
};

static inline void collect(void *ctx, const char *path, enum reclaim_verdict v, const char *why)
{
	struct seen *s = ctx;
	if (s->n < 16)
		snprintf(s->lines[s->n++], sizeof(s->lines[0]), "%s %s: %s",
			 v == RECLAIM_REMOVE ? "removed" : "kept", path, why);
}

static inline int seen_has(const struct seen *s, const char *prefix)
{
	for (int i = 0; i < s->n; i++)
		if (strncmp(s->lines[i], prefix, strlen(prefix)) == 0)
			return 1;
	return 0;
}

static inline pid_t dead_pid(void)
{
	pid_t c = fork();
	if (c == 0)
		_exit(0);
	cr_assert_eq(waitpid(c, NULL, 0), c);
	return c;
}

/* Write a record for (pid, start) listing `paths` as created with their
 * current (dev, ino). */
static inline void plant_record(struct registry *reg, pid_t pid, uint64_t start,
			 const char *const *paths, char *name_out)
{
	struct record r;
	struct cordon_err e = { 0 };
	memset(&r, 0, sizeof(r));
	cr_assert_eq(registry_facts(reg, &e), 0, "%s", e.msg);
	memcpy(r.boot, reg->boot, sizeof(r.boot));
	r.pidns = reg->pidns;
	r.proc[REC_OWNER] = (struct rec_proc){ pid, start };
	for (; *paths; paths++) {
		struct stat st;
		cr_assert_eq(lstat(*paths, &st), 0, "%s", *paths);
		cr_assert_eq(record_add(&r, REC_CREATED, st.st_dev, st.st_ino, *paths), 0);
	}
	cr_assert_eq(record_name(name_out, REC_NAME_MAX, r.boot, pid, start), 0);
	int was_locked = reg->locked;
	cr_assert_eq(registry_lock(reg, &e), 0);
	cr_assert_eq(registry_write(reg, name_out, &r, &e), 0, "%s", e.msg);
	if (!was_locked)
		registry_unlock(reg);
	record_free(&r);
}

static inline int exists_at(int dirfd, const char *name)
{
	return faccessat(dirfd, name, F_OK, AT_SYMLINK_NOFOLLOW) == 0;
}

#endif
