/* test_linkwalk.c: following another user's link at a protected name by
 * hand (plan/linkwalk.h), over a fake filesystem: the /tmp of --tmp host
 * (root's, sticky, 1777) as the writable root, user 1000 the caller, 2000
 * the other user. */
#include <criterion/criterion.h>

#include <errno.h>
#include <limits.h>
#include <string.h>

#include "plan/linkwalk.h"

struct ent {
	const char *path;
	char type;         /* d f l s(ocket) */
	uid_t uid;
	mode_t perm;
	const char *target;
	int writable;      /* the caller may create names in it */
};

static struct ent fs_tab[32];
static size_t nfs;
static struct linkwalk w;
static const char *roots[2] = { "/tmp", NULL };
static struct linkwalk_in in;

static void ent(const char *path, char type, uid_t uid, mode_t perm, const char *target,
		int writable)
{
	fs_tab[nfs++] = (struct ent){ path, type, uid, perm, target, writable };
}

static void init(void)
{
	nfs = 0;
	memset(&w, 0, sizeof(w));
	ent("/", 'd', 0, 0755, NULL, 0);
	ent("/tmp", 'd', 0, 01777, NULL, 1);
	ent("/etc", 'd', 0, 0755, NULL, 0);
	in = (struct linkwalk_in){ .link = "/tmp/.codex", .roots = roots, .nroots = 1,
				   .uid = 1000 };
}

static void fini(void)
{
	linkwalk_free(&w);
}

TestSuite(linkwalk, .init = init, .fini = fini);

static const struct ent *find(const char *path)
{
	for (size_t i = 0; i < nfs; i++)
		if (strcmp(fs_tab[i].path, path) == 0)
			return &fs_tab[i];
	return NULL;
}

static int f_lstat(void *ctx, const char *path, struct stat *st)
{
	(void)ctx;
	const struct ent *e = find(path);
	if (!e)
		return -ENOENT;
	memset(st, 0, sizeof(*st));
	st->st_dev = 7;
	st->st_ino = (ino_t)(e - fs_tab) + 100;
	st->st_uid = e->uid;
	st->st_mode = e->perm | (e->type == 'd' ? S_IFDIR : e->type == 'l' ? S_IFLNK :
				 e->type == 's' ? S_IFSOCK : S_IFREG);
	return 0;
}

static ssize_t f_readlink(void *ctx, const char *path, char *buf, size_t len)
{
	(void)ctx;
	const struct ent *e = find(path);
	if (!e)
		return -ENOENT;
	if (e->type != 'l')
		return -EINVAL;
	size_t n = strlen(e->target);
	memcpy(buf, e->target, n < len ? n : len);
	return (ssize_t)(n < len ? n : len);
}

static int f_writable(void *ctx, const char *path)
{
	(void)ctx;
	const struct ent *e = find(path);
	return e && e->writable;
}

static const struct linkwalk_fs fake = { NULL, f_lstat, f_readlink, f_writable };

static int walk(void)
{
	return linkwalk(&in, &fake, &w);
}

static void step(size_t i, enum linkwalk_kind kind, const char *path)
{
	cr_assert_gt(w.n, i, "step %zu missing (have %zu)", i, w.n);
	cr_assert_eq(w.v[i].kind, kind, "step %zu (%s): kind %d", i, w.v[i].path, w.v[i].kind);
	cr_assert_str_eq(w.v[i].path, path);
}

/* The reported case: /tmp/.codex -> /tmp/x, x missing. */
Test(linkwalk, a_missing_target_in_the_root_is_watched)
{
	ent("/tmp/.codex", 'l', 2000, 0777, "/tmp/x", 1);
	cr_assert_eq(walk(), 0);
	cr_assert_eq(w.n, 1);
	step(0, LINKWALK_MISSING, "/tmp/x");
	cr_assert_eq(w.v[0].dir_ino, 101, "watched in /tmp itself");
	linkwalk_free(&w);
	fs_tab[3].target = "x"; /* relative: the same place */
	cr_assert_eq(walk(), 0);
	cr_assert_eq(w.n, 1);
	step(0, LINKWALK_MISSING, "/tmp/x");
}

