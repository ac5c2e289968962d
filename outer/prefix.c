/* prefix.c: see prefix.h.  Gathers the facts prefix_decide.h decides on
 * (the working directory, lstat and realpath of the candidates) and builds
 * the cordon command line; reads only, runs nothing. */
#include "prefix.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <unistd.h>
#include "input/cli.h"
#include "path.h"

static const char usage[] = "usage: cordon-prefix 'SHELL COMMAND' | cordon-prefix -- CMD [ARG...]";

static int is_wrapper_flag(const char *a)
{
	return strcmp(a, "-v") == 0 || strcmp(a, "--verbose") == 0 ||
	       strcmp(a, "--allow-no-landlock") == 0 || strcmp(a, "--require-landlock") == 0;
}

/* 1 for cordon-sh, 0 for cordon-prefix, -1 for any other name. */
static int wrapper_name(const char *path)
{
	const char *name = strrchr(path, '/');
	name = name ? name + 1 : path;
	return strcmp(name, "cordon-sh") == 0 ? 1 : strcmp(name, "cordon-prefix") == 0 ? 0 : -1;
}

/* The wrapper a link of the user's stands for (~/bin/agent-sh ->
 * /usr/bin/cordon-sh -> cordon): the nearest wrapper name along the chain
 * of links from the file that was executed (AT_EXECFN: the path execve
 * got, which a shell found through PATH before cordon started; cordon
 * searches nothing), or from argv[0].  -1 when none is. */
static int wrapper_by_link(const char *argv0)
{
	const char *start = (const char *)getauxval(AT_EXECFN);
	char path[PATH_MAX], target[PATH_MAX];
	if (!start || start[0] != '/')
		start = argv0;
	if (!start || snprintf(path, sizeof(path), "%s", start) >= (int)sizeof(path))
		return -1;
	for (int hops = 0; hops < 40; hops++) {
		int w = wrapper_name(path);
		if (w >= 0)
			return w;
		ssize_t n = readlink(path, target, sizeof(target) - 1);
		if (n <= 0)
			return -1;
		target[n] = '\0';
		char *slash = strrchr(path, '/');
		if (target[0] == '/' || !slash)
			w = snprintf(path, sizeof(path), "%s", target);
		else
			w = snprintf(slash + 1, sizeof(path) - (size_t)(slash + 1 - path), "%s", target);
		if (w < 0 || (size_t)w >= sizeof(path))
			return -1;
	}
	return -1;
}

int prefix_wanted(int argc, char *const argv[], struct prefix_run *pr)
{
	int w = argc > 0 && argv[0] ? wrapper_name(argv[0]) : -1;
	if (w < 0 && argc > 0)
		w = wrapper_by_link(argv[0]);
	if (w >= 0) {
		pr->shell = w;
		pr->who = w ? "cordon-sh" : "cordon-prefix";
		pr->first = 1;
		pr->nflags = 0;
		return 1;
	}
	int i = 1;
	while (i < argc && is_wrapper_flag(argv[i]))
		i++;
	if (i >= argc || (strcmp(argv[i], "prefix") != 0 && strcmp(argv[i], "shell") != 0))
		return 0;
	pr->shell = strcmp(argv[i], "shell") == 0;
	pr->who = pr->shell ? "cordon-sh" : "cordon-prefix";
	pr->first = i + 1;
	pr->nflags = i - 1;
	return 1;
}

/* The command the sandbox runs: argv[first..) as cordon-prefix or
 * cordon-sh takes it, into *cmd (pointers into argv and into static
 * strings) and *ncmd. */
static int wrapped_command(const struct prefix_run *pr, int argc, char *const argv[],
			   const char **cmd, size_t *ncmd, struct cordon_err *e)
{
	static const char bash[] = "bash", dash_c[] = "-c";
	size_t n = 0;
	int i = pr->first;
	if (pr->shell) {
		cmd[n++] = bash;
	} else if (i >= argc) {
		return err_set(e, EINVAL, "%s: no command; %s", pr->who, usage);
	} else if (strcmp(argv[i], "--") == 0) {
		if (++i >= argc)
			return err_set(e, EINVAL, "%s: no command after --; %s", pr->who, usage);
	} else if (argc - i == 1) {
		/* One argument is a shell string (Claude Code quotes its whole
		 * command line into one): bash -c gets it whole, in the sandbox. */
		cmd[n++] = bash;
		cmd[n++] = dash_c;
	}
	for (; i < argc; i++)
		cmd[n++] = argv[i];
	*ncmd = n;
	return 0;
}

