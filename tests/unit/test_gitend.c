/* test_gitend.c: --git commit, the verdicts of the end of the run
 * (plan/gitend.h). */
#include <criterion/criterion.h>

#include <string.h>
#include <sys/stat.h>

#include "plan/gitend.h"

Test(gitend, the_kinds_are_looked_at_first)
{
	cr_assert_eq(gitend_nlooks, 3);
	cr_expect_eq(gitend_looks[0], GITEND_LOOK_KINDS,
		     "nothing may open a link or FIFO before the kinds are checked");
	cr_expect_eq(gitend_looks[1], GITEND_LOOK_STATE);
	cr_expect_eq(gitend_looks[2], GITEND_LOOK_LINKS);
}

Test(gitend, every_state_rule_has_its_kind)
{
	size_t nstate = 0, nrr = 0, ntodo = 0;
	for (size_t i = 0; i < gitdir_nrules; i++) {
		if (gitdir_rules[i].role != GITDIR_STATE)
			continue;
		nstate++;
		enum gitend_file k = gitend_file_kind(gitdir_rules[i].path);
		nrr += k == GITEND_RRCACHE;
		ntodo += k == GITEND_TODO;
	}
	cr_expect_gt(nstate, 0);
	cr_expect_eq(nrr, 1, "rr-cache, once");
	cr_expect_eq(ntodo, 2, "git-rebase-todo and sequencer/todo");
	cr_expect_eq(gitend_file_kind("rebase-merge/git-rebase-todo"), GITEND_TODO);
	cr_expect_eq(gitend_file_kind("sequencer/todo"), GITEND_TODO);
	cr_expect_eq(gitend_file_kind("sequencer/opts"), GITEND_OPTS);
	cr_expect_eq(gitend_file_kind("rebase-merge/strategy"), GITEND_STRATEGY);
	cr_expect_eq(gitend_file_kind("rr-cache"), GITEND_RRCACHE);
}

Test(gitend, top_git_dirs)
{
	cr_expect(gitend_inside("/w/.git/modules/a", "/w/.git"));
	cr_expect(!gitend_inside("/w/.git", "/w/.git"), "itself is not inside");
	cr_expect(!gitend_inside("/w/.gitx/modules/a", "/w/.git"), "a prefix of a name is not");
	cr_expect(!gitend_inside("/v/.git", "/w/.git"));
}

static enum gitend_act state(struct gitend_state_seen s, const char **why)
{
	return gitend_state_look(&s, why);
}

Test(gitend, a_directory_turned_into_a_file_or_link)
{
	const char *why = "x";
	struct gitend_state_seen s = { .dir = GITEND_DIR_OTHER, .dir_changed = 1 };
	cr_expect_eq(state(s, &why), GITEND_MOVE_DIR);
	cr_expect_str_eq(why, "it is not a directory");
	s.dir_changed = 0;
	cr_expect_eq(state(s, &why), GITEND_KEEP, "the user's own, from before the run");
	cr_expect_null(why);
	cr_expect_eq(state((struct gitend_state_seen){ .dir = GITEND_DIR_MISSING }, &why),
		     GITEND_KEEP);
	cr_expect_eq(state((struct gitend_state_seen){ .dir = GITEND_DIR_DIR, .dir_changed = 1 },
			   &why), GITEND_KEEP, "a directory git would look in as it is");
}

Test(gitend, a_state_file_step_by_step)
{
	const char *why = NULL;
	struct gitend_state_seen s = { GITEND_DIR_OPENED, 0, GITEND_FILE_MISSING, 0, GITEND_OPEN_OK };
	cr_expect_eq(state(s, &why), GITEND_KEEP, "none");
	s.file = GITEND_FILE_HIDDEN;
	cr_expect_eq(state(s, &why), GITEND_MOVE_FILE, "hidden: moved unread");
	cr_expect_str_eq(why, "it cannot be looked at");
	s.file = GITEND_FILE_SEEN;
	cr_expect_eq(state(s, &why), GITEND_KEEP, "unchanged: the user's own");
	s.file_changed = 1;
	cr_expect_eq(state(s, &why), GITEND_READ);
	s.open = GITEND_OPEN_LINK;
	cr_expect_eq(state(s, &why), GITEND_MOVE_FILE);
	cr_expect_str_eq(why, "it is a symbolic link");
	s.open = GITEND_OPEN_FAILED;
	cr_expect_eq(state(s, &why), GITEND_MOVE_FILE);
	cr_expect_str_eq(why, "it cannot be read");
}

