/* test_gitdir.c: the commit mode's rule for a git dir (plan/gitdir.h): the
 * table's verdicts, and the parsers that decide whether a state file would
 * run a command on the host. */
#include <criterion/criterion.h>

#include <errno.h>
#include <string.h>

#include "plan/gitdir.h"

static const struct gitdir_rule *rule(const char *path)
{
	for (size_t i = 0; i < gitdir_nrules; i++)
		if (strcmp(gitdir_rules[i].path, path) == 0)
			return &gitdir_rules[i];
	cr_assert_fail("no rule for %s", path);
	return NULL;
}

static const struct gitdir_seen missing = { 0, 0, 0 }, file = { 1, 0, 0 }, dir = { 1, 1, 0 },
				link = { 1, 0, 1 };

Test(gitdir, code_is_read_only_watched_when_missing_and_refused_as_a_link)
{
	const char *code[] = { "config", "config.worktree", "hooks", "info", "commondir", "gitdir",
			       "objects/info/alternates", "objects/info/http-alternates",
			       "branches", "remotes" };
	for (size_t i = 0; i < sizeof(code) / sizeof(code[0]); i++) {
		const struct gitdir_rule *r = rule(code[i]);
		cr_expect_eq(r->role, GITDIR_CODE, "%s", code[i]);
		cr_expect_eq(gitdir_decide(r, &file), GITDIR_ACT_READ_ONLY, "%s", code[i]);
		cr_expect_eq(gitdir_decide(r, &dir), GITDIR_ACT_READ_ONLY, "%s", code[i]);
		cr_expect_eq(gitdir_decide(r, &missing), GITDIR_ACT_WATCH, "%s", code[i]);
		cr_expect_eq(gitdir_decide(r, &link), GITDIR_ACT_REFUSE, "%s", code[i]);
	}
}

Test(gitdir, holders_are_pinned)
{
	cr_expect_eq(gitdir_decide(rule(""), &dir), GITDIR_ACT_PIN);
	cr_expect_eq(gitdir_decide(rule("objects"), &dir), GITDIR_ACT_PIN);
	cr_expect_eq(gitdir_decide(rule("objects/info"), &dir), GITDIR_ACT_PIN);
	cr_expect_eq(gitdir_decide(rule("worktrees"), &dir), GITDIR_ACT_PIN);
	cr_expect_eq(gitdir_decide(rule("modules"), &dir), GITDIR_ACT_PIN);
	/* objects/info holds the alternates: made during the run, it is watched */
	cr_expect_eq(gitdir_decide(rule("objects/info"), &missing), GITDIR_ACT_WATCH);
	/* git worktree add and git submodule add may make these */
	cr_expect_eq(gitdir_decide(rule("worktrees"), &missing), GITDIR_ACT_NONE);
	cr_expect_eq(gitdir_decide(rule("modules"), &missing), GITDIR_ACT_NONE);
	cr_expect_eq(gitdir_decide(rule("objects"), &link), GITDIR_ACT_REFUSE);
	cr_expect_eq(gitdir_decide(rule("objects"), &file), GITDIR_ACT_REFUSE);
	cr_expect_eq(gitdir_decide(rule("worktrees/*"), &dir), GITDIR_ACT_EXPAND);
	cr_expect_eq(gitdir_decide(rule("modules/*"), &dir), GITDIR_ACT_EXPAND);
}

Test(gitdir, data_and_state_stay_writable)
{
	const char *data[] = { "refs", "logs", "index", "HEAD", "packed-refs", "ORIG_HEAD",
			       "FETCH_HEAD", "rebase-merge", "sequencer", "shallow",
			       "rebase-merge/git-rebase-todo", "sequencer/todo" };
	for (size_t i = 0; i < sizeof(data) / sizeof(data[0]); i++) {
		cr_expect_eq(gitdir_decide(rule(data[i]), &file), GITDIR_ACT_NONE, "%s", data[i]);
		cr_expect_eq(gitdir_decide(rule(data[i]), &missing), GITDIR_ACT_NONE, "%s", data[i]);
	}
}