/* Where the policies are: $XDG_CONFIG_HOME when absolute, else ~/.config. */
static int config_dir(const char *who, char *out, size_t len, struct cordon_err *e)
{
	const char *xdg = getenv("XDG_CONFIG_HOME");
	const char *home = getenv("HOME");
	char raw[PATH_MAX];
	int w;
	if (xdg && xdg[0] == '/')
		w = snprintf(raw, sizeof(raw), "%s", xdg);
	else if (!home || !home[0])
		return err_set(e, EINVAL, "%s: neither XDG_CONFIG_HOME nor HOME is set: no place to "
			       "look for the policy", who);
	else if (home[0] != '/')
		return err_set(e, EINVAL, "%s: HOME=%s is not an absolute path: no place to look "
			       "for the policy", who, home);
	else
		w = snprintf(raw, sizeof(raw), "%s/.config", home);
	if (w < 0 || (size_t)w >= sizeof(raw) || path_clean(raw, out, len) < 0)
		return err_set(e, ENAMETOOLONG, "%s: the configuration directory's path is too long",
			       who);
	return 0;
}

/* lstat as prefix_level.policy wants it: 1, 0 or -errno. */
static int entry_at(const char *path)
{
	struct stat st;
	if (lstat(path, &st) == 0)
		return 1;
	return errno == ENOENT || errno == ENOTDIR || errno == ENAMETOOLONG ? 0 : -errno;
}

static int git_at(const char *dir)
{
	char p[PATH_MAX];
	struct stat st;
	return path_join(dir, ".git", p, sizeof(p)) == 0 && stat(p, &st) == 0;
}

/* The levels from cwd up to /, each with its facts; strings in one block
 * (*block, owned by the caller with *v). */
static int gather_levels(const char *cwd, const char *config, struct prefix_level **v, size_t *n,
			 char **block, const char *who, struct cordon_err *e)
{
	size_t depth = path_depth(cwd) + 1;
	/* Each level's directory and file name, sized for the working
	 * directory (an escape is at most three bytes a byte): a few
	 * kilobytes, where PATH_MAX each would touch pages for nothing. */
	size_t dlen = strlen(cwd) + 1, flen = strlen(config) + 3 * dlen + 32;
	*v = calloc(depth, sizeof(**v));
	*block = malloc(depth * (dlen + flen));
	if (!*v || !*block) {
		(void)err_set(e, ENOMEM, "%s: out of memory", who);
		return -ENOMEM;
	}
	char d[PATH_MAX];
	(void)snprintf(d, sizeof(d), "%s", cwd);
	for (size_t i = 0; i < depth; i++) {
		char *dir = *block + i * (dlen + flen), *file = dir + dlen;
		char name[PATH_MAX];
		(void)snprintf(dir, dlen, "%s", d);
		int w = -1;
		if (prefix_escape(dir, name, sizeof(name)) == 0)
			w = snprintf(file, flen, "%s/cordon/projects/%s.json", config, name);
		(*v)[i].dir = dir;
		(*v)[i].file = file;
		/* A name too long to exist is no policy. */
		int fits = w >= 0 && (size_t)w < flen && w < PATH_MAX;
		(*v)[i].policy = fits ? entry_at(file) : 0;
		if (!fits)
			file[0] = '\0';
		(*v)[i].git = git_at(dir);
		*n = i + 1;
		char *slash = strrchr(d, '/');
		if (!slash || strcmp(d, "/") == 0)
			break;
		if (slash == d)
			slash[1] = '\0';
		else
			*slash = '\0';
	}
	return 0;
}

/* realpath -m: the canonical path of the longest part of path that exists,
 * the rest appended as written (lexically clean). */
