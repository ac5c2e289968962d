/* test_bwrap_find.c: bwrap_judge, the pure decision on one bwrap candidate. */
#include <criterion/criterion.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "launch/bwrap_find.h"

struct cand {
	struct bwrap_facts f;
	struct stat dirs[4];   /* /usr/bin, /usr, / */
	char why[160];
};

static struct stat st_of(mode_t mode, uid_t uid)
{
	struct stat s;
	memset(&s, 0, sizeof(s));
	s.st_mode = mode;
	s.st_uid = uid;
	s.st_gid = 0;
	return s;
}

/* A good candidate: /usr/bin/bwrap, root:root 0755, in root-owned 0755 dirs. */
static void good(struct cand *c)
{
	memset(c, 0, sizeof(*c));
	c->f.path = "/usr/bin/bwrap";
	c->f.file = st_of(S_IFREG | 0755, 0);
	c->dirs[0] = st_of(S_IFDIR | 0755, 0);
	c->dirs[1] = st_of(S_IFDIR | 0755, 0);
	c->dirs[2] = st_of(S_IFDIR | 0755, 0);
	c->f.dirs = c->dirs;
	c->f.ndirs = 3;
}

static int judge(struct cand *c)
{
	memset(c->why, 0, sizeof(c->why));
	return bwrap_judge(&c->f, c->why, sizeof(c->why));
}

static void expect_refused(struct cand *c, const char *needle)
{
	cr_assert_eq(judge(c), -EPERM, "accepted, wanted a refusal about '%s'", needle);
	cr_assert_not_null(strstr(c->why, needle), "want '%s' in: %s", needle, c->why);
}

Test(bwrap_judge, accepts_root_owned_0755)
{
	struct cand c;
	good(&c);
	cr_assert_eq(judge(&c), 0, "refused: %s", c.why);
	c.f.file.st_mode = S_IFREG | 0700;
	cr_assert_eq(judge(&c), 0, "refused 0700: %s", c.why);
	/* Sticky or not, a root-owned 0755 dir is fine; a group other than
	 * root does not matter when the group cannot write. */
	c.dirs[0].st_gid = 100;
	c.f.file.st_gid = 100;
	cr_assert_eq(judge(&c), 0, "refused: %s", c.why);
}

Test(bwrap_judge, refuses_setuid_root)
{
	struct cand c;
	good(&c);
	c.f.file.st_mode = S_IFREG | S_ISUID | 0755;
	expect_refused(&c, "setuid root");
}

Test(bwrap_judge, refuses_non_executable)
{
	struct cand c;
	good(&c);
	c.f.file.st_mode = S_IFREG | 0644;
	expect_refused(&c, "not an executable file");
	good(&c);
	c.f.file.st_mode = S_IFDIR | 0755;
	expect_refused(&c, "not an executable file");
	good(&c);
	c.f.file.st_mode = S_IFLNK | 0777;
	expect_refused(&c, "not an executable file");
}

Test(bwrap_judge, refuses_file_owned_by_a_user)
{
	struct cand c;
	good(&c);
	c.f.file.st_uid = 1000;
	expect_refused(&c, "not owned by root");
	/* setuid to a user is no better. */
	c.f.file.st_mode = S_IFREG | S_ISUID | 0755;
	expect_refused(&c, "not owned by root");
}

Test(bwrap_judge, refuses_group_or_other_writable_file)
{
	struct cand c;
	good(&c);
	c.f.file.st_mode = S_IFREG | 0775;
	expect_refused(&c, "writable by others");
	good(&c);
	c.f.file.st_mode = S_IFREG | 0757;
	expect_refused(&c, "writable by others");
}

Test(bwrap_judge, refuses_each_bad_ancestor)
{
	for (size_t i = 0; i < 3; i++) {
		struct cand c;
		good(&c);
		c.dirs[i].st_mode = S_IFDIR | 0775;
		expect_refused(&c, "a directory above it");
		good(&c);
		c.dirs[i].st_mode = S_IFDIR | 0757;
		expect_refused(&c, "a directory above it");
		good(&c);
		c.dirs[i].st_uid = 1000;
		expect_refused(&c, "a directory above it");
	}
}

Test(bwrap_judge, refuses_sticky_world_writable_dir)
{
	/* /tmp/bwrap: root-owned file in root-owned 1777 /tmp. */
	struct cand c;
	good(&c);
	c.f.path = "/tmp/bwrap";
	c.dirs[0] = st_of(S_IFDIR | 01777, 0);
	c.dirs[1] = st_of(S_IFDIR | 0755, 0);
	c.f.ndirs = 2;
	expect_refused(&c, "a directory above it");
}

Test(bwrap_judge, refuses_inside_a_writable_root)
{
	struct rpath roots[2];
	memset(roots, 0, sizeof(roots));
	roots[0].path = "/srv/other";
	roots[1].path = "/a/b";
	struct cand c;
	good(&c);
	c.f.path = "/a/b/bwrap";
	c.f.roots = roots;
	c.f.nroots = 2;
	expect_refused(&c, "inside the writable root /a/b");
	c.f.path = "/a/b/deep/bin/bwrap";
	expect_refused(&c, "inside the writable root /a/b");
	roots[1].path = "/";
	c.f.path = "/usr/bin/bwrap";
	expect_refused(&c, "inside the writable root /");
}