Test(gitdir, a_worktree_git_dir_keeps_its_links_read_only)
{
	cr_expect(rule("commondir")->scopes & GITDIR_WORKTREE);
	cr_expect(rule("gitdir")->scopes & GITDIR_WORKTREE);
	cr_expect(rule("config.worktree")->scopes & GITDIR_WORKTREE);
	cr_expect(!(rule("hooks")->scopes & GITDIR_WORKTREE), "a worktree's hooks are the common dir's");
}

Test(gitdir, every_holder_comes_before_what_it_holds)
{
	for (size_t i = 0; i < gitdir_nrules; i++) {
		const char *p = gitdir_rules[i].path, *slash = strrchr(p, '/');
		if (!slash || gitdir_rules[i].role == GITDIR_DATA)
			continue;
		int found = 0;
		for (size_t j = 0; j < i; j++)
			found |= strlen(gitdir_rules[j].path) == (size_t)(slash - p) &&
				 strncmp(gitdir_rules[j].path, p, (size_t)(slash - p)) == 0 &&
				 gitdir_rules[j].role == GITDIR_HOLDER;
		/* the state files' directories are git's data, made by git */
		if (gitdir_rules[i].role != GITDIR_STATE)
			cr_expect(found, "%s: its directory is not pinned before it", p);
	}
}

#define RUNS(s) gitdir_todo_runs(s, strlen(s))
Test(gitdir, todo_exec_lines)
{
	cr_expect_eq(RUNS("pick 1234 one\npick 5678 two\n"), 0);
	cr_expect_eq(RUNS("pick 1234 one\nexec make test\n"), 1);
	cr_expect_eq(RUNS("x touch /tmp/p"), 1);
	cr_expect_eq(RUNS("  \texec true\n"), 1, "leading blanks are git's too");
	cr_expect_eq(RUNS("x\n"), 1);
	cr_expect_eq(RUNS("# exec true\npick 1 a\n"), 0, "a comment");
	cr_expect_eq(RUNS("pick 1 exec x\n"), 0, "exec only as the command");
	cr_expect_eq(RUNS("execute 1\nxx 2\n"), 0);
	cr_expect_eq(RUNS("pick 1 a\r\nexec\ttrue\r\n"), 1);
	cr_expect_eq(RUNS(""), 0);
}

#define STRAT(s, o) gitdir_strategy_runs(s, strlen(s), o)
Test(gitdir, strategies_not_built_in)
{
	cr_expect_eq(STRAT("ort\n", 0), 0);
	cr_expect_eq(STRAT("recursive", 0), 0);
	cr_expect_eq(STRAT("evil\n", 0), 1);
	cr_expect_eq(STRAT("\n", 0), 0);
	cr_expect_eq(STRAT("[options]\n\tstrategy = ort\n", 1), 0);
	cr_expect_eq(STRAT("[options]\n\tstrategy = \"evil\"\n", 1), 1);
	cr_expect_eq(STRAT("[options]\n\tStrategy=evil\n", 1), 1);
	cr_expect_eq(STRAT("[options]\n\tstrategy-option = theirs\n", 1), 0);
}

/* An index entry of version 2/3 (SHA-1): 40 bytes of stat data with the
 * mode at 24, the id, the flags (name length), the name, 1-8 NULs. */
static size_t entry(unsigned char *p, unsigned mode, const char *name)
{
	size_t len = strlen(name), total = (40 + 20 + 2 + len + 8) & ~(size_t)7;
	memset(p, 0, total);
	p[24] = (unsigned char)(mode >> 24);
	p[25] = (unsigned char)(mode >> 16);
	p[26] = (unsigned char)(mode >> 8);
	p[27] = (unsigned char)mode;
	p[60] = (unsigned char)(len >> 8);
	p[61] = (unsigned char)len;
	memcpy(p + 62, name, len);
	return total;
}

static char seen[256];
static int note(void *ctx, const char *path, size_t len)
{
	(void)ctx;
	strncat(seen, path, len);
	strcat(seen, ";");
	return 0;
}

