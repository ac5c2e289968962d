/* test_path.c: the lexical path helpers (no filesystem access). */
#include <criterion/criterion.h>

#include <errno.h>
#include <string.h>

#include "path.h"

static void expect_clean(const char *in, const char *want)
{
	char out[256];
	memset(out, 'X', sizeof(out));
	cr_assert_eq(path_clean(in, out, sizeof(out)), 0, "path_clean(%s) failed", in);
	cr_assert_str_eq(out, want, "path_clean(%s)", in);
}

Test(path_clean, already_clean)
{
	expect_clean("/", "/");
	expect_clean("/a", "/a");
	expect_clean("/usr/bin/bwrap", "/usr/bin/bwrap");
}

Test(path_clean, double_slashes)
{
	expect_clean("//", "/");
	expect_clean("//a//b///c", "/a/b/c");
}

Test(path_clean, dot_components)
{
	expect_clean("/./a/./b/.", "/a/b");
	expect_clean("/.", "/");
}

Test(path_clean, dotdot_components)
{
	expect_clean("/a/b/../c", "/a/c");
	expect_clean("/a/b/c/../..", "/a");
	expect_clean("/a/..", "/");
	expect_clean("/..", "/");
	expect_clean("/../../a", "/a");
	expect_clean("/a/b/../../../c", "/c");
}

Test(path_clean, dots_that_are_names)
{
	expect_clean("/a/.../b", "/a/.../b");
	expect_clean("/a/..b/.c", "/a/..b/.c");
}

Test(path_clean, trailing_slash)
{
	expect_clean("/a/b/", "/a/b");
	expect_clean("/a/b//", "/a/b");
}

Test(path_clean, relative_refused)
{
	char out[64];
	cr_assert_eq(path_clean("a/b", out, sizeof(out)), -EINVAL);
	cr_assert_eq(path_clean("./a", out, sizeof(out)), -EINVAL);
	cr_assert_eq(path_clean("", out, sizeof(out)), -EINVAL);
}

Test(path_clean, too_long)
{
	char out[5];
	/* "/abc" needs 5 bytes with its NUL: fits exactly. */
	cr_assert_eq(path_clean("/abc", out, sizeof(out)), 0);
	cr_assert_str_eq(out, "/abc");
	cr_assert_eq(path_clean("/abcd", out, sizeof(out)), -ENAMETOOLONG);
	/* "/a/b" fits (5 bytes); "/a/bc" needs 6, the slash counted. */
	cr_assert_eq(path_clean("/a//b", out, sizeof(out)), 0);
	cr_assert_str_eq(out, "/a/b");
	cr_assert_eq(path_clean("/a/bc", out, sizeof(out)), -ENAMETOOLONG);
	cr_assert_eq(path_clean("/ab/c", out, sizeof(out)), -ENAMETOOLONG);
	cr_assert_eq(path_clean("/", out, 1), -ENAMETOOLONG);
	/* What only fits once cleaned is fine. */
	cr_assert_eq(path_clean("/a/./././b/../c", out, sizeof(out)), 0);
	cr_assert_str_eq(out, "/a/c");
}

Test(path_is_under, self_and_children)
{
	cr_assert(path_is_under("/a/b", "/a/b"));
	cr_assert(path_is_under("/a/b/c", "/a/b"));
	cr_assert(path_is_under("/a/b/c/d", "/a"));
}

Test(path_is_under, prefix_sharing_siblings_refused)
{
	cr_assert_not(path_is_under("/a/bc", "/a/b"));
	cr_assert_not(path_is_under("/a/bc/d", "/a/b"));
	cr_assert_not(path_is_under("/a/b-x", "/a/b"));
	cr_assert_not(path_is_under("/a", "/a/b"));
	cr_assert_not(path_is_under("/x", "/a"));
}

Test(path_is_under, root_contains_everything)
{
	cr_assert(path_is_under("/", "/"));
	cr_assert(path_is_under("/a", "/"));
	cr_assert(path_is_under("/a/b/c", "/"));
}

Test(path_depth, counts_components)
{
	cr_assert_eq(path_depth("/"), 0);
	cr_assert_eq(path_depth("/a"), 1);
	cr_assert_eq(path_depth("/a/b"), 2);
	cr_assert_eq(path_depth("/usr/local/bin/bwrap"), 4);
}

Test(path_join, one_slash)
{
	char out[64];
	cr_assert_eq(path_join("/a", "b", out, sizeof(out)), 0);
	cr_assert_str_eq(out, "/a/b");
	cr_assert_eq(path_join("/a/", "b", out, sizeof(out)), 0);
	cr_assert_str_eq(out, "/a/b");
	cr_assert_eq(path_join("/", ".git", out, sizeof(out)), 0);
	cr_assert_str_eq(out, "/.git");
}

Test(path_join, too_long)
{
	char out[6];
	cr_assert_eq(path_join("/a", "bc", out, sizeof(out)), 0);
	cr_assert_str_eq(out, "/a/bc");
	cr_assert_eq(path_join("/a", "bcd", out, sizeof(out)), -ENAMETOOLONG);
	cr_assert_eq(path_join("/abcdef", "x", out, sizeof(out)), -ENAMETOOLONG);
}

Test(path_base, last_component)
{
	const char *p = "/a/b/bwrap";
	cr_assert_eq(path_base(p), p + 5);
	cr_assert_str_eq(path_base("/.git"), ".git");
	cr_assert_str_eq(path_base("/"), "/");
	cr_assert_str_eq(path_base("name"), "name");
}

Test(path_next, walks_components)
{
	const char *p = "//a/bc///d/";
	size_t len;
	const char *s = path_next(&p, &len);
	cr_assert(len == 1 && strncmp(s, "a", 1) == 0);
	s = path_next(&p, &len);
	cr_assert(len == 2 && strncmp(s, "bc", 2) == 0);
	s = path_next(&p, &len);
	cr_assert(len == 1 && strncmp(s, "d", 1) == 0);
	(void)path_next(&p, &len);
	cr_assert_eq(len, 0);
	cr_assert_eq(*p, '\0');
}