Test(linkwalk, a_target_outside_every_root_needs_nothing)
{
	ent("/tmp/.codex", 'l', 2000, 0777, "/etc", 1);
	cr_assert_eq(walk(), 0);
	cr_assert_eq(w.n, 0);
	linkwalk_free(&w);
	fs_tab[3].target = "/nonexistent/x";
	cr_assert_eq(walk(), 0);
	cr_assert_eq(w.n, 0, "a name missing outside every root can never appear");
}

/* Another user's links in sticky /tmp cannot be swapped by the caller:
 * only the missing end matters. */
Test(linkwalk, a_chain_ends_in_its_first_missing_name)
{
	ent("/tmp/.codex", 'l', 2000, 0777, "/tmp/a", 1);
	ent("/tmp/a", 'l', 2000, 0777, "b", 1);
	cr_assert_eq(walk(), 0);
	cr_assert_eq(w.n, 1);
	step(0, LINKWALK_MISSING, "/tmp/b");
}

/* The caller's own link on the way could be swapped: watched as found. */
Test(linkwalk, the_callers_link_on_the_way_is_watched_as_found)
{
	ent("/tmp/.codex", 'l', 2000, 0777, "/tmp/a", 1);
	ent("/tmp/a", 'l', 1000, 0777, "/etc", 1);
	cr_assert_eq(walk(), 0);
	cr_assert_eq(w.n, 1);
	step(0, LINKWALK_ON_THE_WAY, "/tmp/a");
	cr_assert_eq(w.v[0].ino, 104);
}

/* /tmp/x/y: the first missing component, /tmp/x, is what is watched. */
Test(linkwalk, a_nested_missing_name_watches_its_first_missing_component)
{
	ent("/tmp/.codex", 'l', 2000, 0777, "/tmp/x/y/z", 1);
	cr_assert_eq(walk(), 0);
	cr_assert_eq(w.n, 1);
	step(0, LINKWALK_MISSING, "/tmp/x");
}

Test(linkwalk, an_existing_target_is_bound_and_a_writable_directory_on_the_way_watched)
{
	ent("/tmp/.codex", 'l', 2000, 0777, "/tmp/d/../d/./x", 1);
	ent("/tmp/d", 'd', 1000, 0755, NULL, 1);
	ent("/tmp/d/x", 'd', 1000, 0755, NULL, 1);
	cr_assert_eq(walk(), 0);
	cr_assert_eq(w.n, 2);
	step(0, LINKWALK_ON_THE_WAY, "/tmp/d");
	step(1, LINKWALK_TARGET, "/tmp/d/x");
	cr_assert(w.v[1].is_dir);
}

/* Another user's directory the caller cannot write: nothing in it can
 * change, only the end is bound (read-only already, and so it stays). */
Test(linkwalk, another_users_directory_yields_only_the_target)
{
	ent("/tmp/.codex", 'l', 2000, 0777, "/tmp/u/x", 1);
	ent("/tmp/u", 'd', 2000, 0755, NULL, 0);
	ent("/tmp/u/x", 'f', 2000, 0644, NULL, 0);
	cr_assert_eq(walk(), 0);
	cr_assert_eq(w.n, 1);
	step(0, LINKWALK_TARGET, "/tmp/u/x");
	linkwalk_free(&w);
	fs_tab[5].path = "/tmp/u/other";
	cr_assert_eq(walk(), 0);
	cr_assert_eq(w.n, 0, "missing where the caller cannot create it");
}

Test(linkwalk, a_root_caller_owns_sticky_tmp_and_so_watches_other_users_links)
{
	in.uid = 0;
	ent("/tmp/.codex", 'l', 2000, 0777, "/tmp/a", 1);
	ent("/tmp/a", 'l', 2000, 0777, "/etc", 1);
	cr_assert_eq(walk(), 0);
	cr_assert_eq(w.n, 1);
	step(0, LINKWALK_ON_THE_WAY, "/tmp/a");
}

/* The root itself (`.`, `/tmp`): bound read-only as a whole.  Above it
 * (`..`, `/`): nothing (linkwalk.h says why). */
