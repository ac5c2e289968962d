/* gitdir.c: see gitdir.h.  Belongs here: the table and the verdicts,
 * nothing that touches the filesystem. */
#include "plan/gitdir.h"

#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <limits.h>
#include <string.h>
#include <strings.h>

#define R GITDIR_REPO
#define W GITDIR_WORKTREE

/* Parents before children: the gatherer reaches an entry only through the
 * directories above it, each pinned (or the dir itself).  What is not
 * listed is writable like git's data: the list of what git reads as code
 * or configuration is the one that must be complete. */
const struct gitdir_rule gitdir_rules[] = {
	{ "", R | W, GITDIR_HOLDER, 0, "the git dir itself: pinned, so that it cannot be renamed away and replaced" },
	{ "config", R, GITDIR_CODE, 0, "configuration: core.fsmonitor, core.hooksPath, aliases, filter and diff drivers, core.sshCommand run programs" },
	{ "config.worktree", R | W, GITDIR_CODE, 0, "per-worktree configuration (extensions.worktreeConfig)" },
	{ "hooks", R, GITDIR_CODE, 0, "hooks run on commit, checkout, merge, push, rebase" },
	{ "info", R, GITDIR_CODE, 0, "info/attributes selects filter and diff drivers; info/exclude, info/sparse-checkout" },
	{ "commondir", R | W, GITDIR_CODE, 0, "where the common dir (its config and hooks) is" },
	{ "gitdir", R | W, GITDIR_CODE, 0, "where the worktree is" },
	{ "branches", R, GITDIR_CODE, 0, "legacy remote definitions: URLs git fetches from" },
	{ "remotes", R, GITDIR_CODE, 0, "legacy remote definitions: URLs git fetches from" },
	{ "objects", R, GITDIR_HOLDER, 0, "object store (writable); pinned: it holds objects/info" },
	{ "objects/info", R, GITDIR_HOLDER, 1, "pinned: it holds the alternates files" },
	{ "objects/info/alternates", R, GITDIR_CODE, 0, "other object stores git reads, by path" },
	{ "objects/info/http-alternates", R, GITDIR_CODE, 0, "other object stores git fetches, by URL" },
	{ "worktrees", R, GITDIR_HOLDER, 0, "linked worktrees' git dirs (git worktree add may create it)" },
	{ "worktrees/*", R, GITDIR_EACH_WORKTREE, 0, "a linked worktree's git dir: its data writable, its config.worktree, commondir and gitdir read-only" },
	{ "modules", R | W, GITDIR_HOLDER, 0, "submodules' git dirs" },
	{ "modules/*", R | W, GITDIR_EACH_MODULE, 0, "a submodule's git dir: the same rule as this one" },
	{ "rebase-merge/git-rebase-todo", R | W, GITDIR_STATE, 0, "exec lines run on git rebase --continue: moved aside at the end if the run wrote one" },
	{ "sequencer/todo", R | W, GITDIR_STATE, 0, "exec lines run on git cherry-pick/revert --continue: moved aside at the end if the run wrote one" },
	{ "rebase-merge/strategy", R | W, GITDIR_STATE, 0, "a strategy not built in runs git-merge-NAME: moved aside at the end if the run wrote one" },
	{ "sequencer/opts", R | W, GITDIR_STATE, 0, "its strategy key, the same" },
	{ "objects/*", R, GITDIR_DATA, 0, "loose objects, packs, commit-graph, multi-pack-index" },
	{ "refs", R, GITDIR_DATA, 0, "branches and tags" },
	{ "logs", R | W, GITDIR_DATA, 0, "reflogs" },
	{ "index", R | W, GITDIR_DATA, 0, "the index (a refreshed index is written)" },
	{ "HEAD", R | W, GITDIR_DATA, 0, "the current branch" },
	{ "packed-refs", R, GITDIR_DATA, 0, "packed refs" },
	{ "ORIG_HEAD", R | W, GITDIR_DATA, 0, "" },
	{ "FETCH_HEAD", R | W, GITDIR_DATA, 0, "" },
	{ "MERGE_*", R | W, GITDIR_DATA, 0, "MERGE_HEAD, MERGE_MSG, MERGE_MODE, MERGE_RR" },
	{ "CHERRY_PICK_HEAD", R | W, GITDIR_DATA, 0, "" },
	{ "REVERT_HEAD", R | W, GITDIR_DATA, 0, "" },
	{ "COMMIT_EDITMSG", R | W, GITDIR_DATA, 0, "" },
	{ "AUTO_MERGE", R | W, GITDIR_DATA, 0, "" },
	{ "rebase-merge", R | W, GITDIR_DATA, 0, "interactive and merge rebase state (its todo: above)" },
	{ "rebase-apply", R | W, GITDIR_DATA, 0, "am and apply rebase state: patches and messages, no command" },
	{ "sequencer", R | W, GITDIR_DATA, 0, "cherry-pick and revert state (its todo and opts: above)" },
	{ "BISECT_*", R | W, GITDIR_DATA, 0, "" },
	{ "shallow", R, GITDIR_DATA, 0, "" },
	{ "gc.pid", R, GITDIR_DATA, 0, "" },
	{ "gc.log", R, GITDIR_DATA, 0, "" },
	{ "rr-cache", R, GITDIR_STATE, 0, "rerere's recorded resolutions, applied to the worktree by a later git merge: each one the run recorded or changed is moved aside at the end" },
	{ "*.lock", R | W, GITDIR_DATA, 0, "git's lock files beside each of the above" },
};
const size_t gitdir_nrules = sizeof(gitdir_rules) / sizeof(gitdir_rules[0]);