Test(gitend, only_a_small_regular_file_is_read)
{
	cr_expect_null(gitend_state_unreadable(S_IFREG | 0644, 10, 100));
	cr_expect_str_eq(gitend_state_unreadable(S_IFIFO | 0644, 0, 100), "it is not a regular file",
			 "a FIFO is never opened for reading");
	cr_expect_str_eq(gitend_state_unreadable(S_IFDIR | 0755, 0, 100), "it is not a regular file");
	cr_expect_str_eq(gitend_state_unreadable(S_IFREG | 0644, 100, 100), "it is too large to check");
	cr_expect_str_eq(gitend_state_unreadable(S_IFREG | 0644, -1, 100), "it is too large to check");
}

#define CONTENT(k, s) gitend_state_content((k), (s), (ssize_t)strlen(s), 100)

Test(gitend, todo_with_exec)
{
	cr_expect_null(CONTENT(GITEND_TODO, "pick 1234 one\npick 5678 two\n"));
	cr_expect_not_null(CONTENT(GITEND_TODO, "pick 1234 one\nexec touch ~/PWNED\n"));
	cr_expect_not_null(CONTENT(GITEND_TODO, "  x make\n"), "the short form, indented");
	cr_expect_null(CONTENT(GITEND_TODO, "# exec touch ~/PWNED\n"), "a comment");
	const char *why = CONTENT(GITEND_STRATEGY, "exec true\n");
	cr_expect(why && strstr(why, "strategy"), "a strategy file is read as a strategy, not a todo");
	why = CONTENT(GITEND_TODO, "exec true\n");
	cr_expect(why && strstr(why, "exec line"));
}

Test(gitend, strategy_names_with_blanks_and_quotes)
{
	cr_expect_null(CONTENT(GITEND_STRATEGY, "ort\n"));
	cr_expect_null(CONTENT(GITEND_STRATEGY, "  recursive \t\n"), "blanks around");
	cr_expect_null(CONTENT(GITEND_STRATEGY, "\"ort\""), "one pair of quotes");
	cr_expect_not_null(CONTENT(GITEND_STRATEGY, "\" ort \""), "blanks inside quotes: not ort");
	cr_expect_not_null(CONTENT(GITEND_STRATEGY, "my evil\n"));
	cr_expect_not_null(CONTENT(GITEND_STRATEGY, "'ort'"), "single quotes are not git's");
	cr_expect_null(CONTENT(GITEND_OPTS, "[options]\n\tstrategy = \"ort\"\n"));
	cr_expect_not_null(CONTENT(GITEND_OPTS, "[options]\n\tstrategy = \"my evil\"\n"));
	cr_expect_not_null(CONTENT(GITEND_OPTS, "[options]\n  STRATEGY=evil \n"));
	cr_expect_null(CONTENT(GITEND_OPTS, "[options]\n\tstrategy =\n"), "empty: git's default");
}

Test(gitend, a_failed_or_long_read_goes)
{
	cr_expect_str_eq(gitend_state_content(GITEND_TODO, "", -1, 100), "it cannot be read");
	cr_expect_str_eq(gitend_state_content(GITEND_STRATEGY, "ort", 100, 100),
			 "it is too large to check");
}

