/* test_fstype.c: pseudo filesystems are told by magic number (devtmpfs by
 * its mount), ordinary ones pass. */
#include <criterion/criterion.h>

#include <fcntl.h>
#include <limits.h>
#include <string.h>
#include <unistd.h>

#include "plan/fstype.h"

Test(fstype, names_from_magic)
{
	cr_assert_str_eq(fstype_pseudo_name(0x9fa0, 0), "proc");
	cr_assert_str_eq(fstype_pseudo_name(0x62656572, 0), "sysfs");
	cr_assert_str_eq(fstype_pseudo_name(0x63677270, 0), "cgroup2");
	cr_assert_str_eq(fstype_pseudo_name(0xde5e81e4, 0), "efivarfs");
	cr_assert_str_eq(fstype_pseudo_name(0x01021994, 1), "devtmpfs");
	cr_assert_null(fstype_pseudo_name(0x01021994, 0), "tmpfs is ordinary");
	cr_assert_null(fstype_pseudo_name(0xef53, 0), "ext4 is ordinary");
	cr_assert_null(fstype_pseudo_name(0x9123683e, 0), "btrfs is ordinary");
}

Test(fstype, opened_objects)
{
	int err;
	struct fstype_mounts m;
	cr_assert_eq(fstype_mounts_load(&m), 0);
	int fd = open("/proc", O_PATH | O_CLOEXEC);
	cr_assert_geq(fd, 0);
	cr_assert_str_eq(fstype_pseudo(fd, &m, &err), "proc");
	close(fd);
	fd = open("/sys", O_PATH | O_CLOEXEC);
	if (fd >= 0) {
		cr_assert_str_eq(fstype_pseudo(fd, &m, &err), "sysfs");
		close(fd);
	}
	fd = open("/usr", O_PATH | O_CLOEXEC);
	cr_assert_geq(fd, 0);
	cr_assert_null(fstype_pseudo(fd, &m, &err));
	cr_assert_eq(err, 0);
	close(fd);
	fstype_mounts_free(&m);
}

Test(fstype, below)
{
	struct fstype_mounts m;
	const char *point = NULL;
	cr_assert_eq(fstype_mounts_load(&m), 0);
	const char *t = fstype_pseudo_below(&m, "/", &point);
	cr_assert_not_null(t, "/ holds /proc at least");
	cr_assert_not_null(point);
	cr_assert_null(fstype_pseudo_below(&m, "/usr/share/doc", &point));
	fstype_mounts_free(&m);
}

Test(fstype, below_from_a_table)
{
	struct fstype_mount v[] = {
		{ (char *)"/sys", "sysfs", 0 }, { (char *)"/w/root/sub/cg", "cgroup2", 0 },
	};
	struct fstype_mounts m = { .v = v, .n = 2 };
	const char *point = NULL;
	cr_assert_str_eq(fstype_pseudo_below(&m, "/w/root", &point), "cgroup2");
	cr_assert_str_eq(point, "/w/root/sub/cg");
	cr_assert_null(fstype_pseudo_below(&m, "/w/root/sub/cg", &point), "itself is not below");
	cr_assert_null(fstype_pseudo_below(&m, "/w/rootx", &point), "a sibling prefix is not below");
	cr_assert_str_eq(fstype_pseudo_below(&m, "/", &point), "sysfs");
}