static int canon_missing(const char *path, char *out, size_t len)
{
	char head[PATH_MAX], real[PATH_MAX];
	if (path_clean(path, head, sizeof(head)) < 0)
		return -ENAMETOOLONG;
	/* head[0..cut) is the part tried; "/" always resolves. */
	size_t cut = strlen(head);
	for (;;) {
		char save = head[cut];
		head[cut] = '\0';
		const char *found = realpath(cut ? head : "/", real);
		int err = errno;
		head[cut] = save;
		if (found) {
			const char *rest = head + cut;
			int w = snprintf(out, len, "%s%s", strcmp(real, "/") == 0 && *rest ? "" : real,
					 rest);
			return w < 0 || (size_t)w >= len ? -ENAMETOOLONG : 0;
		}
		if ((err != ENOENT && err != ENOTDIR) || cut == 0)
			return -err;
		do
			cut--;
		while (cut > 0 && head[cut] != '/');
	}
}

/* Looks at one entry and judges it (prefix_judge_private). */
static int check_entry(const char *what, const char *path, int want_dir, const char *project,
		       char real[PATH_MAX], const char *who, struct cordon_err *e)
{
	struct prefix_entry f = { what, path, real, { 0 }, want_dir };
	if (lstat(path, &f.st) < 0)
		return err_sys(e, errno, "%s: cannot stat %s %s", who, what, path);
	/* A link is refused before its target matters. */
	if (S_ISLNK(f.st.st_mode))
		(void)snprintf(real, PATH_MAX, "%s", path);
	else if (!realpath(path, real))
		return err_sys(e, errno, "%s: cannot resolve %s %s", who, what, path);
	return prefix_judge_private(&f, geteuid(), project, who, e);
}

/* The file, and the directories above it up to config/cordon, so that no
 * one else can swap it between this check and cordon's open. */
static int check_policy(const char *file, const char *config, const char *project,
			char real[PATH_MAX], const char *who, struct cordon_err *e)
{
	char top[PATH_MAX], dir[PATH_MAX], scratch[PATH_MAX];
	(void)snprintf(top, sizeof(top), "%s/cordon", config);
	(void)snprintf(dir, sizeof(dir), "%s", file);
	char *slash = strrchr(dir, '/');
	if (slash)
		*slash = '\0';
	int r = check_entry("the policy directory", top, 1, project, scratch, who, e);
	if (r == 0 && strcmp(dir, top) != 0)
		r = check_entry("the policy directory", dir, 1, project, scratch, who, e);
	if (r == 0)
		r = check_entry("policy", file, 0, project, real, who, e);
	return r;
}

/* The file and each directory on its canonical path, with (dev, ino). */
static int build_guard(struct prefix_guard *g, const char *real, const char *who,
		       struct cordon_err *e)
{
	size_t depth = path_depth(real) + 1;
	g->v = calloc(depth, sizeof(*g->v));
	if (!g->v)
		return err_set(e, ENOMEM, "%s: out of memory", who);
	char p[PATH_MAX];
	(void)snprintf(p, sizeof(p), "%s", real);
	for (size_t i = 0; i < depth; i++) {
		struct stat st;
		if (lstat(p, &st) < 0)
			return err_sys(e, errno, "%s: cannot stat %s", who, p);
		if (!(g->v[i].path = strdup(p)))
			return err_set(e, ENOMEM, "%s: out of memory", who);
		g->v[i].dev = st.st_dev;
		g->v[i].ino = st.st_ino;
		g->n = i + 1;
		char *slash = strrchr(p, '/');
		if (!slash || strcmp(p, "/") == 0)
			break;
		if (slash == p)
			slash[1] = '\0';
		else
			*slash = '\0';
	}
	return 0;
}

/* The cordon command line: argv[0], the flags before the subcommand,
 * --policy FILE and -w PROJECT as chosen, --, the command. */
static int build_argv(struct prefix_run *pr, char *const argv[], int with_project,
		      const char *const *cmd, size_t ncmd, int *argc_out, struct cordon_err *e)
{
	size_t max = 1 + (size_t)pr->nflags + 4 + 1 + ncmd + 1;
	pr->argv = calloc(max, sizeof(*pr->argv));
	if (!pr->argv)
		return err_set(e, ENOMEM, "%s: out of memory", pr->who);
	size_t n = 0;
	pr->argv[n++] = argv[0];
	for (int i = 0; i < pr->nflags; i++)
		pr->argv[n++] = argv[1 + i];
	if (pr->policy) {
		pr->argv[n++] = (char *)"--policy";
		pr->argv[n++] = pr->policy;
	}
	if (with_project) {
		pr->argv[n++] = (char *)"-w";
		pr->argv[n++] = pr->project;
	}
	pr->argv[n++] = (char *)"--";
	for (size_t i = 0; i < ncmd; i++)
		pr->argv[n++] = (char *)cmd[i];
	*argc_out = (int)n;
	return 0;
}

