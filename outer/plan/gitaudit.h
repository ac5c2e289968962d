/* gitaudit.h: --git commit, the kind of entry a git dir may gain during a
 * run (DESIGN.md section 5; the walk is hostpaths/gitaudit.h).
 *
 * Git writes its own data as regular files and directories, each made
 * afresh by the caller (a lock file renamed into place, or a file opened
 * with O_CREAT), so a regular file has one link.  Anything else that the
 * command leaves in a writable git dir is a trap for a later host git:
 * a symbolic link (logs/HEAD -> ~/.bashrc: host git appends a reflog
 * line, with a branch name the command chose, to the target;
 * COMMIT_EDITMSG -> FILE: git commit --amend writes its message there), a
 * FIFO (HEAD's branch as a FIFO blocks every later git status and shell
 * prompt), a socket or device, a regular file with a second name (git
 * writes some files in place: the other name sees each write), or an
 * entry of another owner.  These are the verdicts; nothing here touches
 * the filesystem. */
#ifndef CORDON_PLAN_GITAUDIT_H
#define CORDON_PLAN_GITAUDIT_H

#include <sys/types.h>
#include <time.h>

/* How deep a git dir's directories go (refs/heads/a/b/..., modules/x/...);
 * a changed directory deeper than that is moved aside unread. */
#define GITAUDIT_MAX_DEPTH 40

/* One entry as lstat saw it. */
struct gitaudit_seen {
	mode_t mode;
	nlink_t nlink;
	uid_t uid;
	struct timespec ctime;
	int in_objects;     /* below an objects/ directory of a git dir: loose
			     * objects and packs, which git only reads (never
			     * writes in place), and which git clone --local
			     * links in on purpose */
};

/* 1 if an entry whose inode changed at ctime was made or changed at or
 * after since.  ctime is the kernel's: no process can set it, and every
 * change of an inode (made, written, renamed, linked, chmod, chown) sets
 * it to the current time. */
int gitaudit_changed(const struct timespec *ctime, const struct timespec *since);

/* NULL if s is of a kind git itself writes, else why not (for the
 * report).  caller: the uid cordon runs as. */
const char *gitaudit_kind(const struct gitaudit_seen *s, uid_t caller);

/* The moment to compare ctimes against, from now (CLOCK_REALTIME_COARSE,
 * the clock the kernel stamps inodes with: a change from now on is stamped
 * now or later).  On a filesystem that keeps whole seconds (coarse: ext4
 * with small inodes, FAT) it is rounded down to the second, or a change
 * of this very second would be dated before it; there an entry the user
 * changed in the second before the run counts as the run's (stricter). */
struct timespec gitaudit_since(const struct timespec *now, int coarse);

/* 1 if the walk passes entry name of a directory over unlooked at: "."
 * and "..", what a move aside made (this end's, or cordon's before the
 * guardian redoes it: a dotted name no git reads, not moved twice), and,
 * in a directory that did not change (dir_changed 0: it can have gained
 * no entry), each entry that is not a directory (may_be_dir 0: its
 * listed type says so). */
int gitaudit_pass(const char *name, int dir_changed, int may_be_dir);

/* The verdict on an entry at depth + 1 of a git dir that lstat saw as s:
 * why it is moved aside, or NULL; then *walk says whether it is a
 * directory to walk in turn. */
const char *gitaudit_look(const struct gitaudit_seen *s, const struct timespec *since,
			  uid_t caller, int depth, int *walk);

#endif
