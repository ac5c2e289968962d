/* test_protect_watch.c: protect_watch_tool_hint, the tool's own way not to create a
 * protected name, found from the command's words. */
#include <criterion/criterion.h>

#include <string.h>

#include "observe/protect_watch.h"

static const char *hint(const char *name, const char *a0, const char *a1, const char *a2)
{
	char *argv[] = { (char *)a0, (char *)a1, (char *)a2, NULL };
	return protect_watch_tool_hint(name, argv);
}

Test(protect_watch_tool_hint, cargo_init_and_new_say_vcs_none)
{
	cr_assert_str_eq(hint(".git", "cargo", "init", NULL), "cargo init --vcs none creates no repository");
	cr_assert_str_eq(hint(".git", "/usr/bin/cargo", "new", "x"), "cargo new --vcs none creates no repository");
	cr_assert_str_eq(hint(".git", "sh", "-c", "cd ws && cargo init"),
			 "cargo init --vcs none creates no repository", "a shell's words count");
	cr_assert_str_eq(hint(".git", "uv", "init", NULL), "uv init --vcs none creates no repository");
}

Test(protect_watch_tool_hint, git_init_says_a_subdirectory)
{
	cr_assert_str_eq(hint(".git", "git", "init", NULL),
			 "git init SUBDIR creates the repository in a subdirectory");
	cr_assert_str_eq(hint(".git", "bash", "-c", "true;git init"),
			 "git init SUBDIR creates the repository in a subdirectory");
	cr_assert_str_eq(hint(".git", "git", "-c", "init.defaultBranch=main init -q ."),
			 "git init SUBDIR creates the repository in a subdirectory",
			 "options between the tool and its subcommand");
}

Test(protect_watch_tool_hint, no_tool_named_gives_the_general_hint_for_git_only)
{
	cr_assert_str_eq(hint(".git", "make", "test", NULL),
			 "Create a repository in a subdirectory instead (git init SUBDIR)");
	cr_assert_str_eq(hint(".git", "notcargo", "init", NULL),
			 "Create a repository in a subdirectory instead (git init SUBDIR)",
			 "a word that only ends in the tool's name is not the tool");
	cr_assert_str_eq(hint(".git", "cargo", "build", "init"),
			 "Create a repository in a subdirectory instead (git init SUBDIR)",
			 "the subcommand must follow the tool");
	cr_assert_null(hint(".codex", "cargo", "init", NULL));
	cr_assert_null(hint(".aws", "sh", "-c", ""));
}