enum gitdir_act gitdir_decide(const struct gitdir_rule *r, const struct gitdir_seen *s)
{
	switch (r->role) {
	case GITDIR_DATA:
	case GITDIR_STATE:
		return GITDIR_ACT_NONE;
	case GITDIR_CODE:
		if (!s->exists)
			return GITDIR_ACT_WATCH;
		return s->is_symlink ? GITDIR_ACT_REFUSE : GITDIR_ACT_READ_ONLY;
	case GITDIR_HOLDER:
		if (!s->exists)
			return r->watch_missing ? GITDIR_ACT_WATCH : GITDIR_ACT_NONE;
		if (s->is_symlink || !s->is_dir)
			return GITDIR_ACT_REFUSE;
		return GITDIR_ACT_PIN;
	case GITDIR_EACH_WORKTREE:
	case GITDIR_EACH_MODULE:
		if (!s->exists)
			return GITDIR_ACT_NONE;
		if (s->is_symlink || !s->is_dir)
			return GITDIR_ACT_REFUSE;
		return GITDIR_ACT_EXPAND;
	}
	return GITDIR_ACT_REFUSE;
}

/* The first word of each line: git's todo parser skips leading blanks,
 * takes `#` (core.commentChar comes from config, read-only) as a comment,
 * and knows exec by its name or its one-letter form. */
int gitdir_todo_runs(const char *buf, size_t n)
{
	size_t i = 0;
	while (i < n) {
		while (i < n && (buf[i] == ' ' || buf[i] == '\t'))
			i++;
		size_t w = i;
		while (i < n && !isspace((unsigned char)buf[i]))
			i++;
		size_t len = i - w;
		if ((len == 4 && memcmp(buf + w, "exec", 4) == 0) ||
		    (len == 1 && buf[w] == 'x'))
			return 1;
		while (i < n && buf[i] != '\n')
			i++;
		i++;
	}
	return 0;
}

static int builtin_strategy(const char *s, size_t len)
{
	static const char *const known[] = { "ort", "recursive", "resolve", "octopus",
					     "ours", "subtree", NULL };
	for (const char *const *k = known; *k; k++)
		if (strlen(*k) == len && memcmp(*k, s, len) == 0)
			return 1;
	return 0;
}

/* Trim blanks and one pair of quotes from [*s, *s + *len). */
static void trim(const char **s, size_t *len)
{
	while (*len && isspace((unsigned char)**s)) {
		(*s)++;
		(*len)--;
	}
	while (*len && isspace((unsigned char)(*s)[*len - 1]))
		(*len)--;
	if (*len >= 2 && (*s)[0] == '"' && (*s)[*len - 1] == '"') {
		(*s)++;
		*len -= 2;
	}
}

int gitdir_strategy_runs(const char *buf, size_t n, int opts)
{
	if (!opts) {
		const char *s = buf;
		size_t len = n;
		trim(&s, &len);
		return len > 0 && !builtin_strategy(s, len);
	}
	/* sequencer/opts is a config file: [options] strategy = NAME.  Any
	 * line whose key is strategy (the section is not checked: a stricter
	 * reading, never a looser one). */
	for (size_t i = 0; i < n;) {
		size_t end = i;
		while (end < n && buf[end] != '\n')
			end++;
		const char *s = buf + i;
		size_t len = end - i;
		trim(&s, &len);
		const char *eq = memchr(s, '=', len);
		if (eq) {
			const char *k = s, *v = eq + 1;
			size_t klen = (size_t)(eq - s), vlen = len - klen - 1;
			trim(&k, &klen);
			trim(&v, &vlen);
			if (klen == 8 && strncasecmp(k, "strategy", 8) == 0 && vlen > 0 &&
			    !builtin_strategy(v, vlen))
				return 1;
		}
		i = end + 1;
	}
	return 0;
}

static uint32_t be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* git's offset varint (varint.c): each continuation adds one. */
static int varint(const unsigned char **p, const unsigned char *end, size_t *out)
{
	size_t v;
	if (*p >= end)
		return -EINVAL;
	unsigned c = *(*p)++;
	v = c & 127;
	while (c & 128) {
		if (*p >= end || v > (SIZE_MAX >> 8))
			return -EINVAL;
		c = *(*p)++;
		v = ((v + 1) << 7) | (c & 127);
	}
	*out = v;
	return 0;
}

