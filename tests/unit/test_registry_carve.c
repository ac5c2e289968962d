/* test_registry_carve.c: what the plan binds so that no writable root
 * reaches the registry: the registry read-only, and a pin for each
 * directory between the root and it (not inside a read-only carve-out). */
#include "registry_scratch.h"
#include "hostpaths/registry_carve.h"
#include "plan/resolve.h"

TestSuite(carve, .init = scratch_init, .fini = scratch_fini);

static void add_root(struct resolved *r, const char *path)
{
	struct rpath p;
	struct cordon_err e = { 0 };
	cr_assert_eq(resolve_path("-w", path, &p, &e), 0, "%s", e.msg);
	cr_assert_eq(rpath_push(&r->roots, &r->nroots, &r->caproots, &p), 0);
}

static const struct rpath *carve_at(const struct resolved *r, const char *path)
{
	for (size_t i = 0; i < r->ncarves; i++)
		if (strcmp(r->carves[i].path, path) == 0)
			return &r->carves[i];
	return NULL;
}

Test(carve, registry_read_only_and_its_ancestors_pinned_under_a_root)
{
	struct registry reg = REGISTRY_INIT;
	struct resolved r;
	struct cordon_err e = { 0 };
	memset(&r, 0, sizeof(r));
	cr_assert_eq(registry_open(&reg, &e), 0, "%s", e.msg);
	char state[PATH_MAX], cordon[PATH_MAX], other[PATH_MAX];
	sub(state, "state");
	sub(cordon, "state/cordon");
	sub(other, "other");
	cr_assert_eq(mkdir(other, 0755), 0);
	add_root(&r, scratch);
	add_root(&r, other);  /* reaches nothing of the registry */
	cr_assert_eq(registry_carve(&r, 0, &reg, &r.carves, &r.ncarves, &r.capcarves, &e), 0, "%s",
		     e.msg);
	cr_assert_eq(r.ncarves, 3);
	const struct rpath *c = carve_at(&r, reg.path);
	cr_assert_not_null(c);
	cr_assert_not(c->pin, "the registry itself is read-only");
	cr_assert_eq(c->ino, reg.ino);
	c = carve_at(&r, state);
	cr_assert(c && c->pin, "%s is not pinned", state);
	c = carve_at(&r, cordon);
	cr_assert(c && c->pin, "%s is not pinned", cordon);
	struct stat st;
	cr_assert_eq(stat(cordon, &st), 0);
	cr_assert_eq(c->ino, st.st_ino);
	cr_assert_geq(c->fd, 0);
	resolved_free(&r);
	registry_close(&reg);
}

Test(carve, no_pin_inside_a_read_only_carve_out)
{
	struct registry reg = REGISTRY_INIT;
	struct resolved r;
	struct cordon_err e = { 0 };
	memset(&r, 0, sizeof(r));
	cr_assert_eq(registry_open(&reg, &e), 0, "%s", e.msg);
	char state[PATH_MAX];
	sub(state, "state");
	add_root(&r, scratch);
	struct rpath ro;
	cr_assert_eq(resolve_path("--read-only", state, &ro, &e), 0, "%s", e.msg);
	cr_assert_eq(rpath_push(&r.carves, &r.ncarves, &r.capcarves, &ro), 0);
	cr_assert_eq(registry_carve(&r, 0, &reg, &r.carves, &r.ncarves, &r.capcarves, &e), 0, "%s",
		     e.msg);
	/* The user's --read-only and the registry: nothing made writable. */
	cr_assert_eq(r.ncarves, 2);
	for (size_t i = 0; i < r.ncarves; i++)
		cr_assert_not(r.carves[i].pin, "%s pinned inside a read-only carve-out",
			      r.carves[i].path);
	resolved_free(&r);
	registry_close(&reg);
}