Test(gitdir, index_gitlinks_v2)
{
	static unsigned char buf[1024];
	size_t n = 12;
	memcpy(buf, "DIRC\0\0\0\2\0\0\0\3", 12);
	n += entry(buf + n, 0100644, "a");
	n += entry(buf + n, 0160000, "sub/dir");
	n += entry(buf + n, 0160000, "twelve-chars");
	struct gitdir_index_walk w = { 0, 0, 0 };
	seen[0] = '\0';
	cr_assert_eq(gitdir_index_gitlinks(buf, n, 20, &w, note, NULL), 0);
	cr_expect_str_eq(seen, "sub/dir;twelve-chars;");
	cr_expect_eq(gitdir_index_gitlinks(buf, n, 32, &w, note, NULL), -EINVAL,
		     "a SHA-256 reading of SHA-1 entries does not parse");
	cr_expect_eq(gitdir_index_gitlinks(buf, n - 3, 20, &w, note, NULL), -EINVAL, "truncated");
	buf[3] = 'D';
	cr_expect_eq(gitdir_index_gitlinks(buf, n, 20, &w, note, NULL), -EINVAL, "not an index");
}

Test(gitdir, index_gitlinks_v4_prefix_compressed)
{
	static unsigned char buf[1024];
	size_t n = 12;
	memcpy(buf, "DIRC\0\0\0\4\0\0\0\2", 12);
	/* "lib/a" (strip 0), then "lib/sub" (strip 1 from "lib/a": "lib/" + "sub") */
	const char *names[] = { "lib/a", "sub" };
	unsigned modes[] = { 0100644, 0160000 };
	unsigned strip[] = { 0, 1 };
	for (int i = 0; i < 2; i++) {
		memset(buf + n, 0, 62);
		buf[n + 24] = (unsigned char)(modes[i] >> 24);
		buf[n + 25] = (unsigned char)(modes[i] >> 16);
		buf[n + 26] = (unsigned char)(modes[i] >> 8);
		buf[n + 27] = (unsigned char)modes[i];
		buf[n + 61] = 5;
		n += 62;
		buf[n++] = (unsigned char)strip[i];
		memcpy(buf + n, names[i], strlen(names[i]) + 1);
		n += strlen(names[i]) + 1;
	}
	struct gitdir_index_walk w = { 0, 0, 0 };
	seen[0] = '\0';
	cr_assert_eq(gitdir_index_gitlinks(buf, n, 20, &w, note, NULL), 0);
	cr_expect_str_eq(seen, "lib/sub;");
}

#define NAME_OK(s) gitdir_index_name_ok(s, strlen(s))
Test(gitdir, index_names_cordon_turns_into_paths)
{
	const char *good[] = { "a", "sub/dir", "a.git", ".gitx/y", "x/..y", "...", ".a/b" };
	const char *bad[] = { "", ".", "..", "/", "/a", "a/", "a//b", "./a", "a/.", "a/..",
			      "../a", "a/../b", ".git", "sub/.git", ".GIT/x", "x/.Git" };
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++)
		cr_expect(NAME_OK(good[i]), "%s", good[i]);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		cr_expect(!NAME_OK(bad[i]), "%s", bad[i]);
	cr_expect(!gitdir_index_name_ok("a\0b", 3), "a NUL inside");
}

Test(gitdir, index_gitlinks_with_bad_names_are_counted_not_passed)
{
	static unsigned char buf[1024];
	size_t n = 12;
	memcpy(buf, "DIRC\0\0\0\2\0\0\0\5", 12);
	n += entry(buf + n, 0160000, "");
	n += entry(buf + n, 0160000, ".");
	n += entry(buf + n, 0160000, "a/../..");
	n += entry(buf + n, 0100644, "file");
	n += entry(buf + n, 0160000, "ok");
	struct gitdir_index_walk w = { 0, 0, 0 };
	seen[0] = '\0';
	cr_assert_eq(gitdir_index_gitlinks(buf, n, 20, &w, note, NULL), 0);
	cr_expect_str_eq(seen, "ok;");
	cr_expect_eq(w.stripped, 1, "a split index's replacement entry");
	cr_expect_eq(w.bad, 2);
	w = (struct gitdir_index_walk){ 1, 0, 0 };
	seen[0] = '\0';
	cr_assert_eq(gitdir_index_gitlinks(buf, n, 20, &w, note, NULL), 0);
	cr_expect_str_eq(seen, "file;ok;", "all: every entry with a good name");
}

