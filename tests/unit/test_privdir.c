/* test_privdir.c: the walk down to a directory of cordon's own. */
#include <criterion/criterion.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <ftw.h>
#include <unistd.h>

#include "hostpaths/privdir.h"

static char base[PATH_MAX];

static void scratch(void)
{
	char t[] = "/tmp/cordon-privdir-XXXXXX";
	cr_assert_not_null(mkdtemp(t));
	/* realpath: /tmp may itself be reached through a link. */
	cr_assert_not_null(realpath(t, base));
}

static int rm_one(const char *p, const struct stat *st, int flag, struct FTW *f)
{
	(void)st;
	(void)flag;
	(void)f;
	return remove(p);
}

/* Nothing of a test is left in /tmp. */
static void cleanup(void)
{
	if (base[0])
		(void)nftw(base, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	base[0] = '\0';
}

TestSuite(privdir, .fini = cleanup);

static size_t visited;
static size_t refuse_at = (size_t)-1;

static int count(void *ctx, const char *shown, const struct stat *st, size_t idx, size_t prefix,
		 struct cordon_err *e)
{
	(void)ctx;
	(void)prefix;
	cr_assert(S_ISDIR(st->st_mode), "%s", shown);
	visited++;
	if (idx == refuse_at)
		return err_set(e, EPERM, "refused %s", shown);
	return 0;
}

static struct privdir_walk walk_to(const char *path, size_t must_exist, int create)
{
	return (struct privdir_walk){ path, must_exist, create, "test dir", "advice",
				      "link advice", count, NULL };
}

/* The missing tail is made 0700 and every component, "/" first, is seen. */
Test(privdir, creates_the_missing_tail_private)
{
	scratch();
	char path[PATH_MAX];
	snprintf(path, sizeof(path), "%s/a/b", base);
	struct privdir_walk w = walk_to(path, 0, 1);
	struct cordon_err e = { 0 };
	visited = 0;
	int fd = privdir_open(&w, NULL, &e);
	cr_assert_geq(fd, 0, "%s", e.msg);
	struct stat st;
	cr_assert_eq(stat(path, &st), 0);
	cr_assert_eq(st.st_mode & 07777, 0700);
	size_t depth = 0;
	for (const char *p = path; *p; p++)
		depth += *p == '/';
	cr_assert_eq(visited, depth + 1, "every component and / (%zu of %zu)", visited, depth + 1);
	close(fd);
}

/* Within must_exist, or with create unset, a missing component is an
 * error that says so, and nothing is created. */
Test(privdir, does_not_create_what_must_exist)
{
	scratch();
	char path[PATH_MAX];
	snprintf(path, sizeof(path), "%s/x/y", base);
	struct privdir_walk w = walk_to(path, 0, 0);
	struct cordon_err e = { 0 };
	int missing = 0;
	cr_assert_eq(privdir_open(&w, &missing, &e), -ENOENT);
	cr_assert(missing);
	cr_assert(strstr(e.msg, "does not exist; advice"), "%s", e.msg);
	struct stat st;
	cr_assert_neq(stat(path, &st), 0, "nothing was made");
}

/* A link anywhere on the way is refused as one, never followed; control:
 * the directory it leads to is reachable by its own path. */
Test(privdir, refuses_a_link_on_the_way)
{
	scratch();
	char real[PATH_MAX], link[PATH_MAX], path[PATH_MAX];
	snprintf(real, sizeof(real), "%s/real", base);
	snprintf(link, sizeof(link), "%s/link", base);
	cr_assert_eq(mkdir(real, 0700), 0);
	cr_assert_eq(symlink(real, link), 0);
	snprintf(path, sizeof(path), "%s/sub", link);
	struct privdir_walk w = walk_to(path, 0, 1);
	struct cordon_err e = { 0 };
	cr_assert_eq(privdir_open(&w, NULL, &e), -ELOOP);
	cr_assert(strstr(e.msg, "is a symbolic link; link advice"), "%s", e.msg);
	snprintf(path, sizeof(path), "%s/sub", real);
	struct stat st;
	cr_assert_neq(stat(path, &st), 0, "nothing was made through the link");
	w = walk_to(path, 0, 1);
	int fd = privdir_open(&w, NULL, &e);
	cr_assert_geq(fd, 0, "control: %s", e.msg);
	close(fd);
}

/* The caller's check ends the walk with its own error. */
Test(privdir, the_check_can_refuse)
{
	scratch();
	char path[PATH_MAX];
	snprintf(path, sizeof(path), "%s/c", base);
	struct privdir_walk w = walk_to(path, 0, 1);
	struct cordon_err e = { 0 };
	refuse_at = 1;
	int r = privdir_open(&w, NULL, &e);
	refuse_at = (size_t)-1;
	cr_assert_eq(r, -EPERM);
	cr_assert(strstr(e.msg, "refused /"), "%s", e.msg);
}
