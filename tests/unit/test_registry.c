/* test_registry.c: the registry directory itself, in a scratch
 * $XDG_STATE_HOME: creation, refusals, its own handles and its count. */
#include "registry_scratch.h"
#include <sys/file.h>

TestSuite(registry, .init = scratch_init, .fini = scratch_fini);

Test(registry, created_0700_and_opened)
{
	struct registry reg = REGISTRY_INIT;
	struct cordon_err e = { 0 };
	char want[PATH_MAX];
	sub(want, "state/cordon/registry");
	cr_assert_eq(registry_open(&reg, &e), 0, "%s", e.msg);
	cr_assert_str_eq(reg.path, want);
	struct stat st;
	cr_assert_eq(stat(want, &st), 0);
	cr_assert_eq(st.st_mode & 07777, 0700);
	cr_assert_eq(st.st_uid, geteuid());
	cr_assert_eq(reg.dev, st.st_dev);
	cr_assert_eq(reg.ino, st.st_ino);
	cr_assert_eq(reg.anc[reg.nanc - 1].ino, st.st_ino);
	cr_assert_eq(reg.anc[0].off, 0);
	registry_close(&reg);

	/* A registry someone opened up is brought back to 0700. */
	cr_assert_eq(chmod(want, 0755), 0);
	cr_assert_eq(registry_open(&reg, &e), 0, "%s", e.msg);
	cr_assert_eq(stat(want, &st), 0);
	cr_assert_eq(st.st_mode & 07777, 0700);
	registry_close(&reg);
}

Test(registry, symlink_component_is_refused)
{
	char real[PATH_MAX], link[PATH_MAX];
	sub(real, "real");
	sub(link, "state");
	cr_assert_eq(mkdir(real, 0700), 0);
	cr_assert_eq(symlink(real, link), 0);
	struct registry reg = REGISTRY_INIT;
	struct cordon_err e = { 0 };
	cr_assert_eq(registry_open(&reg, &e), -ELOOP);
	cr_assert_not(reg.absent, "a refusal, not a missing registry");
	cr_assert(strstr(e.msg, "symbolic link"), "%s", e.msg);
	registry_close(&reg);

	/* The registry itself as a symlink too. */
	cr_assert_eq(unlink(link), 0);
	char cordon[PATH_MAX], regp[PATH_MAX];
	sub(cordon, "state/cordon");
	sub(regp, "state/cordon/registry");
	cr_assert_eq(mkdir(link, 0700), 0);
	cr_assert_eq(mkdir(cordon, 0700), 0);
	cr_assert_eq(symlink(real, regp), 0);
	cr_assert_eq(registry_open(&reg, &e), -ELOOP);
	cr_assert_not(reg.absent, "a refusal, not a missing registry");
	registry_close(&reg);
}

Test(registry, foreign_owner_is_refused)
{
	if (geteuid() != 0)
		cr_skip_test("needs root to give a directory away");
	char state[PATH_MAX], regp[PATH_MAX];
	sub(state, "state");
	sub(regp, "state/cordon/registry");
	struct registry reg = REGISTRY_INIT;
	struct cordon_err e = { 0 };
	cr_assert_eq(registry_open(&reg, &e), 0, "%s", e.msg);
	registry_close(&reg);

	cr_assert_eq(chown(regp, 65534, 65534), 0);
	cr_assert_eq(registry_open(&reg, &e), -EPERM);
	cr_assert_not(reg.absent, "a refusal, not a missing registry");
	cr_assert(strstr(e.msg, "owned by someone else"), "%s", e.msg);
	registry_close(&reg);
	cr_assert_eq(chown(regp, 0, 0), 0);

	cr_assert_eq(chown(state, 65534, 65534), 0);
	cr_assert_eq(registry_open(&reg, &e), -EPERM);
	cr_assert(strstr(e.msg, "owned by someone else"), "%s", e.msg);
	registry_close(&reg);
}

Test(registry, world_writable_parent_is_refused)
{
	char state[PATH_MAX];
	sub(state, "state");
	cr_assert_eq(mkdir(state, 0700), 0);
	cr_assert_eq(chmod(state, 0777), 0);
	struct registry reg = REGISTRY_INIT;
	struct cordon_err e = { 0 };
	cr_assert_eq(registry_open(&reg, &e), -EPERM);
	cr_assert(strstr(e.msg, "writable by everyone"), "%s", e.msg);
	registry_close(&reg);
	cr_assert_eq(chmod(state, 01777), 0);
	cr_assert_eq(registry_open(&reg, &e), 0, "sticky is fine: %s", e.msg);
	registry_close(&reg);
}

Test(registry, missing_home_parent_is_not_created)
{
	char state[PATH_MAX];
	sub(state, "no/such/state");
	setenv("XDG_STATE_HOME", state, 1);
	struct registry reg = REGISTRY_INIT;
	struct cordon_err e = { 0 };
	cr_assert_eq(registry_open(&reg, &e), -ENOENT);
	cr_assert(reg.absent, "a missing registry, not a refusal");
	registry_close(&reg);
}


Test(registry, a_handle_of_its_own_and_the_count)
{
	struct registry reg = REGISTRY_INIT, own;
	struct cordon_err e = { 0 };
	cr_assert_eq(registry_open(&reg, &e), 0, "%s", e.msg);
	cr_assert_eq(registry_facts(&reg, &e), 0, "%s", e.msg);
	cr_assert_eq(registry_dup(&reg, &own, &e), 0, "%s", e.msg);
	cr_assert_neq(own.dirfd, reg.dirfd);
	cr_assert_neq(own.lockfd, reg.lockfd);
	cr_assert_str_eq(own.path, reg.path);
	cr_assert_str_eq(own.boot, reg.boot);
	/* Its lock is its own: held by one handle, the other cannot take it. */
	cr_assert_eq(registry_lock(&reg, &e), 0);
	cr_assert_eq(flock(own.lockfd, LOCK_EX | LOCK_NB), -1);
	cr_assert_eq(errno, EWOULDBLOCK);
	size_t n = 99;
	cr_assert_eq(registry_count(&own, &n, &e), 0, "%s", e.msg);
	cr_assert_eq(n, 0);
	char name[REC_NAME_MAX];
	const char *const none[] = { NULL };
	plant_record(&reg, getpid(), 1, none, name);
	cr_assert_eq(registry_count(&own, &n, &e), 0, "%s", e.msg);
	cr_assert_eq(n, 1);
	registry_close(&own);
	registry_close(&reg);
}
