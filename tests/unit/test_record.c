/* test_record.c: the record text format and its parser (pure). */
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

#define BOOT "07f2a143-0e38-44de-947f-95d598ba40a9"
#define OTHER_BOOT "11111111-2222-3333-4444-555555555555"
#define PIDNS 4026531836ULL

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