Test(bwrap_judge, prefix_sharing_root_is_not_containing)
{
	struct rpath root;
	memset(&root, 0, sizeof(root));
	root.path = "/a/b";
	struct cand c;
	good(&c);
	c.f.path = "/a/bc/bwrap";
	c.f.roots = &root;
	c.f.nroots = 1;
	cr_assert_eq(judge(&c), 0, "refused: %s", c.why);
}

Test(bwrap_judge, reason_fits_small_buffer)
{
	struct cand c;
	good(&c);
	c.f.file.st_uid = 1;
	char why[8];
	memset(why, 'x', sizeof(why));
	cr_assert_eq(bwrap_judge(&c.f, why, sizeof(why)), -EPERM);
	cr_assert_eq(why[sizeof(why) - 1], '\0');
}

/* ---- bwrap_find with $CORDON_BWRAP (each test runs in its own process) ---- */

Test(bwrap_find, env_must_be_absolute)
{
	cr_assert_eq(setenv("CORDON_BWRAP", "bwrap", 1), 0);
	struct bwrap_bin b;
	struct cordon_err e;
	memset(&e, 0, sizeof(e));
	cr_assert_eq(bwrap_find(NULL, 0, &b, &e), -EINVAL);
	cr_assert_eq(strncmp(e.msg, "CORDON_BWRAP=bwrap", 18), 0, "%s", e.msg);
	cr_assert_eq(e.exit_code, EXIT_CORDON_FAILED);
}

Test(bwrap_find, env_missing_file_refused)
{
	cr_assert_eq(setenv("CORDON_BWRAP", "/nonexistent/cordon-test/bwrap", 1), 0);
	struct bwrap_bin b;
	struct cordon_err e;
	memset(&e, 0, sizeof(e));
	cr_assert_eq(bwrap_find(NULL, 0, &b, &e), -EPERM);
	cr_assert_not_null(strstr(e.msg, "/nonexistent/cordon-test/bwrap"), "%s", e.msg);
}

Test(bwrap_find, env_file_in_writable_dir_refused)
{
	/* A root-owned (when run as root) 0755 file in a world-writable
	 * directory, or a user's file: refused either way. */
	char dir[] = "/tmp/cordon-test-bwrap-XXXXXX";
	cr_assert_not_null(mkdtemp(dir));
	cr_assert_eq(chmod(dir, 0777), 0);
	char path[64];
	snprintf(path, sizeof(path), "%s/bwrap", dir);
	int fd = open(path, O_CREAT | O_WRONLY | O_CLOEXEC, 0755);
	cr_assert_geq(fd, 0);
	cr_assert_eq(fchmod(fd, 0755), 0);
	close(fd);
	cr_assert_eq(setenv("CORDON_BWRAP", path, 1), 0);
	struct bwrap_bin b;
	struct cordon_err e;
	memset(&e, 0, sizeof(e));
	int r = bwrap_find(NULL, 0, &b, &e);
	unlink(path);
	rmdir(dir);
	cr_assert_eq(r, -EPERM, "a bwrap in a world-writable directory was accepted");
	cr_assert_not_null(strstr(e.msg, path), "%s", e.msg);
	cr_assert_not_null(strstr(e.msg, getuid() == 0 ? "a directory above it" : "not owned by root"),
			   "%s", e.msg);
}

Test(bwrap_find, env_inside_writable_root_refused)
{
	struct stat st;
	if (stat("/usr/bin/bwrap", &st) < 0)
		cr_skip_test("no /usr/bin/bwrap");
	struct rpath root;
	memset(&root, 0, sizeof(root));
	root.path = "/usr";
	cr_assert_eq(setenv("CORDON_BWRAP", "/usr/bin/bwrap", 1), 0);
	struct bwrap_bin b;
	struct cordon_err e;
	memset(&e, 0, sizeof(e));
	cr_assert_eq(bwrap_find(&root, 1, &b, &e), -EPERM);
	cr_assert_not_null(strstr(e.msg, "inside the writable root /usr"), "%s", e.msg);
}

Test(bwrap_find, env_system_bwrap_accepted)
{
	struct stat st;
	if (stat("/usr/bin/bwrap", &st) < 0)
		cr_skip_test("no /usr/bin/bwrap");
	cr_assert_eq(setenv("CORDON_BWRAP", "/usr/bin/bwrap", 1), 0);
	struct bwrap_bin b;
	struct cordon_err e;
	memset(&e, 0, sizeof(e));
	cr_assert_eq(bwrap_find(NULL, 0, &b, &e), 0, "%s", e.msg);
	cr_assert_geq(b.fd, 0);
	cr_assert_str_eq(b.path, "/usr/bin/bwrap");
	cr_assert_eq(b.st.st_ino, st.st_ino);
	int fl = fcntl(b.fd, F_GETFD);
	cr_assert(fl >= 0 && (fl & FD_CLOEXEC), "the kept descriptor must be CLOEXEC");
	close(b.fd);
}
