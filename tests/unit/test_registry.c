/* test_registry.c: the removal decisions (pure, with fake facts), the record
 * text format and its parser, and the registry directory itself (in a
 * scratch $XDG_STATE_HOME): creation and refusals, and sweeps over records
 * of dead and live runs with real empty directories. */
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
#include "hostpaths/registry.h"

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
		.now = { .exists = 1, .dev = 7, .ino = 42, .is_dir = 1, .is_empty = 1 },
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

/* --- record text -------------------------------------------------------------- */

static struct record sample(void)
{
	struct record r;
	memset(&r, 0, sizeof(r));
	memcpy(r.boot, BOOT, sizeof(BOOT));
	r.pidns = PIDNS;
	r.proc[REC_OWNER] = (struct rec_proc){ 4242, 1234567 };
	r.proc[REC_GUARDIAN] = (struct rec_proc){ 4243, 1234570 };
	r.proc[REC_SANDBOX] = (struct rec_proc){ 4250, 18446744073709551615ULL };
	cr_assert_eq(record_add(&r, REC_INTENT, 0, 0, "/home/me/app/.aws"), 0);
	cr_assert_eq(record_add(&r, REC_CREATED, 2049, 1311, "/home/me/app/.git"), 0);
	cr_assert_eq(record_add(&r, REC_REFERENCED, 18446744073709551615ULL, 1, "/a b/100%/\n\t\x7f\xc3\xa9/.codex"), 0);
	return r;
}

static char *format(const struct record *r, size_t *len)
{
	char *text = NULL;
	cr_assert_eq(record_format(r, &text, len), 0);
	return text;
}

static int parse_str(const char *text, struct record *out)
{
	char why[128];
	return record_parse(text, strlen(text), out, why, sizeof(why));
}

Test(record, round_trip)
{
	struct record r = sample(), back;
	size_t len;
	char *text = format(&r, &len);
	char why[128];
	cr_assert_eq(record_parse(text, len, &back, why, sizeof(why)), 0, "%s\n%s", why, text);
	cr_assert_str_eq(back.boot, r.boot);
	cr_assert_eq(back.pidns, r.pidns);
	for (int i = 0; i < REC_NPROCS; i++) {
		cr_assert_eq(back.proc[i].pid, r.proc[i].pid);
		cr_assert_eq(back.proc[i].start, r.proc[i].start);
	}
	cr_assert_eq(back.n, r.n);
	for (size_t i = 0; i < r.n; i++) {
		cr_assert_eq(back.v[i].kind, r.v[i].kind);
		cr_assert_eq(back.v[i].dev, r.v[i].dev);
		cr_assert_eq(back.v[i].ino, r.v[i].ino);
		cr_assert_str_eq(back.v[i].path, r.v[i].path);
	}
	/* Control bytes and '%' are escaped; the text stays one item a line. */
	cr_assert(strstr(text, "/a b/100%25/%0A%09%7F\xc3\xa9/.codex\n"), "%s", text);
	size_t lines = 0;
	for (size_t i = 0; i < len; i++)
		lines += text[i] == '\n';
	cr_assert_eq(lines, 10);
	free(text);
	record_free(&back);
	record_free(&r);
}

Test(record, optional_lines_may_be_absent)
{
	struct record r;
	cr_assert_eq(parse_str("cordon-record 1\nboot " BOOT "\npidns 1\nowner 1 0\nend\n", &r), 0);
	cr_assert_eq(r.proc[REC_OWNER].pid, 1);
	cr_assert_eq(r.proc[REC_GUARDIAN].pid, 0);
	cr_assert_eq(r.n, 0);
	record_free(&r);
	cr_assert_eq(parse_str("cordon-record 1\nboot " BOOT "\npidns 1\nowner 1 0\n"
			       "sandbox 9 9\ncreated 1 2 /x\nend\n", &r), 0);
	cr_assert_eq(r.proc[REC_SANDBOX].pid, 9);
	cr_assert_eq(r.n, 1);
	record_free(&r);
}