Test(linkwalk, the_root_itself_is_bound_what_lies_above_it_is_not)
{
	ent("/tmp/.codex", 'l', 2000, 0777, ".", 1);
	cr_assert_eq(walk(), 0);
	cr_assert_eq(w.n, 1);
	step(0, LINKWALK_TARGET, "/tmp");
	linkwalk_free(&w);
	fs_tab[3].target = "/tmp/";
	cr_assert_eq(walk(), 0);
	step(0, LINKWALK_TARGET, "/tmp");
	linkwalk_free(&w);
	fs_tab[3].target = "..";
	cr_assert_eq(walk(), 0);
	cr_assert_eq(w.n, 0);
	linkwalk_free(&w);
	fs_tab[3].target = "../../..";
	cr_assert_eq(walk(), 0);
	cr_assert_eq(w.n, 0);
}

/* Above one root (the workspace /tmp/p/ws) but inside another (/tmp): the
 * command can write all of it, so all of it is bound. */
Test(linkwalk, above_one_root_but_inside_another_is_bound)
{
	static const char *const two[] = { "/tmp", "/tmp/p/ws" };
	in.roots = two;
	in.nroots = 2;
	ent("/tmp/.codex", 'l', 2000, 0777, "p", 1);
	ent("/tmp/p", 'd', 1000, 0755, NULL, 1);
	ent("/tmp/p/ws", 'd', 1000, 0755, NULL, 1);
	cr_assert_eq(walk(), 0);
	cr_assert_eq(w.n, 1);
	step(0, LINKWALK_TARGET, "/tmp/p");
}

Test(linkwalk, full_write_binds_targets_anywhere_but_the_sandbox_own)
{
	static const char *const outside[] = { "/dev", "/proc", "/sys" };
	in.full_write = 1;
	in.outside = outside;
	in.noutside = 3;
	ent("/tmp/.codex", 'l', 2000, 0777, "/etc/x", 1);
	ent("/etc/x", 'f', 0, 0644, NULL, 0);
	cr_assert_eq(walk(), 0);
	cr_assert_eq(w.n, 1);
	step(0, LINKWALK_TARGET, "/etc/x");
	linkwalk_free(&w);
	fs_tab[3].target = "/dev/null";
	ent("/dev", 'd', 0, 0755, NULL, 1);
	ent("/dev/null", 's', 0, 0666, NULL, 0);
	cr_assert_eq(walk(), 0);
	cr_assert_eq(w.n, 0);
}

/* A socket or device at the end: nothing to bind, watched where the
 * caller could replace it. */
Test(linkwalk, a_special_file_at_the_end_is_watched_as_found)
{
	ent("/tmp/.codex", 'l', 2000, 0777, "/tmp/s", 1);
	ent("/tmp/s", 's', 1000, 0777, NULL, 1);
	cr_assert_eq(walk(), 0);
	cr_assert_eq(w.n, 1);
	step(0, LINKWALK_ON_THE_WAY, "/tmp/s");
}

/* A file in the middle ends the way (ENOTDIR), but the caller's could be
 * replaced by a directory. */
Test(linkwalk, a_file_on_the_way_ends_it)
{
	ent("/tmp/.codex", 'l', 2000, 0777, "/tmp/f/x", 1);
	ent("/tmp/f", 'f', 1000, 0644, NULL, 1);
	cr_assert_eq(walk(), 0);
	cr_assert_eq(w.n, 1);
	step(0, LINKWALK_ON_THE_WAY, "/tmp/f");
}

/* A loop: the kernel gives ELOOP after 40 links, so does the walk, and
 * without refusing (any local user could make one). */
Test(linkwalk, a_loop_ends_without_failing)
{
	ent("/tmp/.codex", 'l', 2000, 0777, "/tmp/l", 1);
	ent("/tmp/l", 'l', 1000, 0777, "l", 1);
	cr_assert_eq(walk(), 0);
	cr_assert_eq(w.n, 1, "the caller's link, once");
	step(0, LINKWALK_ON_THE_WAY, "/tmp/l");
}

Test(linkwalk, a_link_gone_while_followed_is_eagain)
{
	cr_assert_eq(walk(), -EAGAIN);
}

/* Link text the walk cannot hold whole: refused, never guessed. */
Test(linkwalk, a_path_too_long_fails_closed)
{
	static char target[PATH_MAX + 8];
	memset(target, 'a', sizeof(target) - 1);
	target[0] = '/';
	ent("/tmp/.codex", 'l', 2000, 0777, target, 1);
	cr_assert_eq(walk(), -ENAMETOOLONG);
}