/* The policy and the project (prefix_decide.h), checked. */
static int choose(struct prefix_run *pr, const char *cwd, const char *config, int *with_project,
		  struct cordon_err *e)
{
	struct prefix_level *v = NULL;
	char *block = NULL;
	size_t n = 0;
	struct prefix_choice ch = { PREFIX_NO_FILE, 0, 0 };
	char global[PATH_MAX], real[PATH_MAX];
	int w = snprintf(global, sizeof(global), "%s/cordon/policy.json", config);
	if (w < 0 || (size_t)w >= sizeof(global))
		return err_set(e, ENAMETOOLONG, "%s: the configuration directory's path is too long",
			       pr->who);
	int r = gather_levels(cwd, config, &v, &n, &block, pr->who, e);
	if (r == 0)
		r = prefix_choose(v, n, entry_at(global), global, pr->who, &ch, e);
	if (r == 0) {
		const char *pd = ch.project < n ? v[ch.project].dir : NULL;
		const char *pf = ch.source != PREFIX_PROJECT_FILE ? global
				 : ch.level < n ? v[ch.level].file : NULL;
		if (!pd || !(pr->project = strdup(pd)) ||
		    (ch.source != PREFIX_NO_FILE && (!pf || !(pr->policy = strdup(pf))))) {
			(void)err_set(e, ENOMEM, "%s: out of memory", pr->who);
			r = -ENOMEM;
		}
	}
	free(v);
	free(block);
	if (r < 0)
		return r;
	*with_project = ch.source != PREFIX_PROJECT_FILE;
	if (ch.source == PREFIX_NO_FILE) {
		char home[PATH_MAX], cfg[PATH_MAX];
		const char *h = getenv("HOME");
		if (!h || !h[0] || !realpath(h, home))
			(void)snprintf(home, sizeof(home), "/");
		if (canon_missing(config, cfg, sizeof(cfg)) < 0)
			(void)snprintf(cfg, sizeof(cfg), "%s", config);
		return prefix_check_project(pr->project, cwd, home, config, cfg, pr->who, e);
	}
	if ((r = check_policy(pr->policy, config, pr->project, real, pr->who, e)) < 0)
		return r;
	pr->guard.who = pr->who;
	return build_guard(&pr->guard, real, pr->who, e);
}

int prefix_parse(struct prefix_run *pr, int argc, char *const argv[], struct config *c,
		 struct cordon_err *e)
{
	char cwd[PATH_MAX], config[PATH_MAX];
	size_t ncmd = 0;
	int with_project = 0, n = 0;
	const char **cmd = calloc((size_t)argc + 3, sizeof(*cmd));
	if (!cmd)
		return err_set(e, ENOMEM, "%s: out of memory", pr->who);
	int r = wrapped_command(pr, argc, argv, cmd, &ncmd, e);
	if (r == 0 && !getcwd(cwd, sizeof(cwd)))
		r = err_sys(e, errno, "%s: cannot resolve the working directory", pr->who);
	if (r == 0 && (cwd[0] != '/' || strchr(cwd, '\n')))
		r = err_set(e, EINVAL, "%s: the working directory's path %s; run cordon directly",
			    pr->who, cwd[0] != '/' ? "is unreachable" : "holds a newline");
	if (r == 0)
		r = config_dir(pr->who, config, sizeof(config), e);
	if (r == 0)
		r = choose(pr, cwd, config, &with_project, e);
	if (r == 0)
		r = build_argv(pr, argv, with_project, cmd, ncmd, &n, e);
	free(cmd);
	if (r < 0)
		return r;
	if ((r = cli_parse(n, pr->argv, c, e)) < 0)
		return r;
	c->policy_guard = pr->policy ? &pr->guard : NULL;
	return 0;
}

void prefix_free(struct prefix_run *pr)
{
	for (size_t i = 0; i < pr->guard.n; i++)
		free(pr->guard.v[i].path);
	free(pr->guard.v);
	free(pr->argv);
	free(pr->policy);
	free(pr->project);
	*pr = (struct prefix_run)PREFIX_RUN_INIT;
}