Test(record, every_truncation_is_refused)
{
	struct record r = sample(), out;
	size_t len;
	char *text = format(&r, &len);
	char why[128];
	for (size_t cut = 0; cut < len; cut++) {
		int rc = record_parse(text, cut, &out, why, sizeof(why));
		cr_assert_eq(rc, -EBADMSG, "a record cut at %zu of %zu was accepted", cut, len);
		cr_assert_eq(out.n, 0);
		cr_assert_null(out.v);
	}
	free(text);
	record_free(&r);
}

Test(record, garbage_is_refused)
{
	static const char *const bad[] = {
		"",
		"\n",
		"cordon-record 2\nboot " BOOT "\npidns 1\nowner 1 0\nend\n",
		"cordon-record 1\nboot " BOOT "\npidns 1\nend\n",                       /* no owner */
		"cordon-record 1\npidns 1\nboot " BOOT "\nowner 1 0\nend\n",            /* order */
		"cordon-record 1\nboot 07F2A143-0E38-44DE-947F-95D598BA40A9\npidns 1\nowner 1 0\nend\n",
		"cordon-record 1\nboot " BOOT "x\npidns 1\nowner 1 0\nend\n",
		"cordon-record 1\nboot  " BOOT "\npidns 1\nowner 1 0\nend\n",
		"cordon-record 1\nboot " BOOT "\npidns -1\nowner 1 0\nend\n",
		"cordon-record 1\nboot " BOOT "\npidns 1\nowner 0 0\nend\n",            /* pid 0 */
		"cordon-record 1\nboot " BOOT "\npidns 1\nowner 4194305 0\nend\n",      /* > PID_MAX_LIMIT */
		"cordon-record 1\nboot " BOOT "\npidns 1\nowner 01 0\nend\n",           /* leading zero */
		"cordon-record 1\nboot " BOOT "\npidns 1\nowner +1 0\nend\n",
		"cordon-record 1\nboot " BOOT "\npidns 1\nowner 1 18446744073709551616\nend\n", /* 2^64 */
		"cordon-record 1\nboot " BOOT "\npidns 1\nowner 1 0 \nend\n",
		"cordon-record 1\nboot " BOOT "\npidns 1\nowner 1 0\nowner 1 0\nend\n",
		"cordon-record 1\nboot " BOOT "\npidns 1\nowner 1 0\nsandbox 2 0\nguardian 3 0\nend\n",
		"cordon-record 1\nboot " BOOT "\npidns 1\nowner 1 0\ncreated 1 2 /x\nsandbox 2 0\nend\n",
		"cordon-record 1\nboot " BOOT "\npidns 1\nowner 1 0\nremoved 1 2 /x\nend\n",
		"cordon-record 1\nboot " BOOT "\npidns 1\nowner 1 0\ncreated 1 2 x\nend\n",     /* relative */
		"cordon-record 1\nboot " BOOT "\npidns 1\nowner 1 0\ncreated 1 2 \nend\n",
		"cordon-record 1\nboot " BOOT "\npidns 1\nowner 1 0\ncreated 1 2\nend\n",
		"cordon-record 1\nboot " BOOT "\npidns 1\nowner 1 0\ncreated 0 0 /x\nend\n",   /* no inode */
		"cordon-record 1\nboot " BOOT "\npidns 1\nowner 1 0\nintent 1 2 /x\nend\n",    /* intent with one */
		"cordon-record 1\nboot " BOOT "\npidns 1\nowner 1 0\ncreated 1 2 /x\ty\nend\n",/* raw tab */
		"cordon-record 1\nboot " BOOT "\npidns 1\nowner 1 0\ncreated 1 2 /x\ry\nend\n",
		"cordon-record 1\nboot " BOOT "\npidns 1\nowner 1 0\ncreated 1 2 /x%\nend\n",
		"cordon-record 1\nboot " BOOT "\npidns 1\nowner 1 0\ncreated 1 2 /x%4\nend\n",
		"cordon-record 1\nboot " BOOT "\npidns 1\nowner 1 0\ncreated 1 2 /x%zz\nend\n",
		"cordon-record 1\nboot " BOOT "\npidns 1\nowner 1 0\ncreated 1 2 /x%00y\nend\n",
		"cordon-record 1\nboot " BOOT "\npidns 1\nowner 1 0\nend\nend\n",                /* after end */
		"cordon-record 1\nboot " BOOT "\npidns 1\nowner 1 0\nend\nx",
		"cordon-record 1\nboot " BOOT "\npidns 1\nowner 1 0\nend",                        /* no newline */
		"cordon-record 1\r\nboot " BOOT "\npidns 1\nowner 1 0\nend\n",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct record r;
		char why[128] = "";
		int rc = record_parse(bad[i], strlen(bad[i]), &r, why, sizeof(why));
		cr_assert_eq(rc, -EBADMSG, "accepted case %zu:\n%s", i, bad[i]);
		cr_assert_eq(r.n, 0);
		cr_assert_neq(strcmp(why, "ok"), 0, "case %zu gave no reason", i);
	}
	/* A NUL byte inside a line. */
	static const char nul[] = "cordon-record 1\nboot " BOOT "\npidns 1\nowner 1 0\ncreated 1 2 /x\0y\nend\n";
	struct record r;
	char why[128];
	cr_assert_eq(record_parse(nul, sizeof(nul) - 1, &r, why, sizeof(why)), -EBADMSG);
}

