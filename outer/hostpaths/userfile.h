/* userfile.h: a file the caller names on the command line for cordon to
 * write (--report FILE, --net-log FILE), opened before anything runs.
 *
 * The command may be able to write where FILE goes, and an earlier run's
 * command may have left a link, a FIFO or a hard link of another file at
 * FILE: cordon's write must never go through any of them (a net.log ->
 * ~/.bashrc would have cordon append to .bashrc; as root, anywhere).  The
 * directory is opened first and held, so that renaming it or a directory
 * on the way to it later changes nothing; FILE itself is opened in it
 * without following a link and must be a regular file of the caller's,
 * with no other name. */
#ifndef CORDON_USERFILE_H
#define CORDON_USERFILE_H

#include "err.h"

/* The directory of path (O_PATH) in *dirfd and its last component in *name
 * (malloc'd, the caller frees it).  A path that names a directory (ending
 * in "/", ".", "..") is refused.  flag starts the messages ("--report").
 * 0 or -errno with *e filled; nothing is left open on failure. */
int userfile_dir(const char *flag, const char *path, int *dirfd, char **name,
		 struct cordon_err *e) __attribute__((warn_unused_result));

/* Open path for appending (created 0600 when missing): *fd, O_CLOEXEC.
 * Refused, with a message naming flag and path: a link, anything but a
 * regular file (a FIFO, a device, a directory), a file owned by another
 * user, a file with more than one name.  0 or -errno with *e filled. */
int userfile_append(const char *flag, const char *path, int *fd, struct cordon_err *e)
	__attribute__((warn_unused_result));

#endif
