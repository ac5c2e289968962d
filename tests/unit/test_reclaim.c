/* test_reclaim.c: the removal decisions (reclaim_decide, pure), with fake
 * facts. */
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

#include "hostpaths/reclaim.h"
#include "hostpaths/record.h"

#define BOOT "07f2a143-0e38-44de-947f-95d598ba40a9"
#define OTHER_BOOT "11111111-2222-3333-4444-555555555555"
#define PIDNS 4026531836ULL

/* --- reclaim_decide -------------------------------------------------------- */

/* A record of pid 100 (start 5000) with guardian 101 (5001) that created
 * /ws/.git as (7, 42). */
static struct record rec;
static struct run_facts facts;

static void decide_init(void)
{
	memset(&rec, 0, sizeof(rec));
	memcpy(rec.boot, BOOT, sizeof(BOOT));
	rec.pidns = PIDNS;
	rec.proc[REC_OWNER] = (struct rec_proc){ 100, 5000 };
	rec.proc[REC_GUARDIAN] = (struct rec_proc){ 101, 5001 };
	cr_assert_eq(record_add(&rec, REC_CREATED, 7, 42, "/ws/.git"), 0);
	memset(&facts, 0, sizeof(facts));
	facts.boot_now = BOOT;
	facts.pidns_now = PIDNS;
}

static void decide_fini(void)
{
	record_free(&rec);
}

/* The facts of a dead run and of cordon's own empty directory. */
static struct reclaim_input dead_and_ours(void)
{
	return (struct reclaim_input){
		.rec = &rec, .entry = &rec.v[0], .facts = &facts,
		.now = { .exists = 1, .name_ok = 1, .dev = 7, .ino = 42, .is_dir = 1, .is_empty = 1 },
	};
}

#define EXPECT(in, v, text) do { \
	struct reclaim_decision d_ = reclaim_decide(&(in)); \
	cr_assert_eq(d_.verdict, (v), "verdict %d (%s), wanted %d", d_.verdict, d_.why, (v)); \
	cr_assert(strstr(d_.why, (text)), "why: %s, wanted it to mention \"%s\"", d_.why, (text)); \
} while (0)

TestSuite(decide, .init = decide_init, .fini = decide_fini);

Test(decide, dead_owner_empty_dir_of_ours_is_removed)
{
	struct reclaim_input in = dead_and_ours();
	EXPECT(in, RECLAIM_REMOVE, "empty");
}

Test(decide, live_owner_is_kept)
{
	facts.start_now[REC_OWNER] = 5000;
	struct reclaim_input in = dead_and_ours();
	EXPECT(in, RECLAIM_KEEP, "still alive");
}

Test(decide, live_guardian_keeps_it_while_it_cleans_up)
{
	facts.start_now[REC_GUARDIAN] = 5001;
	struct reclaim_input in = dead_and_ours();
	EXPECT(in, RECLAIM_KEEP, "guardian");
}

Test(decide, live_sandbox_keeps_it)
{
	rec.proc[REC_SANDBOX] = (struct rec_proc){ 102, 5002 };
	facts.start_now[REC_SANDBOX] = 5002;
	struct reclaim_input in = dead_and_ours();
	EXPECT(in, RECLAIM_KEEP, "sandbox");
}

Test(decide, pid_reused_with_another_start_time_is_dead)
{
	facts.start_now[REC_OWNER] = 9999;
	facts.start_now[REC_GUARDIAN] = 1;
	const char *why;
	cr_assert_eq(reclaim_run_alive(&rec, &facts, &why), 0);
	cr_assert(strstr(why, "another process"), "%s", why);
	struct reclaim_input in = dead_and_ours();
	EXPECT(in, RECLAIM_REMOVE, "empty");
}

Test(decide, other_boot_is_dead_even_if_the_pids_match)
{
	facts.boot_now = OTHER_BOOT;
	facts.start_now[REC_OWNER] = 5000;
	facts.start_now[REC_GUARDIAN] = 5001;
	const char *why;
	cr_assert_eq(reclaim_run_alive(&rec, &facts, &why), 0);
	cr_assert(strstr(why, "earlier boot"), "%s", why);
	struct reclaim_input in = dead_and_ours();
	EXPECT(in, RECLAIM_REMOVE, "empty");
}

Test(decide, other_pid_namespace_of_this_boot_is_kept)
{
	facts.pidns_now = PIDNS + 1;
	struct reclaim_input in = dead_and_ours();
	EXPECT(in, RECLAIM_KEEP, "PID namespace");
}

Test(decide, inode_mismatch_is_kept)
{
	struct reclaim_input in = dead_and_ours();
	in.now.ino = 43;
	EXPECT(in, RECLAIM_KEEP, "replaced");
	in = dead_and_ours();
	in.now.dev = 8;
	EXPECT(in, RECLAIM_KEEP, "replaced");
}

Test(decide, non_empty_is_kept)
{
	struct reclaim_input in = dead_and_ours();
	in.now.is_empty = 0;
	EXPECT(in, RECLAIM_KEEP, "not empty");
}

