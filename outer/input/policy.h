/* policy.h: --policy FILE, a JSON policy in cordon's format (the keys of
 * DESIGN.md section 4) or in Anthropic srt's settings format, read into a
 * struct config.  The only file input/ reads.
 *
 * Every value goes through the same check as the flag it stands for
 * (cli_apply), so a file can ask for nothing a flag could not.  Errors name
 * the file, line, column and key; unknown keys are errors.  Relative paths
 * resolve against the file's directory in cordon's format, and against the
 * run's working directory in srt's (as srt resolves them); "~" and "~/..."
 * expand to $HOME.  config.policy_base says which directory that was.
 * srt keys cordon cannot honour as srt would are listed, one line each, in
 * config.warnings (main prints them). */
#ifndef CORDON_POLICY_H
#define CORDON_POLICY_H

#include <stddef.h>
#include "config.h"
#include "err.h"

/* Read PATH into *c (which holds cli_defaults); cwd is -C's value (NULL:
 * none), the run's working directory.  0 or -errno. */
int policy_load(const char *path, const char *cwd, struct config *c, struct cordon_err *e)
	__attribute__((warn_unused_result));

/* The same from TEXT (LEN bytes, not necessarily NUL-terminated); NAME is
 * what errors call the file, DIR the file's absolute directory and RUN_DIR
 * the run's absolute working directory (relative paths resolve against
 * one of them, by format).  Reads nothing (the fuzz and unit tests' entry). */
int policy_parse(const char *text, size_t len, const char *name, const char *dir,
		 const char *run_dir, struct config *c, struct cordon_err *e)
	__attribute__((warn_unused_result));

#endif