Test(gitend, rr_cache_entries)
{
	cr_expect(gitend_rrcache_skip("."));
	cr_expect(gitend_rrcache_skip(".."));
	cr_expect(gitend_rrcache_skip("0123abcd.cordon-quarantine-Xy12"), "moved aside already");
	cr_expect(!gitend_rrcache_skip("0123abcd"));
	cr_expect_eq(gitend_rrcache_entry(1, 1), GITEND_RR_CHANGED, "a resolution recorded");
	cr_expect_eq(gitend_rrcache_entry(1, 0), GITEND_RR_CHANGED);
	cr_expect_eq(gitend_rrcache_entry(0, 1), GITEND_RR_INSIDE,
		     "postimage rewritten in place leaves its directory's ctime");
	cr_expect_eq(gitend_rrcache_entry(0, 0), GITEND_RR_KEPT);
}

Test(gitend, submodule_entries)
{
	struct gitend_link_seen dir = { 1, 5, 77, S_IFDIR | 0755 }, file = { 1, 5, 78, S_IFREG | 0644 };
	struct gitend_link_seen none = { 0, 0, 0, 0 };
	cr_expect_eq(gitend_link_look(NULL, &dir, 0), GITEND_LINK_MOVE, "not a gitlink at the start");
	cr_expect_eq(gitend_link_look(&none, &dir, 0), GITEND_LINK_MOVE, "no .git at the start");
	cr_expect_eq(gitend_link_look(&dir, &dir, 1), GITEND_LINK_INSIDE,
		     "the same repository: a commit in it is the work, its config decides");
	struct gitend_link_seen other = dir;
	other.ino = 99;
	cr_expect_eq(gitend_link_look(&dir, &other, 0), GITEND_LINK_MOVE,
		     "renamed into place: another inode, whatever its timestamps");
	other = dir;
	other.dev = 6;
	cr_expect_eq(gitend_link_look(&dir, &other, 0), GITEND_LINK_MOVE);
	other = dir;
	other.mode = S_IFLNK | 0777;
	cr_expect_eq(gitend_link_look(&dir, &other, 0), GITEND_LINK_MOVE, "turned into a link");
	cr_expect_eq(gitend_link_look(&file, &file, 0), GITEND_LINK_KEEP, "a .git file untouched");
	cr_expect_eq(gitend_link_look(&file, &file, 1), GITEND_LINK_MOVE, "a .git file written");
}

Test(gitend, what_counts_as_a_submodules_configuration)
{
	char buf[64];
	size_t n = 0;
	for (size_t i = 0; i < gitdir_nrules; i++) {
		const struct gitdir_rule *r = &gitdir_rules[i];
		int code = gitend_link_code(r, buf, sizeof(buf));
		cr_expect_eq(code, r->role == GITDIR_CODE || r->role == GITDIR_EACH_MODULE ||
				   r->role == GITDIR_EACH_WORKTREE, "%s", r->path);
		if (!code)
			continue;
		n++;
		cr_expect_null(strchr(buf, '*'), "%s", buf);
		cr_expect(buf[0] && buf[strlen(buf) - 1] != '/', "%s", buf);
	}
	cr_expect_gt(n, 0);
	struct gitdir_rule m = { "modules/*", 1, GITDIR_EACH_MODULE, 0, "" };
	cr_expect(gitend_link_code(&m, buf, sizeof(buf)));
	cr_expect_str_eq(buf, "modules");
	struct gitdir_rule d = { "objects", 1, GITDIR_DATA, 0, "" };
	cr_expect(!gitend_link_code(&d, buf, sizeof(buf)), "data may change: the work");
}

Test(gitend, a_rules_path_split)
{
	size_t len;
	const char *base;
	struct gitdir_rule a = { "objects/info/alternates", 1, GITDIR_CODE, 0, "" };
	gitend_rule_split(&a, &len, &base);
	cr_expect_eq(len, strlen("objects/info"));
	cr_expect_str_eq(base, "alternates");
	struct gitdir_rule c = { "config", 1, GITDIR_CODE, 0, "" };
	gitend_rule_split(&c, &len, &base);
	cr_expect_eq(len, 0, "in the git dir itself");
	cr_expect_str_eq(base, "config");
}
