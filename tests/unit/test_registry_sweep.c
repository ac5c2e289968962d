/* test_registry_sweep.c: sweeps over records of dead and live runs, with
 * real empty directories in a scratch $XDG_STATE_HOME, and records that lie. */
#include "registry_scratch.h"
#include "hostpaths/registry_sweep.h"

#include <sys/file.h>

TestSuite(registry, .init = scratch_init, .fini = scratch_fini);

Test(registry, sweep_removes_a_dead_runs_empty_dirs_and_keeps_the_rest)
{
	char ws[PATH_MAX], git[PATH_MAX], codex[PATH_MAX], aws[PATH_MAX], name[REC_NAME_MAX];
	sub(ws, "ws");
	sub(git, "ws/.git");
	sub(codex, "ws/.codex");
	sub(aws, "ws/.aws");
	cr_assert_eq(mkdir(ws, 0755), 0);
	cr_assert_eq(mkdir(git, 0755), 0);
	cr_assert_eq(mkdir(codex, 0755), 0);
	cr_assert_eq(mkdir(aws, 0755), 0);

	struct registry reg = REGISTRY_INIT;
	struct cordon_err e = { 0 };
	cr_assert_eq(registry_open(&reg, &e), 0, "%s", e.msg);
	const char *const paths[] = { git, codex, aws, NULL };
	plant_record(&reg, dead_pid(), 1, paths, name);
	/* Planted objects: content in .codex, .aws replaced by another directory. */
	char f[PATH_MAX], aws2[PATH_MAX];
	sub(f, "ws/.codex/config.toml");
	sub(aws2, "ws/aws2");
	cr_assert_eq(close(open(f, O_CREAT | O_WRONLY, 0600)), 0);
	cr_assert_eq(mkdir(aws2, 0755), 0);
	cr_assert_eq(rmdir(aws), 0);
	cr_assert_eq(rename(aws2, aws), 0);

	struct seen s = { .n = 0 };
	cr_assert_eq(registry_lock(&reg, &e), 0);
	cr_assert_eq(registry_sweep(&reg, NULL, collect, &s, &e), 0, "%s", e.msg);
	registry_unlock(&reg);
	cr_assert(access(git, F_OK) != 0, "the dead run's empty .git is still there");
	cr_assert_eq(access(f, F_OK), 0, "a non-empty directory was touched");
	cr_assert_eq(access(aws, F_OK), 0, "a replaced directory was touched");
	cr_assert_not(exists_at(reg.dirfd, name), "the dead run's record is still there");
	char line[PATH_MAX + 16];
	snprintf(line, sizeof(line), "removed %s", git);
	cr_assert(seen_has(&s, line), "%s", line);
	snprintf(line, sizeof(line), "kept %s: not empty", codex);
	cr_assert(seen_has(&s, line), "%s", line);
	snprintf(line, sizeof(line), "kept %s: not cordon's", aws);
	cr_assert(seen_has(&s, line), "%s", line);
	cr_assert_eq(reg.nlive, 0);
	registry_close(&reg);
}

