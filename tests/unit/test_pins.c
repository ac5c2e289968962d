/* test_pins.c: the pins that keep the directories above a read-only path
 * in a writable root in place: one per directory strictly between the root
 * and the path, none for the root itself, a read-only or protected ancestor,
 * or a path at the root's top level; "/" as the root with --full-write. */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "path.h"
#include "plan/pins.h"
#include "plan/resolve.h"
#include "unit_util.h"

static char top[PATH_MAX];

static void init(void)
{
	scratch_dir(top, "pins");
}

static void fini(void)
{
	rm_rf(top);
}

TestSuite(pins, .init = init, .fini = fini);

static void under(char *out, const char *rel)
{
	(void)snprintf(out, PATH_MAX, "%s/%s", top, rel);
}

static void mkdirs(const char *rel)
{
	char cmd[PATH_MAX], *p;
	under(cmd, rel);
	for (p = cmd + strlen(top) + 1; (p = strchr(p, '/')); p++) {
		*p = '\0';
		(void)mkdir(cmd, 0755);
		*p = '/';
	}
	cr_assert_eq(mkdir(cmd, 0755), 0, "%s", cmd);
}

static void push(struct rpath **v, size_t *n, size_t *cap, const char *rel)
{
	char path[PATH_MAX];
	struct rpath p;
	struct cordon_err e = { 0 };
	under(path, rel);
	cr_assert_eq(resolve_path("test", path, &p, &e), 0, "%s", e.msg);
	cr_assert_eq(rpath_push(v, n, cap, &p), 0);
}

static const struct rpath *pin_at(const struct resolved *r, const char *rel)
{
	char path[PATH_MAX];
	under(path, rel);
	for (size_t i = 0; i < r->ncarves; i++)
		if (strcmp(r->carves[i].path, path) == 0)
			return &r->carves[i];
	return NULL;
}

static void pin(struct resolved *r, const char *rel, int full_write)
{
	char path[PATH_MAX];
	struct cordon_err e = { 0 };
	under(path, rel);
	cr_assert_eq(pins_add_above(r, path, full_write, &e), 0, "%s", e.msg);
}

Test(pins, every_directory_between_the_root_and_the_path)
{
	struct resolved r;
	memset(&r, 0, sizeof(r));
	mkdirs("ws/a/b/gitdir");
	push(&r.roots, &r.nroots, &r.caproots, "ws");
	pin(&r, "ws/a/b/gitdir", 0);
	cr_assert_eq(r.ncarves, 2);
	const struct rpath *a = pin_at(&r, "ws/a"), *b = pin_at(&r, "ws/a/b");
	cr_assert(a && a->pin && b && b->pin);
	struct stat st;
	char path[PATH_MAX];
	under(path, "ws/a/b");
	cr_assert_eq(stat(path, &st), 0);
	cr_assert_eq(b->ino, st.st_ino);
	cr_assert_geq(b->fd, 0);
	cr_assert_null(pin_at(&r, "ws"), "the root is a mount point already");
	pin(&r, "ws/a/b/gitdir", 0);
	cr_assert_eq(r.ncarves, 2, "a second path under the same directories adds nothing");
	resolved_free(&r);
}

Test(pins, none_at_the_top_level_or_outside_every_root)
{
	struct resolved r;
	memset(&r, 0, sizeof(r));
	mkdirs("ws/.git");
	mkdirs("outside/x/y");
	push(&r.roots, &r.nroots, &r.caproots, "ws");
	pin(&r, "ws/.git", 0);
	pin(&r, "outside/x/y", 0);
	cr_assert_eq(r.ncarves, 0);
	resolved_free(&r);
}