int gitdir_index_name_ok(const char *name, size_t len)
{
	if (len == 0 || memchr(name, '\0', len))
		return 0;
	for (size_t i = 0; i <= len;) {
		size_t c = i;
		while (c < len && name[c] != '/')
			c++;
		size_t l = c - i;
		if (l == 0 || (l == 1 && name[i] == '.') ||
		    (l == 2 && name[i] == '.' && name[i + 1] == '.') ||
		    (l == 4 && strncasecmp(name + i, ".git", 4) == 0))
			return 0;
		i = c + 1;
	}
	return 1;
}

int gitdir_index_gitlinks(const unsigned char *buf, size_t n, size_t oidlen,
			  struct gitdir_index_walk *w,
			  int (*fn)(void *ctx, const char *path, size_t len), void *ctx)
{
	static char prev[PATH_MAX];
	size_t prevlen = 0;
	if (n < 12 || memcmp(buf, "DIRC", 4) != 0)
		return -EINVAL;
	uint32_t version = be32(buf + 4), count = be32(buf + 8);
	if (version < 2 || version > 4)
		return -EINVAL;
	const unsigned char *p = buf + 12, *end = buf + n;
	for (uint32_t i = 0; i < count; i++) {
		const unsigned char *start = p;
		size_t fixed = 40 + oidlen + 2;
		if ((size_t)(end - p) < fixed)
			return -EINVAL;
		uint32_t mode = be32(p + 24);
		unsigned flags = (unsigned)p[40 + oidlen] << 8 | p[41 + oidlen];
		p += fixed;
		if (flags & 0x4000) { /* extended flags: version 3 and up */
			if (version < 3 || end - p < 2)
				return -EINVAL;
			p += 2;
		}
		const unsigned char *nul;
		char path[PATH_MAX];
		size_t len;
		if (version == 4) {
			size_t strip;
			if (varint(&p, end, &strip) < 0 || strip > prevlen)
				return -EINVAL;
			if (!(nul = memchr(p, 0, (size_t)(end - p))))
				return -EINVAL;
			size_t keep = prevlen - strip, add = (size_t)(nul - p);
			if (keep + add >= sizeof(path))
				return -EINVAL;
			memcpy(path, prev, keep);
			memcpy(path + keep, p, add);
			len = keep + add;
			p = nul + 1;
		} else {
			if (!(nul = memchr(p, 0, (size_t)(end - p))))
				return -EINVAL;
			len = (size_t)(nul - p);
			if (len >= sizeof(path) || ((flags & 0xfff) != 0xfff && len != (flags & 0xfff)))
				return -EINVAL;
			memcpy(path, p, len);
			/* 1 to 8 NULs pad the entry to a multiple of 8 */
			size_t total = (size_t)(nul + 1 - start);
			total = (total + 7) & ~(size_t)7;
			if ((size_t)(end - start) < total)
				return -EINVAL;
			for (const unsigned char *z = nul; z < start + total; z++)
				if (*z)
					return -EINVAL;
			p = start + total;
		}
		memcpy(prev, path, len);
		prevlen = len;
		int link = (mode & 0170000) == 0160000, ok = gitdir_index_name_ok(path, len);
		if (link && !ok && len == 0)
			w->stripped++;
		else if (link && !ok)
			w->bad++;
		if (ok && (link || w->all)) {
			int rc = fn(ctx, path, len);
			if (rc < 0)
				return rc;
		}
	}
	return 0;
}

/* 1 if g is c/worktrees/NAME, NAME one component. */
static int worktree_of(const char *g, const char *c)
{
	size_t n = strlen(c);
	static const char sub[] = "/worktrees/";
	if (strncmp(g, c, n) != 0 || strncmp(g + n, sub, sizeof(sub) - 1) != 0)
		return 0;
	const char *name = g + n + sizeof(sub) - 1;
	return name[0] && !strchr(name, '/') && strcmp(name, ".") != 0 && strcmp(name, "..") != 0;
}

const char *gitdir_linked_refusal(const struct gitdir_linked *f)
{
	if (!f->gitdir_real || strcmp(f->gitdir_real, f->gitdir) != 0)
		return "its git dir does not exist or is named through a symbolic link";
	if (!f->common)
		return "its git dir has no commondir file: not a linked worktree's";
	if (!f->common_real || strcmp(f->common_real, f->common) != 0)
		return "its common dir does not exist or is named through a symbolic link";
	if (!worktree_of(f->gitdir, f->common))
		return "its git dir is not COMMON/worktrees/NAME, where git worktree add puts it";
	if (!f->back || strcmp(f->back, f->gitfile) != 0)
		return "the git dir's gitdir file does not name this .git file back";
	if (f->link)
		return "a file or directory of it is a symbolic link";
	if (f->foreign)
		return "not all of it belongs to you";
	if (!f->repo)
		return "the common dir is not a repository (objects/, refs/, HEAD)";
	if (f->config_paths)
		return "its config includes other files or sets core.hooksPath, which cordon "
		       "does not follow";
	if (f->root_inside)
		return "a writable root lies inside its common dir";
	return NULL;
}