Test(registry, sweep_keeps_live_runs_and_releases_on_request)
{
	char ws[PATH_MAX], git[PATH_MAX], name[REC_NAME_MAX], dead[REC_NAME_MAX];
	sub(ws, "ws");
	sub(git, "ws/.git");
	cr_assert_eq(mkdir(ws, 0755), 0);
	cr_assert_eq(mkdir(git, 0755), 0);
	struct registry reg = REGISTRY_INIT;
	struct cordon_err e = { 0 };
	cr_assert_eq(registry_open(&reg, &e), 0, "%s", e.msg);
	uint64_t start;
	cr_assert_eq(procstat_start(getpid(), &start), 0);
	const char *const paths[] = { git, NULL };
	plant_record(&reg, getpid(), start, paths, name);
	/* A dead run that shared the path: the live one keeps it. */
	plant_record(&reg, dead_pid(), 7, paths, dead);

	struct seen s = { .n = 0 };
	cr_assert_eq(registry_lock(&reg, &e), 0);
	cr_assert_eq(registry_sweep(&reg, NULL, collect, &s, &e), 0, "%s", e.msg);
	cr_assert_eq(access(git, F_OK), 0, "a live run's path was removed");
	cr_assert(exists_at(reg.dirfd, name));
	cr_assert_not(exists_at(reg.dirfd, dead));
	cr_assert_eq(reg.nlive, 1);
	cr_assert_str_eq(reg.live[0].path, git);
	char line[PATH_MAX + 16];
	snprintf(line, sizeof(line), "kept %s: its run is still alive", git);
	cr_assert(seen_has(&s, line), "%s", line);
	snprintf(line, sizeof(line), "kept %s: in use by another live run", git);
	cr_assert(seen_has(&s, line), "%s", line);

	/* The live run (us) is done: releasing removes it. */
	s.n = 0;
	cr_assert_eq(registry_sweep(&reg, name, collect, &s, &e), 0, "%s", e.msg);
	registry_unlock(&reg);
	cr_assert(access(git, F_OK) != 0);
	cr_assert_not(exists_at(reg.dirfd, name));
	cr_assert_eq(reg.nlive, 0);
	registry_close(&reg);
}

Test(registry, bad_records_and_stale_temporaries)
{
	struct registry reg = REGISTRY_INIT;
	struct cordon_err e = { 0 };
	cr_assert_eq(registry_open(&reg, &e), 0, "%s", e.msg);
	cr_assert_eq(registry_facts(&reg, &e), 0);
	char name[REC_NAME_MAX], tmp[REC_NAME_MAX + 8], live_tmp[REC_NAME_MAX + 8];
	uint64_t start;
	cr_assert_eq(procstat_start(getpid(), &start), 0);
	cr_assert_eq(record_name(name, sizeof(name), reg.boot, dead_pid(), 1), 0);
	snprintf(tmp, sizeof(tmp), "tmp.%s", name);
	char live[REC_NAME_MAX];
	cr_assert_eq(record_name(live, sizeof(live), reg.boot, getpid(), start), 0);
	snprintf(live_tmp, sizeof(live_tmp), "tmp.%s", live);

	int fd = openat(reg.dirfd, name, O_CREAT | O_WRONLY, 0600);
	cr_assert_eq(write(fd, "garbage\n", 8), 8);
	close(fd);
	cr_assert_eq(close(openat(reg.dirfd, tmp, O_CREAT | O_WRONLY, 0600)), 0);
	cr_assert_eq(close(openat(reg.dirfd, live_tmp, O_CREAT | O_WRONLY, 0600)), 0);
	char fifo[REC_NAME_MAX];
	cr_assert_eq(record_name(fifo, sizeof(fifo), reg.boot, dead_pid(), 2), 0);
	cr_assert_eq(mkfifoat(reg.dirfd, fifo, 0600), 0);

	struct seen s = { .n = 0 };
	cr_assert_eq(registry_lock(&reg, &e), 0);
	cr_assert_eq(registry_sweep(&reg, NULL, collect, &s, &e), 0, "%s", e.msg);
	registry_unlock(&reg);
	cr_assert(exists_at(reg.dirfd, name), "an unreadable record was deleted");
	cr_assert(exists_at(reg.dirfd, fifo));
	cr_assert_not(exists_at(reg.dirfd, tmp), "a dead run's temporary record stayed");
	/* Records are written only under the lock: a temporary one the lock
	 * holder sees is a dead writer's, whoever's name it bears. */
	cr_assert_not(exists_at(reg.dirfd, live_tmp), "a stale temporary record stayed");
	char line[PATH_MAX + 64];
	snprintf(line, sizeof(line), "kept %s/%s: unreadable record", reg.path, name);
	cr_assert(seen_has(&s, line), "%s", line);
	snprintf(line, sizeof(line), "kept %s/%s: unreadable record", reg.path, fifo);
	cr_assert(seen_has(&s, line), "%s", line);
	registry_close(&reg);
}