Test(record, limits)
{
	struct record r = sample();
	while (r.n < REC_MAX_ENTRIES)
		cr_assert_eq(record_add(&r, REC_CREATED, 1, 2, "/p"), 0);
	cr_assert_eq(record_add(&r, REC_CREATED, 1, 2, "/p"), -E2BIG);
	cr_assert_eq(record_add(&r, REC_CREATED, 1, 2, "relative"), -EINVAL);

	size_t len;
	char *text = format(&r, &len);
	struct record back;
	char why[128];
	cr_assert_eq(record_parse(text, len, &back, why, sizeof(why)), 0, "%s", why);
	cr_assert_eq(back.n, REC_MAX_ENTRIES);
	record_free(&back);
	free(text);

	/* One more line than allowed. */
	r.n--;
	free(r.v[r.n].path);
	text = format(&r, &len);
	char *more = malloc(len + 32);
	memcpy(more, text, len - 4);
	strcpy(more + len - 4, "created 1 2 /p\ncreated 1 2 /q\nend\n");
	cr_assert_eq(parse_str(more, &back), -EBADMSG);
	free(more);
	free(text);
	record_free(&r);

	char *huge = malloc(REC_MAX_BYTES + 2);
	memset(huge, 'x', REC_MAX_BYTES + 1);
	huge[REC_MAX_BYTES + 1] = '\0';
	cr_assert_eq(record_parse(huge, REC_MAX_BYTES + 1, &back, why, sizeof(why)), -EBADMSG);
	free(huge);
}