Test(decide, missing_is_dropped)
{
	struct reclaim_input in = dead_and_ours();
	in.now = (struct path_fact){ 0 };
	EXPECT(in, RECLAIM_DROP, "gone");
}

Test(decide, regular_file_is_kept)
{
	/* A worktree's .git file, even if it had the recorded inode. */
	struct reclaim_input in = dead_and_ours();
	in.now.is_dir = 0;
	in.now.is_reg = 1;
	in.now.is_empty = 0;
	EXPECT(in, RECLAIM_KEEP, "file");
	in.now.ino = 99;
	EXPECT(in, RECLAIM_KEEP, "replaced");
}

Test(decide, other_types_are_kept)
{
	struct reclaim_input in = dead_and_ours();
	in.now.is_dir = 0;
	in.now.is_empty = 0;
	EXPECT(in, RECLAIM_KEEP, "not a directory");
}

Test(decide, referenced_by_another_live_run_is_kept)
{
	struct rec_entry live = { REC_REFERENCED, 7, 42, "/ws/.git" };
	struct reclaim_input in = dead_and_ours();
	in.live = &live;
	in.nlive = 1;
	EXPECT(in, RECLAIM_KEEP, "another live run");
	/* The same object under another name, or another object at the same
	 * name: both mean a live run may have it mounted. */
	struct rec_entry by_inode = { REC_CREATED, 7, 42, "/elsewhere/.git" };
	in.live = &by_inode;
	EXPECT(in, RECLAIM_KEEP, "another live run");
	struct rec_entry by_name = { REC_INTENT, 0, 0, "/ws/.git" };
	in.live = &by_name;
	EXPECT(in, RECLAIM_KEEP, "another live run");
	struct rec_entry unrelated = { REC_CREATED, 7, 43, "/ws/.codex" };
	in.live = &unrelated;
	EXPECT(in, RECLAIM_REMOVE, "empty");
}

Test(decide, released_by_its_own_run_skips_liveness)
{
	facts.start_now[REC_OWNER] = 5000;
	struct reclaim_input in = dead_and_ours();
	in.released = 1;
	EXPECT(in, RECLAIM_REMOVE, "empty");
	in.now.is_empty = 0;
	EXPECT(in, RECLAIM_KEEP, "not empty");
}

Test(decide, intent_without_inode)
{
	record_free(&rec);
	decide_init();
	record_remove(&rec, 0);
	cr_assert_eq(record_add(&rec, REC_INTENT, 0, 0, "/ws/.git"), 0);
	struct reclaim_input in = dead_and_ours();
	EXPECT(in, RECLAIM_KEEP, "no inode");
	in.now = (struct path_fact){ 0 };
	EXPECT(in, RECLAIM_DROP, "gone");
}

Test(decide, intent_born_after_it_was_written_is_removed)
{
	record_free(&rec);
	decide_init();
	record_remove(&rec, 0);
	cr_assert_eq(record_add(&rec, REC_INTENT, 0, 0, "/ws/.git"), 0);
	struct reclaim_input in = dead_and_ours();
	in.has_written = 1;
	in.written = (struct rec_time){ 1000, 500 };
	in.now.has_btime = 1;
	in.now.btime = (struct rec_time){ 1000, 500 };   /* same coarse tick */
	EXPECT(in, RECLAIM_REMOVE, "stopped while creating it");
	in.now.btime = (struct rec_time){ 1001, 0 };
	EXPECT(in, RECLAIM_REMOVE, "stopped while creating it");
	/* Born before the intent: somebody else's. */
	in.now.btime = (struct rec_time){ 1000, 499 };
	EXPECT(in, RECLAIM_KEEP, "existed before");
	/* Born after, but no longer empty, or not a directory. */
	in.now.btime = (struct rec_time){ 1001, 0 };
	in.now.is_empty = 0;
	EXPECT(in, RECLAIM_KEEP, "not empty");
	in.now.is_empty = 1;
	in.now.is_dir = 0;
	EXPECT(in, RECLAIM_KEEP, "not a directory");
	/* Without the record's write time there is nothing to compare. */
	in.now.is_dir = 1;
	in.has_written = 0;
	EXPECT(in, RECLAIM_KEEP, "no inode");
	/* An intent of a live run is never judged on its contents. */
	in.has_written = 1;
	facts.start_now[REC_OWNER] = 5000;
	EXPECT(in, RECLAIM_KEEP, "still alive");
}

Test(decide, records_are_untrusted)
{
	struct reclaim_input in = dead_and_ours();
	in.now.via_link = 1;
	EXPECT(in, RECLAIM_KEEP, "symbolic link");
	in.now.via_link = 0;
	in.now.name_ok = 0;
	EXPECT(in, RECLAIM_KEEP, "not a protected name");
	/* A path that is gone is only forgotten, whatever its name. */
	in.now = (struct path_fact){ 0 };
	EXPECT(in, RECLAIM_DROP, "gone");
}


