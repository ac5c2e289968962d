/* gitend.c: see gitend.h.  Belongs here: the end's verdicts, from facts. */
#include "plan/gitend.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include "path.h"

const enum gitend_look gitend_looks[] = { GITEND_LOOK_KINDS, GITEND_LOOK_STATE,
					  GITEND_LOOK_LINKS };
const size_t gitend_nlooks = sizeof(gitend_looks) / sizeof(gitend_looks[0]);

enum gitend_file gitend_file_kind(const char *rel)
{
	if (strcmp(rel, "rr-cache") == 0)
		return GITEND_RRCACHE;
	if (strstr(rel, "todo"))
		return GITEND_TODO;
	return strcmp(path_base(rel), "opts") == 0 ? GITEND_OPTS : GITEND_STRATEGY;
}

int gitend_inside(const char *path, const char *gitdir)
{
	size_t l = strlen(gitdir);
	return strncmp(path, gitdir, l) == 0 && path[l] == '/';
}

enum gitend_act gitend_state_look(const struct gitend_state_seen *s, const char **why)
{
	*why = NULL;
	switch (s->dir) {
	case GITEND_DIR_OPENED:
		break;
	case GITEND_DIR_OTHER:
		/* rebase-merge turned into a link or a file: git would follow
		 * a link to a todo list elsewhere. */
		if (!s->dir_changed)
			return GITEND_KEEP;
		*why = "it is not a directory";
		return GITEND_MOVE_DIR;
	case GITEND_DIR_MISSING:
	case GITEND_DIR_DIR:
		return GITEND_KEEP;
	}
	if (s->file == GITEND_FILE_MISSING)
		return GITEND_KEEP;
	if (s->file == GITEND_FILE_HIDDEN) {
		/* The command took search permission from its directory:
		 * what it hides is moved aside unread (the move looks
		 * through the mode, hostpaths/protect_quarantine.h). */
		*why = "it cannot be looked at";
		return GITEND_MOVE_FILE;
	}
	if (!s->file_changed)
		return GITEND_KEEP; /* the user's own, from before the run */
	if (s->open == GITEND_OPEN_OK)
		return GITEND_READ;
	*why = s->open == GITEND_OPEN_LINK ? "it is a symbolic link" : "it cannot be read";
	return GITEND_MOVE_FILE;
}

const char *gitend_state_unreadable(mode_t mode, off_t size, size_t max)
{
	if (!S_ISREG(mode))
		return "it is not a regular file";
	if (size < 0 || (size_t)size >= max)
		return "it is too large to check";
	return NULL;
}

const char *gitend_state_content(enum gitend_file k, const char *buf, ssize_t n, size_t max)
{
	if (n < 0)
		return "it cannot be read";
	if ((size_t)n >= max)
		return "it is too large to check";
	if (k == GITEND_TODO)
		return gitdir_todo_runs(buf, (size_t)n)
			? "it holds an exec line, which a later --continue on the host would run "
			  "outside the sandbox" : NULL;
	return gitdir_strategy_runs(buf, (size_t)n, k == GITEND_OPTS)
		? "it names a merge strategy that is not built in (git would run git-merge-NAME)"
		: NULL;
}

int gitend_rrcache_skip(const char *name)
{
	return strcmp(name, ".") == 0 || strcmp(name, "..") == 0 ||
	       strstr(name, ".cordon-quarantine-") != NULL;
}

enum gitend_rr gitend_rrcache_entry(int changed, int is_dir)
{
	if (changed)
		return GITEND_RR_CHANGED;
	return is_dir ? GITEND_RR_INSIDE : GITEND_RR_KEPT;
}

enum gitend_link gitend_link_look(const struct gitend_link_seen *was,
				  const struct gitend_link_seen *now, int changed)
{
	/* Another .git than the start's (made, renamed into place, or its
	 * directory renamed into place: another inode) has a configuration
	 * the run chose, whatever its timestamps say. */
	if (!was || !was->existed || now->dev != was->dev || now->ino != was->ino ||
	    (now->mode & S_IFMT) != (was->mode & S_IFMT))
		return GITEND_LINK_MOVE;
	if (!S_ISDIR(now->mode))
		return changed ? GITEND_LINK_MOVE : GITEND_LINK_KEEP;
	return GITEND_LINK_INSIDE;
}

int gitend_link_code(const struct gitdir_rule *r, char *buf, size_t size)
{
	if (r->role != GITDIR_CODE && r->role != GITDIR_EACH_MODULE &&
	    r->role != GITDIR_EACH_WORKTREE)
		return 0;
	(void)snprintf(buf, size, "%.*s", (int)strcspn(r->path, "*"), r->path);
	size_t l = strlen(buf);
	if (l && buf[l - 1] == '/')
		buf[l - 1] = '\0';
	return 1;
}

void gitend_rule_split(const struct gitdir_rule *r, size_t *dirlen, const char **base)
{
	const char *slash = strrchr(r->path, '/');
	*dirlen = slash ? (size_t)(slash - r->path) : 0;
	*base = slash ? slash + 1 : r->path;
}
