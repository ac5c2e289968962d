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
	int fd = open("/proc", O_PATH | O_CLOEXEC);
	cr_assert_geq(fd, 0);
	cr_assert_str_eq(fstype_pseudo(fd, &err), "proc");
	close(fd);
	fd = open("/sys", O_PATH | O_CLOEXEC);
	if (fd >= 0) {
		cr_assert_str_eq(fstype_pseudo(fd, &err), "sysfs");
		close(fd);
	}
	fd = open("/usr", O_PATH | O_CLOEXEC);
	cr_assert_geq(fd, 0);
	cr_assert_null(fstype_pseudo(fd, &err));
	cr_assert_eq(err, 0);
	close(fd);
}

Test(fstype, below)
{
	char point[PATH_MAX];
	const char *t = fstype_pseudo_below("/", point, sizeof(point));
	cr_assert_not_null(t, "/ holds /proc at least");
	cr_assert_null(fstype_pseudo_below("/usr/share/doc", point, sizeof(point)));
}