Test(gitdir, a_linked_worktree_keeps_its_submodules_git_dirs_split)
{
	cr_expect(rule("modules")->scopes & GITDIR_WORKTREE,
		  "git keeps a linked worktree's submodules in worktrees/NAME/modules");
	cr_expect(rule("modules/*")->scopes & GITDIR_WORKTREE);
}

/* A linked worktree outside the roots: accepted only when it is beyond
 * doubt the caller's worktree of that common dir. */
static struct gitdir_linked linked_ok(void)
{
	return (struct gitdir_linked){
		.gitfile = "/w/wt/.git", .gitdir = "/src/m/.git/worktrees/wt",
		.gitdir_real = "/src/m/.git/worktrees/wt", .common = "/src/m/.git",
		.common_real = "/src/m/.git", .back = "/w/wt/.git", .repo = 1 };
}

Test(gitdir, linked_worktree_accepted)
{
	struct gitdir_linked f = linked_ok();
	cr_expect_null(gitdir_linked_refusal(&f));
}

Test(gitdir, linked_worktree_refusals)
{
	struct gitdir_linked f;
	f = linked_ok(); f.gitdir_real = NULL;
	cr_expect_not_null(gitdir_linked_refusal(&f), "missing git dir");
	f = linked_ok(); f.gitdir_real = "/elsewhere/wt";
	cr_expect_not_null(gitdir_linked_refusal(&f), "git dir through a link");
	f = linked_ok(); f.common = NULL;
	cr_expect_not_null(gitdir_linked_refusal(&f), "no commondir (gitdir: /etc)");
	f = linked_ok(); f.common_real = "/other/.git";
	cr_expect_not_null(gitdir_linked_refusal(&f), "common dir through a link");
	f = linked_ok(); f.common = f.common_real = "/src/other/.git";
	cr_expect_not_null(gitdir_linked_refusal(&f), "G not under C/worktrees");
	f = linked_ok(); f.gitdir = f.gitdir_real = "/src/m/.git/worktrees/a/b";
	cr_expect_not_null(gitdir_linked_refusal(&f), "G two levels down");
	f = linked_ok(); f.gitdir = f.gitdir_real = "/src/m/.git/worktreesX/wt";
	cr_expect_not_null(gitdir_linked_refusal(&f), "a lookalike of worktrees/");
	f = linked_ok(); f.gitdir = f.gitdir_real = "/src/m/.git/worktrees/";
	cr_expect_not_null(gitdir_linked_refusal(&f), "no NAME");
	f = linked_ok(); f.back = NULL;
	cr_expect_not_null(gitdir_linked_refusal(&f), "no gitdir file");
	f = linked_ok(); f.back = "/w/other/.git";
	cr_expect_not_null(gitdir_linked_refusal(&f), "gitdir names another .git file");
	f = linked_ok(); f.link = 1;
	cr_expect_not_null(gitdir_linked_refusal(&f), "a link");
	f = linked_ok(); f.foreign = 1;
	cr_expect_not_null(gitdir_linked_refusal(&f), "another owner");
	f = linked_ok(); f.repo = 0;
	cr_expect_not_null(gitdir_linked_refusal(&f), "not a repository");
	f = linked_ok(); f.config_paths = 1;
	cr_expect_not_null(gitdir_linked_refusal(&f), "include or hooksPath");
	f = linked_ok(); f.root_inside = 1;
	cr_expect_not_null(gitdir_linked_refusal(&f), "a root inside C");
}