Test(registry, release_uses_the_runs_own_copy_of_its_record)
{
	/* The file still says "intent" (the second write failed); the run
	 * knows the inode it created, and its release removes the directory. */
	char ws[PATH_MAX], git[PATH_MAX], name[REC_NAME_MAX];
	sub(ws, "ws");
	sub(git, "ws/.git");
	cr_assert_eq(mkdir(ws, 0755), 0);
	struct registry reg = REGISTRY_INIT;
	struct cordon_err e = { 0 };
	cr_assert_eq(registry_open(&reg, &e), 0, "%s", e.msg);
	cr_assert_eq(registry_facts(&reg, &e), 0);
	uint64_t start;
	cr_assert_eq(procstat_start(getpid(), &start), 0);
	struct record mine;
	memset(&mine, 0, sizeof(mine));
	memcpy(mine.boot, reg.boot, sizeof(mine.boot));
	mine.pidns = reg.pidns;
	mine.proc[REC_OWNER] = (struct rec_proc){ getpid(), start };
	cr_assert_eq(record_add(&mine, REC_INTENT, 0, 0, git), 0);
	cr_assert_eq(record_name(name, sizeof(name), reg.boot, getpid(), start), 0);
	cr_assert_eq(registry_lock(&reg, &e), 0);
	cr_assert_eq(registry_write(&reg, name, &mine, &e), 0, "%s", e.msg);
	cr_assert_eq(mkdir(git, 0755), 0);
	struct stat st;
	cr_assert_eq(stat(git, &st), 0);
	mine.v[0] = (struct rec_entry){ REC_CREATED, st.st_dev, st.st_ino, mine.v[0].path };

	cr_assert_eq(registry_release(&reg, name, &mine, &e), 0, "%s", e.msg);
	registry_unlock(&reg);
	cr_assert(access(git, F_OK) != 0, "the run's own directory is still there");
	cr_assert_not(exists_at(reg.dirfd, name));
	record_free(&mine);
	registry_close(&reg);
}


/* A record of a dead run with the given entries, written as is. */
static void plant_entries(struct registry *reg, const struct rec_entry *v, size_t n, char *name)
{
	struct record r;
	struct cordon_err e = { 0 };
	memset(&r, 0, sizeof(r));
	cr_assert_eq(registry_facts(reg, &e), 0, "%s", e.msg);
	memcpy(r.boot, reg->boot, sizeof(r.boot));
	r.pidns = reg->pidns;
	pid_t pid = dead_pid();
	r.proc[REC_OWNER] = (struct rec_proc){ pid, 1 };
	for (size_t i = 0; i < n; i++)
		cr_assert_eq(record_add(&r, v[i].kind, v[i].dev, v[i].ino, v[i].path), 0);
	cr_assert_eq(record_name(name, REC_NAME_MAX, r.boot, pid, 1), 0);
	cr_assert_eq(registry_lock(reg, &e), 0);
	cr_assert_eq(registry_write(reg, name, &r, &e), 0, "%s", e.msg);
	registry_unlock(reg);
	record_free(&r);
}

static struct rec_entry created(const char *path)
{
	struct stat st;
	cr_assert_eq(lstat(path, &st), 0, "%s", path);
	return (struct rec_entry){ REC_CREATED, st.st_dev, st.st_ino, (char *)path };
}