Test(record, names)
{
	char name[REC_NAME_MAX], boot[REC_BOOT_LEN + 1];
	pid_t pid;
	uint64_t start;
	cr_assert_eq(record_name(name, sizeof(name), BOOT, 4194304, 18446744073709551615ULL), 0);
	cr_assert_str_eq(name, "run-" BOOT "-4194304-18446744073709551615");
	cr_assert_eq(record_name_parse(name, boot, &pid, &start), 0);
	cr_assert_str_eq(boot, BOOT);
	cr_assert_eq(pid, 4194304);
	cr_assert_eq(start, 18446744073709551615ULL);
	static const char *const bad[] = {
		"run-" BOOT "-1", "run-" BOOT "-0-1", "run-" BOOT "-1-", "run-" BOOT "-1-2x",
		"run-" BOOT "1-2", "tmp-" BOOT "-1-2", "run-" OTHER_BOOT "x-1-2", "lock", "",
		"run-" BOOT "--1-2",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		cr_assert_eq(record_name_parse(bad[i], boot, &pid, &start), -EINVAL, "%s", bad[i]);
	cr_assert_eq(record_name(name, sizeof(name), "not-a-boot-id", 1, 1), -EINVAL);
	cr_assert_eq(record_name(name, sizeof(name), BOOT, 0, 1), -EINVAL);
}

/* --- the registry directory ------------------------------------------------- */

static char scratch[PATH_MAX];

static int rm_entry(const char *p, const struct stat *st, int flag, struct FTW *f)
{
	(void)st;
	(void)flag;
	(void)f;
	return remove(p);
}

static void scratch_init(void)
{
	strcpy(scratch, "/tmp/cordon-unit-registry.XXXXXX");
	cr_assert_not_null(mkdtemp(scratch));
	char state[PATH_MAX];
	snprintf(state, sizeof(state), "%s/state", scratch);
	setenv("XDG_STATE_HOME", state, 1);
}

static void scratch_fini(void)
{
	(void)nftw(scratch, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

static void sub(char *out, const char *rel)
{
	snprintf(out, PATH_MAX, "%s/%s", scratch, rel);
}

TestSuite(registry, .init = scratch_init, .fini = scratch_fini);

Test(registry, created_0700_and_opened)
{
	struct registry reg = REGISTRY_INIT;
	struct cordon_err e = { 0 };
	char want[PATH_MAX];
	sub(want, "state/cordon/registry");
	cr_assert_eq(registry_open(&reg, &e), 0, "%s", e.msg);
	cr_assert_str_eq(reg.path, want);
	struct stat st;
	cr_assert_eq(stat(want, &st), 0);
	cr_assert_eq(st.st_mode & 07777, 0700);
	cr_assert_eq(st.st_uid, geteuid());
	cr_assert_eq(reg.dev, st.st_dev);
	cr_assert_eq(reg.ino, st.st_ino);
	cr_assert_eq(reg.anc[reg.nanc - 1].ino, st.st_ino);
	cr_assert_eq(reg.anc[0].off, 0);
	registry_close(&reg);

	/* A registry someone opened up is brought back to 0700. */
	cr_assert_eq(chmod(want, 0755), 0);
	cr_assert_eq(registry_open(&reg, &e), 0, "%s", e.msg);
	cr_assert_eq(stat(want, &st), 0);
	cr_assert_eq(st.st_mode & 07777, 0700);
	registry_close(&reg);
}

Test(registry, symlink_component_is_refused)
{
	char real[PATH_MAX], link[PATH_MAX];
	sub(real, "real");
	sub(link, "state");
	cr_assert_eq(mkdir(real, 0700), 0);
	cr_assert_eq(symlink(real, link), 0);
	struct registry reg = REGISTRY_INIT;
	struct cordon_err e = { 0 };
	cr_assert_eq(registry_open(&reg, &e), -ELOOP);
	cr_assert_not(reg.absent, "a refusal, not a missing registry");
	cr_assert(strstr(e.msg, "symbolic link"), "%s", e.msg);
	registry_close(&reg);

	/* The registry itself as a symlink too. */
	cr_assert_eq(unlink(link), 0);
	char cordon[PATH_MAX], regp[PATH_MAX];
	sub(cordon, "state/cordon");
	sub(regp, "state/cordon/registry");
	cr_assert_eq(mkdir(link, 0700), 0);
	cr_assert_eq(mkdir(cordon, 0700), 0);
	cr_assert_eq(symlink(real, regp), 0);
	cr_assert_eq(registry_open(&reg, &e), -ELOOP);
	cr_assert_not(reg.absent, "a refusal, not a missing registry");
	registry_close(&reg);
}

Test(registry, foreign_owner_is_refused)
{
	if (geteuid() != 0)
		cr_skip_test("needs root to give a directory away");
	char state[PATH_MAX], regp[PATH_MAX];
	sub(state, "state");
	sub(regp, "state/cordon/registry");
	struct registry reg = REGISTRY_INIT;
	struct cordon_err e = { 0 };
	cr_assert_eq(registry_open(&reg, &e), 0, "%s", e.msg);
	registry_close(&reg);

	cr_assert_eq(chown(regp, 65534, 65534), 0);
	cr_assert_eq(registry_open(&reg, &e), -EPERM);
	cr_assert_not(reg.absent, "a refusal, not a missing registry");
	cr_assert(strstr(e.msg, "owned by someone else"), "%s", e.msg);
	registry_close(&reg);
	cr_assert_eq(chown(regp, 0, 0), 0);

	cr_assert_eq(chown(state, 65534, 65534), 0);
	cr_assert_eq(registry_open(&reg, &e), -EPERM);
	cr_assert(strstr(e.msg, "owned by someone else"), "%s", e.msg);
	registry_close(&reg);
}

Test(registry, world_writable_parent_is_refused)
{
	char state[PATH_MAX];
	sub(state, "state");
	cr_assert_eq(mkdir(state, 0700), 0);
	cr_assert_eq(chmod(state, 0777), 0);
	struct registry reg = REGISTRY_INIT;
	struct cordon_err e = { 0 };
	cr_assert_eq(registry_open(&reg, &e), -EPERM);
	cr_assert(strstr(e.msg, "writable by everyone"), "%s", e.msg);
	registry_close(&reg);
	cr_assert_eq(chmod(state, 01777), 0);
	cr_assert_eq(registry_open(&reg, &e), 0, "sticky is fine: %s", e.msg);
	registry_close(&reg);
}

Test(registry, missing_home_parent_is_not_created)
{
	char state[PATH_MAX];
	sub(state, "no/such/state");
	setenv("XDG_STATE_HOME", state, 1);
	struct registry reg = REGISTRY_INIT;
	struct cordon_err e = { 0 };
	cr_assert_eq(registry_open(&reg, &e), -ENOENT);
	cr_assert(reg.absent, "a missing registry, not a refusal");
	registry_close(&reg);
}

Test(registry, proc_start)
{
	uint64_t a, b;
	cr_assert_eq(registry_proc_start(getpid(), &a), 0);
	cr_assert_eq(registry_proc_start(getpid(), &b), 0);
	cr_assert_eq(a, b);
	pid_t c = fork();
	if (c == 0)
		_exit(0);
	/* A zombie counts as gone, and so does a reaped pid. */
	for (int i = 0; i < 200; i++) {
		if (registry_proc_start(c, &a) == -ESRCH)
			break;
		usleep(5000);
	}
	cr_assert_eq(registry_proc_start(c, &a), -ESRCH);
	cr_assert_eq(waitpid(c, NULL, 0), c);
	cr_assert_eq(registry_proc_start(c, &a), -ESRCH);
	cr_assert_eq(registry_proc_start(0, &a), -ESRCH);
}

/* Sweeps over real directories. */
struct seen {
	char lines[16][PATH_MAX + 200];
	int n;
};

static void collect(void *ctx, const char *path, enum reclaim_verdict v, const char *why)
{
	struct seen *s = ctx;
	if (s->n < 16)
		snprintf(s->lines[s->n++], sizeof(s->lines[0]), "%s %s: %s",
			 v == RECLAIM_REMOVE ? "removed" : "kept", path, why);
}

static int seen_has(const struct seen *s, const char *prefix)
{
	for (int i = 0; i < s->n; i++)
		if (strncmp(s->lines[i], prefix, strlen(prefix)) == 0)
			return 1;
	return 0;
}

static pid_t dead_pid(void)
{
	pid_t c = fork();
	if (c == 0)
		_exit(0);
	cr_assert_eq(waitpid(c, NULL, 0), c);
	return c;
}

/* Write a record for (pid, start) listing `paths` as created with their
 * current (dev, ino). */
static void plant_record(struct registry *reg, pid_t pid, uint64_t start,
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

static int exists_at(int dirfd, const char *name)
{
	return faccessat(dirfd, name, F_OK, AT_SYMLINK_NOFOLLOW) == 0;
}

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
	cr_assert_eq(registry_proc_start(getpid(), &start), 0);
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
	cr_assert_eq(registry_proc_start(getpid(), &start), 0);
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
	cr_assert(exists_at(reg.dirfd, live_tmp), "a live run's temporary record was deleted");
	char line[PATH_MAX + 64];
	snprintf(line, sizeof(line), "kept %s/%s: unreadable record", reg.path, name);
	cr_assert(seen_has(&s, line), "%s", line);
	snprintf(line, sizeof(line), "kept %s/%s: unreadable record", reg.path, fifo);
	cr_assert(seen_has(&s, line), "%s", line);
	registry_close(&reg);
}

Test(registry, writes_need_the_lock)
{
	struct registry reg = REGISTRY_INIT;
	struct cordon_err e = { 0 };
	cr_assert_eq(registry_open(&reg, &e), 0, "%s", e.msg);
	struct record r = sample();
	cr_assert_eq(registry_write(&reg, "run-x", &r, &e), -EINVAL);
	cr_assert_eq(registry_sweep(&reg, NULL, NULL, NULL, &e), -EINVAL);
	record_free(&r);
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
	cr_assert_eq(registry_proc_start(getpid(), &start), 0);
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
