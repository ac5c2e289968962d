/* test_rootcheck.c: a root's path checked at the end of a run: still the
 * directory it was, or moved (renamed away, replaced by another directory
 * or by a link to the original), each mismatch counted and passed on. */
#include <criterion/criterion.h>
#include <sys/resource.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "plan/resolve.h"
#include "observe/rootcheck.h"
#include "unit_util.h"

static char top[PATH_MAX];

static void init(void)
{
	scratch_dir(top, "rootcheck");
}

static void fini(void)
{
	rm_rf(top);
}

TestSuite(rootcheck, .init = init, .fini = fini);

static void at(char *out, const char *rel)
{
	(void)snprintf(out, PATH_MAX, "%s/%s", top, rel);
}

static void root(struct resolved *r, const char *rel)
{
	char path[PATH_MAX];
	struct rpath p;
	struct cordon_err e = { 0 };
	at(path, rel);
	cr_assert_eq(resolve_path("test", path, &p, &e), 0, "%s", e.msg);
	cr_assert_eq(rpath_push(&r->roots, &r->nroots, &r->caproots, &p), 0);
}

static void mv(const char *from, const char *to)
{
	char a[PATH_MAX], b[PATH_MAX];
	at(a, from);
	at(b, to);
	cr_assert_eq(rename(a, b), 0, "%s", a);
}

static void md(const char *rel)
{
	char p[PATH_MAX];
	at(p, rel);
	cr_assert_eq(mkdir(p, 0755), 0, "%s", p);
}

static char last_now[64];
static void note(void *ctx, const struct rootcheck_moved *m)
{
	(*(int *)ctx)++;
	(void)snprintf(last_now, sizeof(last_now), "%s", m->now);
}

Test(rootcheck, roots_in_place_pass)
{
	struct resolved r;
	struct cordon_err e;
	int calls = 0;
	memset(&r, 0, sizeof(r));
	md("ws");
	md("ws/a");
	md("ws/a/R");
	root(&r, "ws");
	root(&r, "ws/a/R");
	resolved_close(&r);
	cr_assert_eq(rootcheck_settle(&r, note, &calls, &e), 0);
	cr_assert_eq(calls, 0);
	resolved_free(&r);
}

Test(rootcheck, a_renamed_parent_and_a_fresh_directory_in_its_place)
{
	struct resolved r;
	struct cordon_err e;
	int calls = 0;
	memset(&r, 0, sizeof(r));
	md("ws");
	md("ws/a");
	md("ws/a/R");
	root(&r, "ws");
	root(&r, "ws/a/R");
	mv("ws/a", "ws/b");
	cr_assert_eq(rootcheck_settle(&r, note, &calls, &e), 1, "nothing at the path");
	cr_assert_str_eq(last_now, "nothing");
	md("ws/a");
	md("ws/a/R");
	cr_assert_eq(rootcheck_settle(&r, note, &calls, &e), 1);
	cr_assert_str_eq(last_now, "another directory");
	cr_assert_eq(calls, 2);
	resolved_free(&r);
}

Test(rootcheck, a_link_to_the_moved_root_does_not_pass)
{
	struct resolved r;
	struct cordon_err e;
	char link[PATH_MAX];
	memset(&r, 0, sizeof(r));
	md("ws");
	md("ws/a");
	md("ws/a/R");
	root(&r, "ws/a/R");
	mv("ws/a", "ws/b");
	at(link, "ws/a");
	cr_assert_eq(symlink("b", link), 0);
	cr_assert_eq(rootcheck_settle(&r, NULL, NULL, &e), 1);
	resolved_free(&r);
}

/* Out of descriptors, the check cannot look: an error for the run, never a
 * root reported as moved (issue 30, item 13). */
Test(rootcheck, emfile_is_an_error_not_a_moved_root)
{
	struct resolved r;
	struct cordon_err e;
	int calls = 0;
	memset(&r, 0, sizeof(r));
	md("ws");
	root(&r, "ws");
	resolved_close(&r);
	struct rlimit rl = { 16, 16 };
	cr_assert_eq(setrlimit(RLIMIT_NOFILE, &rl), 0);
	while (open("/", O_PATH | O_CLOEXEC) >= 0) {
	}
	cr_assert_eq(errno, EMFILE);
	cr_assert_eq(rootcheck_settle(&r, note, &calls, &e), -EMFILE);
	cr_assert_eq(calls, 0, "no root reported as moved");
	cr_assert(strstr(e.msg, "cannot check that the writable root"), "%s", e.msg);
	resolved_free(&r);
}