Test(pins, none_inside_a_read_only_or_protected_path_nor_on_a_nested_root)
{
	struct resolved r;
	memset(&r, 0, sizeof(r));
	mkdirs("ws/ro/x/keep");
	mkdirs("ws/prot/y/keep");
	mkdirs("ws/inner/z/keep");
	push(&r.roots, &r.nroots, &r.caproots, "ws");
	push(&r.roots, &r.nroots, &r.caproots, "ws/inner");
	push(&r.carves, &r.ncarves, &r.capcarves, "ws/ro");
	push(&r.gitdirs, &r.ngitdirs, &r.capgitdirs, "ws/prot");
	pin(&r, "ws/ro/x/keep", 0);
	pin(&r, "ws/prot/y/keep", 0);
	pin(&r, "ws/inner/z/keep", 0);
	cr_assert_eq(r.ncarves, 2, "the carve-out and the pin of ws/inner/z");
	cr_assert_null(pin_at(&r, "ws/ro/x"));
	cr_assert_null(pin_at(&r, "ws/prot/y"));
	cr_assert_null(pin_at(&r, "ws/inner"));
	cr_assert(pin_at(&r, "ws/inner/z") && pin_at(&r, "ws/inner/z")->pin);
	resolved_free(&r);
}

Test(pins, a_link_on_the_way_is_refused)
{
	struct resolved r;
	struct cordon_err e = { 0 };
	char path[PATH_MAX], link[PATH_MAX];
	memset(&r, 0, sizeof(r));
	mkdirs("ws/real/keep");
	push(&r.roots, &r.nroots, &r.caproots, "ws");
	under(link, "ws/swapped");
	cr_assert_eq(symlink("real", link), 0);
	under(path, "ws/swapped/keep");
	cr_assert_lt(pins_add_above(&r, path, 0, &e), 0);
	cr_assert_eq(r.ncarves, 0);
	resolved_free(&r);
}

Test(pins, full_write_pins_up_to_the_root_directory)
{
	struct resolved r;
	memset(&r, 0, sizeof(r));
	mkdirs("fw/keep");
	pin(&r, "fw/keep", 1);
	cr_assert(pin_at(&r, "fw") && pin_at(&r, "fw")->pin);
	char path[PATH_MAX];
	under(path, "fw/keep");
	cr_assert_eq(r.ncarves, (size_t)(path_depth(path) - 1), "one pin per ancestor below /");
	for (size_t i = 0; i < r.ncarves; i++)
		cr_assert(path_is_under(path, r.carves[i].path) && strcmp(path, r.carves[i].path) != 0,
			  "%s is not an ancestor of the path", r.carves[i].path);
	resolved_free(&r);
	memset(&r, 0, sizeof(r));
	pin(&r, "fw/keep", 0);
	cr_assert_eq(r.ncarves, 0, "without --full-write and no root, nothing");
	resolved_free(&r);
}

/* resolve pins each root nested in another the same way: the directories
 * between the two, never the outer root, the nested root itself, or a
 * directory of the outer root that holds no nested root. */
Test(pins, between_a_root_and_a_root_nested_in_it)
{
	struct resolved r;
	memset(&r, 0, sizeof(r));
	mkdirs("ws/a/b/R1/c/R2");
	mkdirs("ws/free/x");
	push(&r.roots, &r.nroots, &r.caproots, "ws");
	push(&r.roots, &r.nroots, &r.caproots, "ws/a/b/R1");
	push(&r.roots, &r.nroots, &r.caproots, "ws/a/b/R1/c/R2");
	pin(&r, "ws/a/b/R1", 0);
	pin(&r, "ws/a/b/R1/c/R2", 0);
	pin(&r, "ws", 0);
	cr_assert_eq(r.ncarves, 3, "ws/a, ws/a/b and ws/a/b/R1/c");
	cr_assert(pin_at(&r, "ws/a") && pin_at(&r, "ws/a/b") && pin_at(&r, "ws/a/b/R1/c"));
	cr_assert_null(pin_at(&r, "ws/a/b/R1"), "a root is a mount point already");
	cr_assert_null(pin_at(&r, "ws/free"));
	resolved_free(&r);
}
