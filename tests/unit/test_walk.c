/* test_walk.c: walk_open follows root's links only, names the first other
 * link it meets, and otherwise opens what open(2) would. */
#include <criterion/criterion.h>

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "plan/walk.h"

static char dir[64];

static void setup(void)
{
	(void)snprintf(dir, sizeof(dir), "/var/tmp/cordon-walk.XXXXXX");
	cr_assert_not_null(mkdtemp(dir));
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *f)
{
	(void)st;
	(void)flag;
	(void)f;
	(void)remove(path); /* best effort: a scratch directory */
	return 0;
}

static void teardown(void)
{
	(void)nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

static void at(char *out, const char *name)
{
	(void)snprintf(out, PATH_MAX, "%s/%s", dir, name);
}

static void same_object(int fd, const char *path)
{
	struct stat a, b;
	cr_assert_eq(fstat(fd, &a), 0);
	cr_assert_eq(stat(path, &b), 0);
	cr_assert(a.st_dev == b.st_dev && a.st_ino == b.st_ino, "%s", path);
}

TestSuite(walk, .init = setup, .fini = teardown);

Test(walk, plain_path_dot_and_dotdot)
{
	char p[PATH_MAX], q[PATH_MAX];
	struct walk_link bad;
	at(p, "a/b");
	at(q, "a");
	cr_assert_eq(mkdir(q, 0700), 0);
	cr_assert_eq(mkdir(p, 0700), 0);
	at(q, "a/./b/../b//");
	int fd = walk_open(q, WALK_ROOT_LINKS, &bad);
	cr_assert_geq(fd, 0);
	same_object(fd, p);
	close(fd);
	at(q, "a/missing");
	cr_assert_eq(walk_open(q, WALK_ROOT_LINKS, &bad), -ENOENT);
}

Test(walk, links_by_owner)
{
	char tgt[PATH_MAX], lnk[PATH_MAX], via[PATH_MAX];
	struct walk_link bad;
	at(tgt, "t");
	at(lnk, "l");
	cr_assert_eq(mkdir(tgt, 0700), 0);
	cr_assert_eq(symlink("t", lnk), 0); /* relative target */
	at(via, "l/.");
	if (geteuid() == 0) {
		int fd = walk_open(via, WALK_ROOT_LINKS, &bad);
		cr_assert_geq(fd, 0, "a root-owned link is followed");
		same_object(fd, tgt);
		close(fd);
		cr_assert_eq(lchown(lnk, 1001, 1001), 0);
	}
	memset(&bad, 0, sizeof(bad));
	cr_assert_eq(walk_open(via, WALK_ROOT_LINKS, &bad), -EPERM);
	cr_assert_str_eq(bad.path, lnk, "the message names the link as walked");
	cr_assert_neq(bad.owner, 0);
}

Test(walk, absolute_root_link_and_loop)
{
	struct walk_link bad;
	struct stat st;
	/* /var/run is root's link to /run on Debian: followed. */
	if (lstat("/var/run", &st) == 0 && S_ISLNK(st.st_mode) && st.st_uid == 0) {
		int fd = walk_open("/var/run/..", WALK_ROOT_LINKS, &bad);
		cr_assert_geq(fd, 0);
		same_object(fd, "/");
		close(fd);
	}
	if (geteuid() == 0) {
		char a[PATH_MAX], b[PATH_MAX];
		at(a, "x");
		at(b, "y");
		cr_assert_eq(symlink(b, a), 0);
		cr_assert_eq(symlink(a, b), 0);
		cr_assert_eq(walk_open(a, WALK_ROOT_LINKS, &bad), -ELOOP);
	}
}

/* A root caller's writable roots: a root-owned link deeper than /, /usr and
 * /var is refused as not the system's (a sandbox run as root owns the links
 * it plants); the same link is followed for everyone else's roots. */
Test(walk, system_links_only_where_the_system_keeps_them)
{
	char tgt[PATH_MAX], lnk[PATH_MAX], via[PATH_MAX];
	struct walk_link bad;
	at(tgt, "t");
	at(lnk, "l");
	cr_assert_eq(mkdir(tgt, 0700), 0);
	cr_assert_eq(symlink("t", lnk), 0);
	at(via, "l/.");
	if (geteuid() == 0) {
		memset(&bad, 0, sizeof(bad));
		cr_assert_eq(walk_open(via, WALK_SYSTEM_LINKS, &bad), -EPERM);
		cr_assert(bad.not_system, "refused for where it lies, not for its owner");
		cr_assert_str_eq(bad.path, lnk);
		int fd = walk_open(via, WALK_ROOT_LINKS, &bad);
		cr_assert_geq(fd, 0, "control: followed where ownership decides");
		close(fd);
	}
	struct stat st;
	if (lstat("/var/run", &st) == 0 && S_ISLNK(st.st_mode) && st.st_uid == 0) {
		int fd = walk_open("/var/run/..", WALK_SYSTEM_LINKS, &bad);
		cr_assert_geq(fd, 0, "control: /var/run is the system's own");
		close(fd);
	}
}

Test(walk, system_link_dirs)
{
	cr_assert(walk_system_link_dir(""));
	cr_assert(walk_system_link_dir("/"));
	cr_assert(walk_system_link_dir("/usr"));
	cr_assert(walk_system_link_dir("/var"));
	cr_assert_not(walk_system_link_dir("/var/tmp"));
	cr_assert_not(walk_system_link_dir("/home/me/proj"));
	cr_assert_not(walk_system_link_dir("/usr/local/src"));
	cr_assert_not(walk_system_link_dir("/variable"));
}