Test(registry, forged_records_remove_nothing_but_protected_empty_dirs_of_theirs)
{
	char ws[PATH_MAX], other[PATH_MAX], link[PATH_MAX], plain[PATH_MAX], git[PATH_MAX],
	     aws[PATH_MAX], via[PATH_MAX], dots[PATH_MAX], sub1[PATH_MAX], name[REC_NAME_MAX];
	sub(ws, "ws");
	sub(other, "other");
	sub(link, "ws/link");
	sub(plain, "ws/plain");   /* empty, but not a protected name */
	sub(git, "other/.git");   /* empty and protected, reached through ws/link */
	sub(aws, "ws/.aws");      /* empty and protected, with another inode */
	sub(via, "ws/link/.git");
	sub(sub1, "ws/sub");
	sub(dots, "ws/sub/../.aws");
	cr_assert_eq(mkdir(ws, 0755), 0);
	cr_assert_eq(mkdir(other, 0755), 0);
	cr_assert_eq(mkdir(plain, 0755), 0);
	cr_assert_eq(mkdir(git, 0755), 0);
	cr_assert_eq(mkdir(aws, 0755), 0);
	cr_assert_eq(mkdir(sub1, 0755), 0);
	cr_assert_eq(symlink(other, link), 0);

	struct registry reg = REGISTRY_INIT;
	struct cordon_err e = { 0 };
	cr_assert_eq(registry_open(&reg, &e), 0, "%s", e.msg);
	struct rec_entry wrong = created(aws);
	wrong.ino += 1000;
	struct rec_entry dotted = created(aws);
	dotted.path = dots;
	struct rec_entry v[] = { created(plain), created(via), wrong, dotted };
	plant_entries(&reg, v, 4, name);

	struct seen s = { .n = 0 };
	cr_assert_eq(registry_lock(&reg, &e), 0);
	cr_assert_eq(registry_sweep(&reg, NULL, collect, &s, &e), 0, "%s", e.msg);
	registry_unlock(&reg);
	cr_assert_eq(access(plain, F_OK), 0, "a name that is not protected was removed");
	cr_assert_eq(access(git, F_OK), 0, "a path through a symbolic link was removed");
	cr_assert_eq(access(aws, F_OK), 0, "a directory with another inode was removed");
	char line[PATH_MAX + 64];
	snprintf(line, sizeof(line), "kept %s: not a protected name", plain);
	cr_assert(seen_has(&s, line), "%s", line);
	snprintf(line, sizeof(line), "kept %s: reached through a symbolic link", via);
	cr_assert(seen_has(&s, line), "%s", line);
	snprintf(line, sizeof(line), "kept %s: not cordon's", aws);
	cr_assert(seen_has(&s, line), "%s", line);
	snprintf(line, sizeof(line), "kept %s: not a path cordon records", dots);
	cr_assert(seen_has(&s, line), "%s", line);

	/* Control: the same sweep removes a protected empty directory that
	 * a record names with its own (dev, ino), reached without a link. */
	struct rec_entry mine[] = { created(aws) };
	plant_entries(&reg, mine, 1, name);
	cr_assert_eq(registry_lock(&reg, &e), 0);
	cr_assert_eq(registry_sweep(&reg, NULL, NULL, NULL, &e), 0, "%s", e.msg);
	registry_unlock(&reg);
	cr_assert(access(aws, F_OK) != 0, "the control directory is still there");
	registry_close(&reg);
}

Test(registry, an_intent_is_reclaimed_when_its_directory_was_born_after_it)
{
	char ws[PATH_MAX], aws[PATH_MAX], codex[PATH_MAX], name[REC_NAME_MAX];
	sub(ws, "ws");
	sub(aws, "ws/.aws");
	sub(codex, "ws/.codex");
	cr_assert_eq(mkdir(ws, 0755), 0);
	cr_assert_eq(mkdir(codex, 0755), 0); /* before the intent: not the run's */
	struct registry reg = REGISTRY_INIT;
	struct cordon_err e = { 0 };
	cr_assert_eq(registry_open(&reg, &e), 0, "%s", e.msg);
	/* The coarse clock ticks every few ms: let the intent be later. */
	usleep(20000);
	struct rec_entry v[] = { { REC_INTENT, 0, 0, aws }, { REC_INTENT, 0, 0, codex } };
	plant_entries(&reg, v, 2, name);
	cr_assert_eq(mkdir(aws, 0755), 0);  /* the kill came after this */

	struct statx stx;
	if (statx(AT_FDCWD, aws, 0, STATX_BTIME, &stx) != 0 || !(stx.stx_mask & STATX_BTIME))
		cr_skip_test("this filesystem keeps no birth time");
	struct seen s = { .n = 0 };
	cr_assert_eq(registry_lock(&reg, &e), 0);
	cr_assert_eq(registry_sweep(&reg, NULL, collect, &s, &e), 0, "%s", e.msg);
	registry_unlock(&reg);
	cr_assert(access(aws, F_OK) != 0, "the directory born after the intent is still there");
	cr_assert_eq(access(codex, F_OK), 0, "a directory older than the intent was removed");
	char line[PATH_MAX + 64];
	snprintf(line, sizeof(line), "kept %s: it existed before", codex);
	cr_assert(seen_has(&s, line), "%s", line);
	cr_assert_not(exists_at(reg.dirfd, name), "the record stayed after final verdicts");
	registry_close(&reg);
}

