/* policy.h: --policy FILE, a JSON policy in cordon's format (the keys of
 * DESIGN.md section 4) or in Anthropic srt's settings format, read into a
 * struct config.  The only file input/ reads.
 *
 * Every value goes through the same check as the flag it stands for
 * (cli_apply), so a file can ask for nothing a flag could not.  Errors name
 * the file, line, column and key; unknown keys are errors.  Relative paths
 * resolve against the file's directory; "~" and "~/..." expand to $HOME.
 * srt keys cordon cannot honour as srt would are listed, one line each, in
 * config.warnings (main prints them). */
#ifndef CORDON_POLICY_H
#define CORDON_POLICY_H

#include <stddef.h>
#include "config.h"
#include "err.h"

/* Read PATH into *c (which holds cli_defaults).  0 or -errno. */
int policy_load(const char *path, struct config *c, struct cordon_err *e)
	__attribute__((warn_unused_result));

/* The same from TEXT (LEN bytes, not necessarily NUL-terminated); NAME is
 * what errors call the file, DIR the absolute directory relative paths
 * resolve against.  Reads nothing (the fuzz and unit tests' entry). */
int policy_parse(const char *text, size_t len, const char *name, const char *dir,
		 struct config *c, struct cordon_err *e) __attribute__((warn_unused_result));

#endif
