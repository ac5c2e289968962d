/* test_gitaudit.c: --git commit, the kinds of entry a git dir may gain
 * during a run (plan/gitaudit.h). */
#include <criterion/criterion.h>

#include <sys/stat.h>

#include "plan/gitaudit.h"

static struct gitaudit_seen seen(mode_t mode, nlink_t nlink, uid_t uid, int in_objects)
{
	return (struct gitaudit_seen){ mode, nlink, uid, { 100, 0 }, in_objects };
}

Test(gitaudit, what_git_writes_passes)
{
	struct gitaudit_seen f = seen(S_IFREG | 0644, 1, 1000, 0), d = seen(S_IFDIR | 0755, 3, 1000, 0);
	cr_expect_null(gitaudit_kind(&f, 1000));
	cr_expect_null(gitaudit_kind(&d, 1000), "a directory's link count is its subdirectories");
}

Test(gitaudit, every_other_kind_is_refused)
{
	mode_t bad[] = { S_IFLNK | 0777, S_IFIFO | 0644, S_IFSOCK | 0755, S_IFCHR | 0600,
			 S_IFBLK | 0600 };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct gitaudit_seen s = seen(bad[i], 1, 1000, 0);
		cr_expect_not_null(gitaudit_kind(&s, 1000), "mode %o", (unsigned)bad[i]);
		s.in_objects = 1;
		cr_expect_not_null(gitaudit_kind(&s, 1000), "mode %o under objects/", (unsigned)bad[i]);
	}
}

Test(gitaudit, hard_links_refused_except_objects)
{
	struct gitaudit_seen s = seen(S_IFREG | 0644, 2, 1000, 0);
	cr_expect_not_null(gitaudit_kind(&s, 1000), "COMMIT_EDITMSG with a second name");
	s.in_objects = 1;
	cr_expect_null(gitaudit_kind(&s, 1000), "git clone --local links objects in");
}

Test(gitaudit, another_owner_refused)
{
	struct gitaudit_seen f = seen(S_IFREG | 0644, 1, 0, 0), d = seen(S_IFDIR | 0755, 2, 0, 1);
	cr_expect_not_null(gitaudit_kind(&f, 1000));
	cr_expect_not_null(gitaudit_kind(&d, 1000));
	cr_expect_null(gitaudit_kind(&f, 0), "root's own, when cordon runs as root");
}

Test(gitaudit, changed_since)
{
	struct timespec since = { 100, 0 };
	struct timespec before = { 99, 999999999 }, at = { 100, 0 }, after = { 100, 1 };
	cr_expect(!gitaudit_changed(&before, &since));
	cr_expect(gitaudit_changed(&at, &since));
	cr_expect(gitaudit_changed(&after, &since));
	struct timespec now = { 200, 500000000 }, s = gitaudit_since(&now, 1);
	cr_expect(s.tv_sec == 200 && s.tv_nsec == 0,
		  "a filesystem that keeps only seconds dates a change of this second 200");
	s = gitaudit_since(&now, 0);
	cr_expect(s.tv_sec == 200 && s.tv_nsec == 500000000, "nanoseconds: the moment itself");
}

/* --- the walk's verdict on one entry (gitaudit_pass, gitaudit_look) --- */

Test(gitaudit, what_the_walk_passes_over)
{
	cr_expect(gitaudit_pass(".", 1, 1));
	cr_expect(gitaudit_pass("..", 1, 1));
	cr_expect(gitaudit_pass(".cordon-quarantine-HEAD-ab12", 1, 0), "moved aside already");
	cr_expect(!gitaudit_pass("HEAD", 1, 0), "a changed directory: every entry");
	cr_expect(gitaudit_pass("HEAD", 0, 0), "an unchanged directory gained no entry");
	cr_expect(!gitaudit_pass("refs", 0, 1), "but its subdirectories are walked");
}

static const char *look_at(mode_t mode, nlink_t nlink, uid_t uid, struct timespec ctime,
			   int depth, int *walk)
{
	struct gitaudit_seen s = { mode, nlink, uid, ctime, 0 };
	struct timespec since = { 100, 500 };
	return gitaudit_look(&s, &since, 1000, depth, walk);
}

Test(gitaudit, links_fifos_hard_links_and_other_owners_are_moved)
{
	struct timespec at = { 100, 500 };
	int walk = 1;
	cr_expect_not_null(look_at(S_IFLNK | 0777, 1, 1000, at, 0, &walk), "a link");
	cr_expect(!walk);
	cr_expect_not_null(look_at(S_IFIFO | 0644, 1, 1000, at, 0, &walk), "a FIFO");
	cr_expect_not_null(look_at(S_IFREG | 0644, 2, 1000, at, 0, &walk), "a hard link");
	cr_expect_not_null(look_at(S_IFREG | 0644, 1, 0, at, 0, &walk), "another owner's");
	cr_expect_not_null(look_at(S_IFDIR | 0755, 2, 0, at, 0, &walk), "another owner's directory");
	cr_expect(!walk, "moved, not walked");
	cr_expect_null(look_at(S_IFREG | 0644, 1, 1000, at, 0, &walk), "what git writes");
	cr_expect(!walk);
}

Test(gitaudit, ctime_equal_to_since_counts_as_the_runs)
{
	struct timespec at = { 100, 500 }, before = { 100, 499 };
	int walk;
	cr_expect_not_null(look_at(S_IFLNK | 0777, 1, 1000, at, 0, &walk));
	cr_expect_null(look_at(S_IFLNK | 0777, 1, 1000, before, 0, &walk),
		       "the user's own link, from before the run");
	cr_expect_null(look_at(S_IFREG | 0644, 1, 0, before, 0, &walk));
}

Test(gitaudit, directories_walked_to_a_depth)
{
	struct timespec at = { 100, 500 }, before = { 1, 0 };
	int walk = 0;
	cr_expect_null(look_at(S_IFDIR | 0755, 2, 1000, at, 0, &walk));
	cr_expect(walk, "a changed directory is walked");
	cr_expect_null(look_at(S_IFDIR | 0755, 2, 1000, before, 0, &walk));
	cr_expect(walk, "an unchanged one too: an entry in it may have changed");
	cr_expect_null(look_at(S_IFDIR | 0755, 2, 1000, at, GITAUDIT_MAX_DEPTH - 1, &walk));
	cr_expect(walk, "the deepest level still walked");
	cr_expect_not_null(look_at(S_IFDIR | 0755, 2, 1000, at, GITAUDIT_MAX_DEPTH, &walk),
			   "a changed directory deeper than that is moved aside unread");
	cr_expect(!walk);
	cr_expect_null(look_at(S_IFDIR | 0755, 2, 1000, before, GITAUDIT_MAX_DEPTH, &walk));
	cr_expect(!walk, "an unchanged one that deep is left alone");
}