/* Another sandbox binds (holds a shared flock on) a directory of a released
 * record: the sweep says so (-EBUSY) and keeps the entry, and a second
 * sweep that finds the same leaves the file as it was: a guardian sweeps
 * again after each wait, and used to rewrite the record on every round. */
Test(registry, a_held_directory_keeps_its_record_unchanged)
{
	char ws[PATH_MAX], git[PATH_MAX], aws[PATH_MAX], name[REC_NAME_MAX];
	sub(ws, "ws");
	sub(git, "ws/.git");
	sub(aws, "ws/.aws");
	cr_assert_eq(mkdir(ws, 0755), 0);
	cr_assert_eq(mkdir(git, 0755), 0);
	cr_assert_eq(mkdir(aws, 0755), 0);
	struct registry reg = REGISTRY_INIT;
	struct cordon_err e = { 0 };
	cr_assert_eq(registry_open(&reg, &e), 0, "%s", e.msg);
	struct rec_entry v[] = { created(git), created(aws) };
	plant_entries(&reg, v, 2, name);
	int held = open(git, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	cr_assert_geq(held, 0);
	cr_assert_eq(flock(held, LOCK_SH), 0);

	cr_assert_eq(registry_lock(&reg, &e), 0);
	cr_assert_eq(registry_sweep(&reg, name, NULL, NULL, &e), -EBUSY);
	registry_unlock(&reg);
	cr_assert(access(aws, F_OK) != 0, "the free directory was not removed");
	cr_assert_eq(access(git, F_OK), 0, "the held directory was removed");
	struct stat first, again;
	cr_assert_eq(fstatat(reg.dirfd, name, &first, 0), 0, "the record of a held directory went");
	cr_assert_eq(registry_lock(&reg, &e), 0);
	cr_assert_eq(registry_sweep(&reg, name, NULL, NULL, &e), -EBUSY);
	registry_unlock(&reg);
	cr_assert_eq(fstatat(reg.dirfd, name, &again, 0), 0);
	cr_assert(first.st_ino == again.st_ino && first.st_mtim.tv_sec == again.st_mtim.tv_sec &&
		  first.st_mtim.tv_nsec == again.st_mtim.tv_nsec,
		  "a sweep that changed nothing rewrote the record");

	/* The wait sees the lock, gives up after its limit, and sees it go. */
	cr_assert_eq(registry_wait_unbound(&reg, name, 100), -ETIMEDOUT);
	close(held);
	cr_assert_eq(registry_wait_unbound(&reg, name, 100), 0, "nothing holds it any more");
	cr_assert_eq(registry_lock(&reg, &e), 0);
	cr_assert_eq(registry_sweep(&reg, name, NULL, NULL, &e), 0, "%s", e.msg);
	registry_unlock(&reg);
	cr_assert(access(git, F_OK) != 0);
	cr_assert_not(exists_at(reg.dirfd, name));
	registry_close(&reg);
}

/* A run killed between its two writes leaves an intent for a directory it
 * made; a sandbox started meanwhile binds it as a directory it found, and
 * locks it.  The wait sees that lock too (it skipped intents, and the
 * guardian swept without a pause). */
Test(registry, the_wait_sees_a_lock_on_an_intents_directory)
{
	char ws[PATH_MAX], git[PATH_MAX], name[REC_NAME_MAX];
	sub(ws, "ws");
	sub(git, "ws/.git");
	cr_assert_eq(mkdir(ws, 0755), 0);
	struct registry reg = REGISTRY_INIT;
	struct cordon_err e = { 0 };
	cr_assert_eq(registry_open(&reg, &e), 0, "%s", e.msg);
	struct rec_entry v[] = { { REC_INTENT, 0, 0, git } };
	plant_entries(&reg, v, 1, name);
	cr_assert_eq(mkdir(git, 0755), 0);
	int held = open(git, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	cr_assert_geq(held, 0);
	cr_assert_eq(flock(held, LOCK_SH), 0);
	cr_assert_eq(registry_wait_unbound(&reg, name, 100), -ETIMEDOUT);
	close(held);
	cr_assert_eq(registry_wait_unbound(&reg, name, 100), 0);
	registry_close(&reg);
}

/* A run killed while making its directories: intents for .git (made) and
 * .aws (never made).  A sandbox started meanwhile binds .git and locks it.
 * The first sweep drops .aws and keeps .git: the rewritten record must keep
 * the time its intents were written, or the second sweep (the lock gone)
 * finds .git older than the record, keeps it as not the run's and deletes
 * the record: a placeholder left to no one (t_killstart, once, loaded). */
Test(registry, a_rewrite_keeps_the_time_of_the_intents)
{
	char ws[PATH_MAX], git[PATH_MAX], aws[PATH_MAX], name[REC_NAME_MAX];
	sub(ws, "ws");
	sub(git, "ws/.git");
	sub(aws, "ws/.aws");
	cr_assert_eq(mkdir(ws, 0755), 0);
	struct registry reg = REGISTRY_INIT;
	struct cordon_err e = { 0 };
	cr_assert_eq(registry_open(&reg, &e), 0, "%s", e.msg);
	struct rec_entry v[] = { { REC_INTENT, 0, 0, git }, { REC_INTENT, 0, 0, aws } };
	plant_entries(&reg, v, 2, name);
	cr_assert_eq(mkdir(git, 0755), 0);
	struct statx stx;
	if (statx(AT_FDCWD, git, 0, STATX_BTIME, &stx) != 0 || !(stx.stx_mask & STATX_BTIME))
		cr_skip_test("this filesystem keeps no birth time");
	struct stat first, again;
	cr_assert_eq(fstatat(reg.dirfd, name, &first, 0), 0);
	int held = open(git, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	cr_assert_geq(held, 0);
	cr_assert_eq(flock(held, LOCK_SH), 0);
	/* The coarse clock ticks every few ms: a rewrite now is later. */
	usleep(20000);

	cr_assert_eq(registry_lock(&reg, &e), 0);
	cr_assert_eq(registry_sweep(&reg, name, NULL, NULL, &e), -EBUSY);
	registry_unlock(&reg);
	cr_assert_eq(fstatat(reg.dirfd, name, &again, 0), 0, "the record of a held directory went");
	cr_assert_neq(first.st_ino, again.st_ino, "the record was not rewritten without .aws");
	cr_assert(first.st_mtim.tv_sec == again.st_mtim.tv_sec &&
		  first.st_mtim.tv_nsec == again.st_mtim.tv_nsec,
		  "the rewrite moved the time of the intents");

	close(held);
	struct seen s = { .n = 0 };
	cr_assert_eq(registry_lock(&reg, &e), 0);
	cr_assert_eq(registry_sweep(&reg, name, collect, &s, &e), 0, "%s", e.msg);
	registry_unlock(&reg);
	cr_assert(access(git, F_OK) != 0, "the run's directory was left: %s", s.n ? s.lines[0] : "");
	cr_assert_not(exists_at(reg.dirfd, name));
	registry_close(&reg);
}
