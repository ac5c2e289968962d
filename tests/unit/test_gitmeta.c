/* test_gitmeta.c: the parsers of .git files and git config read bytes an
 * earlier run could have written: bounded, and only what git would take. */
#include <criterion/criterion.h>

#include <errno.h>
#include <limits.h>
#include <string.h>

#include "plan/gitmeta.h"

static int gitfile(const char *s, char *out)
{
	return gitmeta_parse_gitfile(s, strlen(s), out, PATH_MAX);
}

static int hooks(const char *s, char *out)
{
	return gitmeta_parse_hookspath(s, strlen(s), out, PATH_MAX);
}

Test(gitmeta, gitfile)
{
	char out[PATH_MAX];
	cr_assert_eq(gitfile("gitdir: ../main/.git/worktrees/wt\n", out), 0);
	cr_assert_str_eq(out, "../main/.git/worktrees/wt");
	cr_assert_eq(gitfile("gitdir:/abs/path  \r\n", out), 0);
	cr_assert_str_eq(out, "/abs/path");
	cr_assert_eq(gitfile("gitdir: \n", out), -EINVAL);
	cr_assert_eq(gitfile("GITDIR: x\n", out), -EINVAL);
	cr_assert_eq(gitfile("", out), -EINVAL);
	char small[4];
	cr_assert_eq(gitmeta_parse_gitfile("gitdir: abcdef", 14, small, sizeof(small)), -ENAMETOOLONG);
}

Test(gitmeta, hookspath)
{
	char out[PATH_MAX];
	cr_assert_eq(hooks("[core]\n\thooksPath = myhooks\n", out), 1);
	cr_assert_str_eq(out, "myhooks");
	cr_assert_eq(hooks("[CORE]\nHOOKSPATH=\"a b\" # c\n", out), 1);
	cr_assert_str_eq(out, "a b");
	cr_assert_eq(hooks("[core] hooksPath = same-line\n", out), 1, "a key may follow the header");
	cr_assert_str_eq(out, "same-line");
	cr_assert_eq(hooks("[core]\nhooksPath = first\n[core]\nhookspath = last ; x\n", out), 1);
	cr_assert_str_eq(out, "last", "the last one wins");
	cr_assert_eq(hooks("[core]\nbare\nhooksPath = \"q\\\"x\\\\\"\n", out), 1);
	cr_assert_str_eq(out, "q\"x\\");
	cr_assert_eq(hooks("[other]\nhooksPath = no\n", out), 0);
	cr_assert_eq(hooks("[core \"sub\"]\nhooksPath = no\n", out), 0);
	cr_assert_eq(hooks("[core]\n# hooksPath = no\n", out), 0);
	cr_assert_eq(hooks("[core]\nhooksPathx = no\n", out), 0);
	cr_assert_eq(hooks("[core]\nhooksPath =\n", out), 0, "empty: git's default");
	cr_assert_eq(hooks("[core\nhooksPath", out), 0, "truncated input ends cleanly");
	char small[4];
	cr_assert_eq(gitmeta_parse_hookspath("[core]hooksPath=abcdef", 22, small, sizeof(small)),
		     -ENAMETOOLONG);
}

Test(gitmeta, join)
{
	char out[PATH_MAX];
	cr_assert_eq(gitmeta_join("/w/r", "realgit", NULL, out, sizeof(out)), 0);
	cr_assert_str_eq(out, "/w/r/realgit");
	cr_assert_eq(gitmeta_join("/w/r", "../x/./y/", NULL, out, sizeof(out)), 0);
	cr_assert_str_eq(out, "/w/x/y");
	cr_assert_eq(gitmeta_join("/w/r", "/abs", NULL, out, sizeof(out)), 0);
	cr_assert_str_eq(out, "/abs");
	cr_assert_eq(gitmeta_join("/w/r", "~/hooks", "/home/me", out, sizeof(out)), 0);
	cr_assert_str_eq(out, "/home/me/hooks");
	cr_assert_eq(gitmeta_join("/w/r", "~/hooks", NULL, out, sizeof(out)), -ENOENT);
	cr_assert_eq(gitmeta_join("/w/r", "~bob/hooks", "/home/me", out, sizeof(out)), -ENOENT);
}
