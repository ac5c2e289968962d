/* test_protect_quarantine.c: moving a protected name aside under a name nobody can
 * have made in advance. */
#include <criterion/criterion.h>

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <grp.h>
#include <unistd.h>

#include "hostpaths/protect_quarantine.h"

static char base[PATH_MAX];
static int dirfd = -1;

static int rm_one(const char *p, const struct stat *st, int flag, struct FTW *f)
{
	(void)st;
	(void)flag;
	(void)f;
	return remove(p);
}

static void setup(void)
{
	char t[] = "/tmp/cordon-quarantine-XXXXXX";
	cr_assert_not_null(mkdtemp(t));
	(void)snprintf(base, sizeof(base), "%s", t);
	dirfd = open(base, O_PATH | O_DIRECTORY | O_CLOEXEC);
	cr_assert_geq(dirfd, 0);
}

/* Nothing of a test is left in /tmp. */
static void cleanup(void)
{
	if (dirfd >= 0)
		(void)close(dirfd);
	dirfd = -1;
	if (base[0])
		(void)nftw(base, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	base[0] = '\0';
}

TestSuite(quarantine, .init = setup, .fini = cleanup);

static int there(const char *name)
{
	struct stat st;
	return fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0;
}

/* moved is PREFIX followed by 16 lowercase hex digits and nothing else. */
static void assert_random_form(const char *moved, const char *prefix)
{
	size_t pl = strlen(prefix);
	cr_assert_eq(strncmp(moved, prefix, pl), 0, "%s", moved);
	cr_assert_eq(strlen(moved), pl + 16, "%s", moved);
	cr_assert_eq(strspn(moved + pl, "0123456789abcdef"), 16, "%s", moved);
}

Test(quarantine, a_directory_moves_aside_with_its_content)
{
	char moved[NAME_MAX + 1];
	cr_assert_eq(mkdirat(dirfd, ".git", 0700), 0);
	int fd = openat(dirfd, ".git/config", O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
	cr_assert_geq(fd, 0);
	(void)close(fd);
	cr_assert_eq(protect_quarantine_move(dirfd, ".git", moved, sizeof(moved)), 0);
	assert_random_form(moved, ".git.cordon-quarantine-");
	cr_assert(!there(".git"));
	char inside[NAME_MAX + 16];
	(void)snprintf(inside, sizeof(inside), "%s/config", moved);
	cr_assert(there(inside));
}

/* The old scheme named the entry after cordon's pid (-2 ... -99 when
 * taken): all of those made in advance change nothing now. */
Test(quarantine, the_old_predictable_names_taken_change_nothing)
{
	char moved[NAME_MAX + 1], name[NAME_MAX + 1];
	for (int i = 1; i < 100; i++) {
		if (i == 1)
			(void)snprintf(name, sizeof(name), ".git.cordon-quarantine-%d", (int)getpid());
		else
			(void)snprintf(name, sizeof(name), ".git.cordon-quarantine-%d-%d",
				       (int)getpid(), i);
		cr_assert_eq(mkdirat(dirfd, name, 0700), 0);
	}
	cr_assert_eq(mkdirat(dirfd, ".git", 0700), 0);
	cr_assert_eq(protect_quarantine_move(dirfd, ".git", moved, sizeof(moved)), 0);
	cr_assert(!there(".git"));
	assert_random_form(moved, ".git.cordon-quarantine-");
}

Test(quarantine, two_moves_get_two_names)
{
	char a[NAME_MAX + 1], b[NAME_MAX + 1];
	cr_assert_eq(mkdirat(dirfd, ".git", 0700), 0);
	cr_assert_eq(protect_quarantine_move(dirfd, ".git", a, sizeof(a)), 0);
	cr_assert_eq(mkdirat(dirfd, ".git", 0700), 0);
	cr_assert_eq(protect_quarantine_move(dirfd, ".git", b, sizeof(b)), 0);
	cr_assert_str_neq(a, b);
	cr_assert(there(a) && there(b) && !there(".git"));
}

/* A 250-byte --protect name has no room for the suffix within NAME_MAX:
 * the shorter form frees it all the same. */
Test(quarantine, a_long_name_moves_under_the_short_form)
{
	char moved[NAME_MAX + 1], name[251];
	memset(name, 'a', 250);
	name[250] = '\0';
	cr_assert_eq(mkdirat(dirfd, name, 0700), 0);
	cr_assert_eq(protect_quarantine_move(dirfd, name, moved, sizeof(moved)), 0);
	cr_assert(!there(name));
	assert_random_form(moved, ".cordon-quarantine-");
	cr_assert(there(moved));
}

Test(quarantine, a_link_moves_as_it_is)
{
	char moved[NAME_MAX + 1], target[64];
	cr_assert_eq(symlinkat("/etc", dirfd, ".codex"), 0);
	cr_assert_eq(protect_quarantine_move(dirfd, ".codex", moved, sizeof(moved)), 0);
	ssize_t n = readlinkat(dirfd, moved, target, sizeof(target) - 1);
	cr_assert_eq(n, 4);
	target[n] = '\0';
	cr_assert_str_eq(target, "/etc");
	cr_assert(!there(".codex"));
}

Test(quarantine, hide_always_takes_the_dotted_form)
{
	char moved[NAME_MAX + 1];
	cr_assert_eq(mkfifoat(dirfd, "main", 0600), 0);
	cr_assert_eq(protect_quarantine_hide(dirfd, "main", moved, sizeof(moved)), 0);
	assert_random_form(moved, ".cordon-quarantine-");
	cr_assert(there(moved));
	cr_assert(!there("main"), "git takes every name under refs/ that does not start with a dot");
}

Test(quarantine, a_missing_name_is_enoent)
{
	char moved[NAME_MAX + 1];
	cr_assert_eq(protect_quarantine_move(dirfd, ".git", moved, sizeof(moved)), -ENOENT);
}

Test(quarantine, too_small_a_buffer_is_an_error_not_a_truncated_name)
{
	char moved[20];
	cr_assert_eq(mkdirat(dirfd, ".git", 0700), 0);
	cr_assert_eq(protect_quarantine_move(dirfd, ".git", moved, sizeof(moved)), -ENAMETOOLONG);
	cr_assert(there(".git"));
}

/* The command runs as the caller and may take write and search permission
 * away from the caller's own directory: the look and the move go through
 * all the same, and the mode is put back.  Run as a user (root ignores
 * modes): the test's process drops to nobody, whose directory base is. */
static void become_owner_of_base(void)
{
	if (geteuid() == 0) {
		cr_assert_eq(chown(base, 65534, 65534), 0);
		cr_assert_eq(setgroups(0, NULL), 0);
		cr_assert_eq(setresgid(65534, 65534, 65534), 0);
		cr_assert_eq(setresuid(65534, 65534, 65534), 0);
	}
}

static mode_t mode_of_base(void)
{
	struct stat st;
	cr_assert_eq(fstat(dirfd, &st), 0);
	return st.st_mode & 07777;
}

static void take_through(mode_t mode)
{
	struct protect_quarantine_took t;
	become_owner_of_base();
	cr_assert_eq(mkdirat(dirfd, ".git", 0700), 0);
	cr_assert_eq(chmod(base, mode), 0);
	cr_assert_eq(protect_quarantine_take(dirfd, ".git", NULL, 1, &t), 1);
	cr_assert_eq(t.err, 0, "%s", strerror(-t.err));
	cr_assert(S_ISDIR(t.mode));
	cr_assert_eq(mode_of_base(), mode);
	cr_assert_eq(chmod(base, 0700), 0);
	assert_random_form(t.moved, ".git.cordon-quarantine-");
	cr_assert(!there(".git") && there(t.moved));
}

Test(quarantine, a_root_at_0555_is_opened_for_the_move_and_its_mode_put_back)
{
	take_through(0555);
}

Test(quarantine, a_root_at_0600_no_search_is_opened_for_the_look_too)
{
	take_through(0600);
}

Test(quarantine, a_root_at_0000_likewise)
{
	take_through(0);
}

Test(quarantine, take_leaves_the_entry_to_keep_and_finds_nothing_where_nothing_is)
{
	struct protect_quarantine_took t;
	struct stat st;
	cr_assert_eq(protect_quarantine_take(dirfd, ".git", NULL, 1, &t), 0);
	cr_assert_eq(symlinkat("/", dirfd, ".git"), 0);
	cr_assert_eq(fstatat(dirfd, ".git", &st, AT_SYMLINK_NOFOLLOW), 0);
	struct protect_quarantine_keep keep = { st.st_dev, st.st_ino };
	cr_assert_eq(protect_quarantine_take(dirfd, ".git", &keep, 1, &t), 0);
	cr_assert(there(".git"));
	cr_assert_eq(protect_quarantine_take(dirfd, ".git", NULL, 1, &t), 1);
	cr_assert_eq(t.err, 0);
	cr_assert(S_ISLNK(t.mode) && !there(".git"));
}

/* The last resort: left under its name, made mode 000; never a link (its
 * target would be changed), never emptied. */
Test(quarantine, disarm_makes_the_entry_mode_000_and_keeps_it_whole)
{
	cr_assert_eq(mkdirat(dirfd, ".git", 0755), 0);
	int fd = openat(dirfd, ".git/config", O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
	cr_assert_geq(fd, 0);
	(void)close(fd);
	cr_assert_eq(protect_quarantine_disarm(dirfd, ".git"), 0);
	struct stat st;
	cr_assert_eq(fstatat(dirfd, ".git", &st, AT_SYMLINK_NOFOLLOW), 0);
	cr_assert_eq(st.st_mode & 07777, 0);
	cr_assert(there(".git/config"));
	cr_assert_eq(fchmodat(dirfd, ".git", 0700, 0), 0);
}

Test(quarantine, disarm_refuses_a_link_and_leaves_its_target_alone)
{
	cr_assert_eq(mkdirat(dirfd, "target", 0755), 0);
	cr_assert_eq(symlinkat("target", dirfd, ".git"), 0);
	cr_assert_eq(protect_quarantine_disarm(dirfd, ".git"), -EPERM);
	struct stat st;
	cr_assert_eq(fstatat(dirfd, "target", &st, 0), 0);
	cr_assert_eq(st.st_mode & 07777, 0755);
}

Test(quarantine, disarm_of_a_missing_name_is_enoent)
{
	cr_assert_eq(protect_quarantine_disarm(dirfd, ".git"), -ENOENT);
}

/* The guardian's way to a watched directory by its path, through a
 * directory of the caller's above it that the command made unsearchable. */
Test(quarantine, open_dir_walks_through_an_unsearchable_directory_of_the_callers)
{
	char a[PATH_MAX + 8], b[PATH_MAX + 16];
	become_owner_of_base();
	(void)snprintf(a, sizeof(a), "%s/a", base);
	(void)snprintf(b, sizeof(b), "%s/a/b", base);
	cr_assert_eq(mkdir(a, 0700), 0);
	cr_assert_eq(mkdir(b, 0700), 0);
	struct stat want, got;
	cr_assert_eq(stat(b, &want), 0);
	cr_assert_eq(chmod(a, 0600), 0);
	int fd = protect_quarantine_open_dir(b);
	cr_assert_geq(fd, 0, "%s", strerror(-fd));
	cr_assert_eq(fstat(fd, &got), 0);
	cr_assert(got.st_dev == want.st_dev && got.st_ino == want.st_ino);
	(void)close(fd);
	cr_assert_eq(stat(a, &got), 0);
	cr_assert_eq(got.st_mode & 07777, 0600);
	cr_assert_eq(chmod(a, 0700), 0);
	cr_assert_eq(protect_quarantine_open_dir("relative/path"), -ENOENT);
}
