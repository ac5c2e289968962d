/* protect_watch.c: see protect_watch.h. */
#include "observe/protect_watch.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>
#include "hostpaths/protect_quarantine.h"
#include "observe/findings.h"
#include "wire_guardian.h"
#include "path.h"
#include "sys.h"
#include "grow.h"

#define WATCH_MASK (IN_CREATE | IN_MOVED_TO | IN_ONLYDIR)

static int dir_of(struct protect_watch *w, int rootfd, size_t *out, struct cordon_err *e,
		  const char *rootpath)
{
	struct stat want, st;
	if (fstat(rootfd, &want) < 0)
		return err_sys(e, errno, "cannot inspect the writable root %s", rootpath);
	for (size_t i = 0; i < w->ndirs; i++)
		if (fstat(w->dirs[i].fd, &st) == 0 && st.st_dev == want.st_dev &&
		    st.st_ino == want.st_ino) {
			*out = i;
			return 0;
		}
	if (grow_reserve(&w->dirs, &w->capdirs, w->ndirs + 1, sizeof(*w->dirs)) < 0)
		return err_set(e, ENOMEM, "out of memory");
	struct protect_watch_dir *d = &w->dirs[w->ndirs];
	*d = (struct protect_watch_dir){ .fd = -1, .dev = want.st_dev, .ino = want.st_ino };
	if (!(d->path = strdup(rootpath)))
		return err_set(e, ENOMEM, "out of memory");
	d->fd = openat(rootfd, ".", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (d->fd < 0) {
		int err = errno;
		free(d->path);
		return err_sys(e, err, "cannot open the writable root %s", rootpath);
	}
	char link[64];
	(void)snprintf(link, sizeof(link), "/proc/self/fd/%d", d->fd);
	d->wd = inotify_add_watch(w->fd, link, WATCH_MASK);
	if (d->wd < 0) {
		int err = errno;
		sys_close(&d->fd);
		free(d->path);
		return err_sys(e, err, "cannot watch %s for protected names (inotify; when this "
			       "user's fs.inotify.max_user_watches is reached, cordon doctor shows "
			       "what holds them)", rootpath);
	}
	*out = w->ndirs++;
	return 0;
}

static int add_name(struct protect_watch *w, size_t dir, const char *path,
		    const struct protect_name *found, int git, const char *via,
		    struct cordon_err *e)
{
	if (grow_reserve(&w->names, &w->capnames, w->nnames + 1, sizeof(*w->names)) < 0)
		return err_set(e, ENOMEM, "out of memory");
	char *p = strdup(path), *l = via ? strdup(via) : NULL;
	if (!p || (via && !l)) {
		free(p);
		free(l);
		return err_set(e, ENOMEM, "out of memory");
	}
	/* Without the entry held, a new one could get its inode number. */
	int hold = found ? fcntl(found->hold, F_DUPFD_CLOEXEC, 3) : -1;
	if (found && hold < 0) {
		int err = errno;
		free(p);
		free(l);
		return err_sys(e, err, "cannot keep a descriptor of %s", path);
	}
	w->names[w->nnames++] = (struct protect_watch_name){ dir, p, path_base(p), found != NULL,
					      found ? (dev_t)found->dev : 0,
					      found ? (ino_t)found->ino : 0, NULL, 0, git, l, hold };
	return 0;
}

/* An entry under the name that the command or someone on the host made: not
 * the entry that was there at the start (another user's link, or an entry
 * on such a link's way), which n->hold keeps from having its inode number
 * reused. */
static int new_entry(const struct protect_watch_name *n, const struct stat *st)
{
	return !(n->as_found && st->st_dev == n->dev && st->st_ino == n->ino);
}

static int exists(const struct protect_watch *w, const struct protect_watch_name *n)
{
	struct stat st;
	return fstatat(w->dirs[n->dir].fd, n->name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	       new_entry(n, &st);
}

/* The per-user counts an inotify instance or watch is charged to ran out
 * (fs.inotify.max_user_instances, max_user_watches): the caller's other
 * processes or other runs hold them, which says nothing about this run. */
static int watch_budget_spent(int err)
{
	return err == EMFILE || err == ENFILE || err == ENOSPC || err == ENOMEM;
}

int protect_watch_reserve(struct protect_watch *w, const struct resolved *r, struct protect_run *p,
		  struct cordon_err *e)
{
	size_t n = 0;
	for (size_t i = 0; i < r->nroots; i++)
		n += r->roots[i].is_dir && protect_root_may_watch(p, i);
	if (n == 0)
		return 0;
	(void)clock_gettime(CLOCK_REALTIME, &w->since);
	if ((w->fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC)) < 0) {
		if (!watch_budget_spent(errno))
			return err_sys(e, errno, "cannot start watching the writable roots for "
				       "protected names (inotify); cordon doctor checks this machine");
		protect_watch_lost(p, errno, "fs.inotify.max_user_instances");
		return 0;
	}
	for (size_t i = 0; i < r->nroots; i++) {
		if (!r->roots[i].is_dir || !protect_root_may_watch(p, i))
			continue;
		size_t dir = 0;
		int rc = dir_of(w, r->roots[i].fd, &dir, e, r->roots[i].path);
		if (rc < 0 && !watch_budget_spent(-rc))
			return rc;
		if (rc < 0) {
			protect_watch_lost(p, -rc, "fs.inotify.max_user_watches");
			protect_watch_free(w);
			return 0;
		}
	}
	return 0;
}

int protect_watch_start(struct protect_watch *w, const struct resolved *r, const struct protect_run *p,
		struct cordon_err *e)
{
	const struct protect_decision *d = protect_decision(p);
	int rc;
	for (size_t i = 0; i < d->n; i++) {
		if (!protect_act_watched(d->v[i].act))
			continue;
		const struct protect_name *pn = &p->names[d->v[i].src];
		const struct rpath *root = &r->roots[pn->root];
		/* --git commit: a git entry is watched in its own (pinned)
		 * directory; a step of another user's link, in its own too */
		char gitdir[PATH_MAX];
		int dirfd = root->fd;
		const char *dirpath = root->path;
		if (pn->why || pn->via) {
			(void)snprintf(gitdir, sizeof(gitdir), "%.*s",
				       (int)(path_base(pn->path) - pn->path - 1), pn->path);
			dirfd = pn->dirfd;
			dirpath = gitdir;
		}
		if (w->fd < 0)
			return err_set(e, EINVAL, "cannot watch %s: no inotify instance was "
				       "reserved for it", d->v[i].path);
		size_t dir = 0;
		if ((rc = dir_of(w, dirfd, &dir, e, dirpath)) < 0 ||
		    (rc = add_name(w, dir, d->v[i].path,
				   d->v[i].act == PROTECT_WATCH_LINK ? pn : NULL, pn->why != NULL,
				   pn->via, e)) < 0)
			return rc;
	}
	/* Nothing left to watch (every name exists, or the root is read-only):
	 * the reserved instance goes back to the caller's budget. */
	if (w->nnames == 0)
		protect_watch_free(w);
	/* Made between cordon's look and the watch: not by the command, which
	 * has not started, and not bound read-only either. */
	for (size_t i = 0; i < w->nnames; i++)
		if (exists(w, &w->names[i]))
			return err_set(e, EAGAIN, "protected %s appeared while cordon was starting; "
				       "run again", w->names[i].path);
	return 0;
}

/* One GWIRE_WATCH of dir d's names, from name i on, as many as fit; *next
 * the first name left for the next one.  0 or -errno. */
static int tell_some(const struct protect_watch *w, size_t d, size_t i, size_t *next,
		     struct guardian *g, struct cordon_err *e)
{
	char names[GWIRE_TEXT_MAX];
	size_t len = 0, rl = strlen(w->dirs[d].path);
	size_t room = rl + 2 < sizeof(names) ? sizeof(names) - rl - 2 : 0;
	names[0] = '\0';
	for (; i < w->nnames; i++) {
		size_t l = strlen(w->names[i].name);
		if (w->names[i].dir != d)
			continue;
		if (len + l + 2 > room && len)
			break; /* the rest in the next record */
		if (len + l + 2 > room)
			continue; /* cannot fit even alone (a root path near PATH_MAX) */
		if (len)
			names[len++] = '/';
		memcpy(names + len, w->names[i].name, l + 1);
		len += l;
	}
	*next = i;
	/* A root protect_watch_reserve took that holds no missing name. */
	if (!names[0])
		return 0;
	return guardian_watch_names(g, w->dirs[d].fd, w->dirs[d].path, w->dirs[d].dev,
				    w->dirs[d].ino, names, &w->since, e);
}

int protect_watch_tell(const struct protect_watch *w, struct guardian *g, struct cordon_err *e)
{
	for (size_t d = 0; d < w->ndirs; d++)
		for (size_t i = 0; i < w->nnames;) {
			int r = tell_some(w, d, i, &i, g, e);
			if (r < 0)
				return r;
		}
	return 0;
}

/* A name that cannot be looked at counts as there: the command may have
 * made its root unsearchable to hide it (chmod 0600), and the sandbox is
 * stopped all the same; the quarantine then looks through the mode
 * (hostpaths/protect_quarantine.h). */
static int name_may_be_there(const struct protect_watch *w, const struct protect_watch_name *n)
{
	struct stat st;
	if (fstatat(w->dirs[n->dir].fd, n->name, &st, AT_SYMLINK_NOFOLLOW) == 0)
		return new_entry(n, &st);
	return errno != ENOENT;
}

/* After a lost event: is any watched name there now? */
static int rescan(struct protect_watch *w)
{
	for (size_t i = 0; i < w->nnames; i++)
		if (name_may_be_there(w, &w->names[i]))
			return 1;
	return 0;
}

static int watched(const struct protect_watch *w, int wd, const char *name)
{
	for (size_t i = 0; i < w->nnames; i++)
		if (w->dirs[w->names[i].dir].wd == wd && strcmp(w->names[i].name, name) == 0)
			return 1;
	return 0;
}

static void on_inotify(void *ctx, const struct inotify_event *ev)
{
	struct protect_watch *w = ctx;
	if (ev->mask & IN_Q_OVERFLOW)
		w->hit |= rescan(w);
	else if (ev->len > 0 && watched(w, ev->wd, ev->name))
		w->hit = 1;
}

int protect_watch_on_event(void *ctx)
{
	struct protect_watch *w = ctx;
	sys_inotify_drain(w->fd, on_inotify, w);
	return w->hit;
}

void protect_watch_stop(struct protect_watch *w)
{
	for (size_t i = 0; w->fd >= 0 && i < w->ndirs; i++) {
		if (w->dirs[i].wd >= 0)
			(void)inotify_rm_watch(w->fd, w->dirs[i].wd);
		w->dirs[i].wd = -1;
	}
}

static const char *kind_of(mode_t m)
{
	if (S_ISDIR(m))
		return "a directory";
	if (S_ISREG(m))
		return "a file";
	if (S_ISLNK(m))
		return "a symbolic link";
	return "an entry";
}

static int listed(const struct strlist *l, const char *name)
{
	for (size_t i = 0; i < l->n; i++)
		if (strcmp(l->v[i], name) == 0)
			return 1;
	return 0;
}


/* The narrowest flag that would let the command create name. */
static void allow_hint(const struct config *c, const char *name, char *out, size_t len)
{
	int def = config_default_protects(c, name), mine = listed(&c->protect, name);
	if (def && mine)
		(void)snprintf(out, len, "--unprotect %s and no --protect %s (policy: \"unprotect\": "
			       "[\"%s\"])", name, name, name);
	else if (mine)
		(void)snprintf(out, len, "no --protect %s", name);
	else
		(void)snprintf(out, len, "--unprotect %s (policy: \"unprotect\": [\"%s\"])", name, name);
}

/* The tools that create a protected name as a side effect, and their own
 * way not to: each a word of the command followed by another. */
static const struct {
	const char *name, *tool, *sub, *hint;
} tool_hints[] = {
	{ ".git", "cargo", "init", "cargo init --vcs none creates no repository" },
	{ ".git", "cargo", "new", "cargo new --vcs none creates no repository" },
	{ ".git", "uv", "init", "uv init --vcs none creates no repository" },
	{ ".git", "git", "init", "git init SUBDIR creates the repository in a subdirectory" },
	{ ".git", "git", "clone", "git clone URL SUBDIR clones into a subdirectory" },
};

/* One word of the command (argv split at blanks, so that `sh -c 'cargo
 * init'` counts too), from *pos; 0 when there is none left. */
static size_t next_word(char *const *argv, size_t *arg, size_t *pos, const char **w)
{
	for (; argv[*arg]; (*arg)++, *pos = 0) {
		const char *a = argv[*arg];
		size_t i = *pos;
		while (a[i] == ' ' || a[i] == '\t' || a[i] == '\n' || a[i] == ';' || a[i] == '&' ||
		       a[i] == '|' || a[i] == '(')
			i++;
		size_t n = 0;
		while (a[i + n] && a[i + n] != ' ' && a[i + n] != '\t' && a[i + n] != '\n' &&
		       a[i + n] != ';' && a[i + n] != '&' && a[i + n] != '|' && a[i + n] != ')')
			n++;
		if (n) {
			*w = a + i;
			*pos = i + n;
			return n;
		}
	}
	return 0;
}

/* A word is the tool when it is its name or a path ending in /name. */
static int word_is(const char *w, size_t n, const char *tool)
{
	size_t t = strlen(tool);
	return n >= t && memcmp(w + n - t, tool, t) == 0 && (n == t || w[n - t - 1] == '/');
}

const char *protect_watch_tool_hint(const char *name, char *const *argv)
{
	for (size_t h = 0; h < sizeof(tool_hints) / sizeof(tool_hints[0]); h++) {
		if (strcmp(tool_hints[h].name, name) != 0 || !argv)
			continue;
		size_t arg = 0, pos = 0, n;
		const char *w;
		int after_tool = 0;
		while ((n = next_word(argv, &arg, &pos, &w)) > 0) {
			/* Options between the tool and its subcommand (git -c
			 * k=v init): a word starting with '-' or holding '='. */
			if (after_tool && (w[0] == '-' || memchr(w, '=', n)))
				continue;
			if (after_tool && n == strlen(tool_hints[h].sub) &&
			    memcmp(w, tool_hints[h].sub, n) == 0)
				return tool_hints[h].hint;
			after_tool = word_is(w, n, tool_hints[h].tool);
		}
	}
	if (strcmp(name, ".git") == 0)
		return "Create a repository in a subdirectory instead (git init SUBDIR)";
	return NULL;
}

/* An entry left under the protected name: what was done instead, and what
 * the user must do before a host tool finds it. */
static void say_not_moved(FILE *out, const struct protect_watch_found *f, const char *before)
{
	if (f->disarmed)
		fprintf(out, "; it could NOT be moved aside (%s), so cordon made it mode 000 "
			"instead (nothing was deleted; %s): look at it and remove it before a "
			"host %s", strerror(-f->move_err),
			geteuid() == 0 ? "mode 000 does not keep root's own tools out" :
					 "host tools running as you cannot read it", before);
	else
		fprintf(out, "; it could NOT be moved aside (%s) nor made unreadable: remove "
			"it before a host %s", strerror(-f->move_err), before);
}

/* What was found and what became of it, on stderr: the flag that allows it
 * once, and the tool's own way not to create it where the command tells. */
static void say_found(FILE *out, const struct config *c, const struct protect_watch_found *f)
{
	char hint[NAME_MAX + 64];
	if (f->git) {
		fprintf(out, "cordon: %s was created during the run (%s): with --git commit git's "
			"data is writable but this entry would make a later host git run a program "
			"or read configuration, so the sandbox was stopped", f->path, f->kind);
		if (f->moved)
			fprintf(out, " and it was moved aside, not deleted, to %s.\n", f->moved);
		else {
			say_not_moved(out, f, "git runs there");
			fputs(".\n", out);
		}
		return;
	}
	allow_hint(c, f->name, hint, sizeof(hint));
	if (f->via)
		fprintf(out,
			"cordon: %s was created during the run (%s): another user's symbolic link "
			"%s, a protected name (host tools act on it), leads there, so the sandbox "
			"was stopped", f->path, f->kind, f->via);
	else
		fprintf(out,
			"cordon: %s was created during the run (%s): %s is a protected name (host "
			"tools act on it), so the sandbox was stopped", f->path, f->kind, f->name);
	if (f->moved && f->removed)
		fprintf(out, " and it was moved aside, not deleted, to %s, where the command "
			"removed it before it died", f->moved);
	else if (f->moved)
		fprintf(out, " and it was moved aside, not deleted, to %s", f->moved);
	else
		say_not_moved(out, f, "tool acts on it");
	const char *tool = f->via ? NULL : protect_watch_tool_hint(f->name, c->cmd);
	if (tool)
		fprintf(out, ".  %s; or, to allow it, run with %s.\n", tool, hint);
	else
		fprintf(out, ".  To allow it, run with %s.\n", hint);
}

/* Move name n aside if it is there (last: the run's end, disarm what cannot
 * be moved): 1 with *t set and, when it moved, *where (root/MOVED); 0 when
 * it is not there. */
static int move_one(const struct protect_watch *w, const struct protect_watch_name *n, int last,
		    char *where, size_t len, struct protect_quarantine_took *t)
{
	struct protect_quarantine_keep keep = { n->dev, n->ino };
	if (protect_quarantine_take(w->dirs[n->dir].fd, n->name, n->as_found ? &keep : NULL, last,
				    t) != 1)
		return 0;
	if (t->err == 0)
		(void)snprintf(where, len, "%.*s/%s", (int)(n->name - n->path - 1), n->path, t->moved);
	return 1;
}

void protect_watch_move_aside(struct protect_watch *w)
{
	for (size_t i = 0; i < w->nnames; i++) {
		struct protect_watch_name *n = &w->names[i];
		char where[PATH_MAX];
		struct protect_quarantine_took t;
		/* Once: a second entry the dying sandbox makes is settle's. */
		if (n->early || move_one(w, n, 0, where, sizeof(where), &t) != 1 || t.err < 0)
			continue;
		/* Out of memory: settle finds the entry, but not where it went. */
		n->early = strdup(where);
		n->early_mode = t.mode;
	}
}

/* The protected name behind n: its own, or the link's it is on the way of. */
static const char *found_name(const struct protect_watch_name *n)
{
	return n->via ? path_base(n->via) : n->name;
}

struct said {
	const struct config *c;
	const struct protect_watch_found *f;
};

static void say_it(FILE *out, const void *arg)
{
	const struct said *s = arg;
	say_found(out, s->c, s->f);
}

/* What the user is told goes with the finding (f->say) to found, which
 * says it; without found, or without memory for the text, it is said
 * here. */
static void tell(const struct config *c, struct protect_watch_found *f, protect_watch_found_fn *found,
		 void *ctx)
{
	const struct said s = { c, f };
	char *text = found ? findings_compose(say_it, &s) : NULL;
	if (!text)
		say_it(stderr, &s);
	f->say = text;
	if (found)
		found(ctx, f);
	free(text);
}

size_t protect_watch_settle(struct protect_watch *w, const struct config *c, protect_watch_found_fn *found, void *ctx)
{
	size_t nfound = 0;
	if (w->settled)
		return 0;
	w->settled = 1;
	for (size_t i = 0; i < w->nnames; i++) {
		const struct protect_watch_name *n = &w->names[i];
		char where[PATH_MAX];
		if (n->early) {
			struct stat st;
			struct protect_watch_found f = { found_name(n), n->path, n->early,
						 kind_of(n->early_mode), 0,
						 fstatat(w->dirs[n->dir].fd, path_base(n->early), &st,
							 AT_SYMLINK_NOFOLLOW) < 0, n->git, n->via, 0, NULL };
			nfound++;
			tell(c, &f, found, ctx);
		}
		struct protect_quarantine_took t;
		if (move_one(w, n, 1, where, sizeof(where), &t) != 1)
			continue;
		struct protect_watch_found f = { found_name(n), n->path, t.err == 0 ? where : NULL,
					 kind_of(t.mode), t.err, 0, n->git, n->via, t.disarmed, NULL };
		nfound++;
		tell(c, &f, found, ctx);
	}
	return nfound;
}

void protect_watch_free(struct protect_watch *w)
{
	for (size_t i = 0; i < w->ndirs; i++) {
		sys_close(&w->dirs[i].fd);
		free(w->dirs[i].path);
	}
	for (size_t i = 0; i < w->nnames; i++) {
		free(w->names[i].path);
		free(w->names[i].early);
		free(w->names[i].via);
		sys_close(&w->names[i].hold);
	}
	free(w->dirs);
	free(w->names);
	sys_close(&w->fd);
	*w = (struct protect_watch)PROTECT_WATCH_INIT;
}
