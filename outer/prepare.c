/* prepare.c: see prepare.h. */
#include "prepare.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>
#include "launch/inner_find.h"
#include "launch/procprobe.h"
#include "plan/env.h"
#include "toolenv.h"
#include "grow.h"

extern char **environ;

void prepare_init(struct prepared *p)
{
	memset(p, 0, sizeof(*p));
	p->bin.fd = -1;
	p->inner = (struct inner_link)INNER_LINK_INIT;
	p->bridge = (struct bridge_link)BRIDGE_LINK_INIT;
	p->bwrap = (struct bwrap)BWRAP_INIT;
	p->cgroup = (struct cgroup_run)CGROUP_RUN_INIT;
}

static int keep_fd(void *ctx, int fd)
{
	struct prepared *p = ctx;
	if (fd < 0)
		return 0;
	if (grow_reserve(&p->keep, &p->capkeep, p->nkeep + 1, sizeof(*p->keep)) < 0)
		return -ENOMEM;
	p->keep[p->nkeep++] = fd;
	return 0;
}

/* The descriptors bwrap inherits: the channels, everything resolved and
 * the existing protected names. */
static int collect_keep(struct prepared *p, const struct protect_run *prot, struct cordon_err *e)
{
	const struct { const struct rpath *v; size_t n; } lists[] = {
		{ p->res.roots, p->res.nroots }, { p->res.carves, p->res.ncarves },
		{ p->res.masks, p->res.nmasks }, { p->res.sockets, p->res.nsockets },
	};
	int fds[3];
	int r = 0;
	size_t n = inner_link_keep(&p->inner, fds);
	for (size_t i = 0; i < n; i++)
		r |= keep_fd(p, fds[i]);
	n = bwrap_keep(&p->bwrap, fds);
	for (size_t i = 0; i < n; i++)
		r |= keep_fd(p, fds[i]);
	r |= keep_fd(p, bridge_link_inner_fd(&p->bridge));
	for (size_t l = 0; l < sizeof(lists) / sizeof(lists[0]); l++)
		for (size_t i = 0; i < lists[l].n; i++)
			r |= keep_fd(p, lists[l].v[i].fd);
	r |= protect_fds(prot, keep_fd, p);
	return r ? err_set(e, ENOMEM, "out of memory") : 0;
}

/* With --net proxy, the proxy's variables, pointing ssh at cordon-connect
 * when it is installed beside cordon (without it only GIT_SSH_COMMAND is
 * left out). */
static int proxy_env(const struct config *c, struct prepared *p, struct cordon_err *e)
{
	char connect_path[PATH_MAX];
	int fd = -1;
	if (c->net != NET_PROXY)
		return 0;
	int found = helper_find("cordon-connect", &fd, connect_path, NULL) == 0;
	sys_close(&fd);
	return env_add_proxy(c, found ? connect_path : NULL, &p->env, e);
}

/* How the limits are enforced here (plan/limits.h): who the caller is and
 * what the kernel offers. */
static int decide_limits(const struct config *c, struct prepared *p, struct cordon_err *e)
{
	struct utsname u;
	struct limits_facts f = {
		.root = geteuid() == 0,
		.own_pidns = !p->pm.inherit,
		.pidns_pid_max = uname(&u) == 0 && limits_release_at_least(u.release, 6, 14),
		.sysctl_ro = procprobe_sysctl_ro(),
	};
	p->pm.sysctl_ro = f.sysctl_ro;
	cgroup_probe(&f.memory, &f.pids, &f.cpu);
	return limits_decide(c, &f, &p->limits, e);
}

/* What resolve found worth telling (a --deny-read path missing inside a
 * writable root), for a run and explain alike. */
static void print_notes(const struct resolved *r)
{
	for (size_t i = 0; i < r->nnotes; i++)
		fprintf(stderr, "cordon: %s\n", r->notes[i]);
}

/* The PID namespace mode (plan/procmode.h): probes only for auto. */
static void prepare_pid_mode(const struct config *c, struct prepared *p)
{
	/* An explicit mode needs no probe; auto asks it (cached). */
	p->pm.verdict = c->pid == PID_AUTO ? procprobe_fresh_proc() : PROCMODE_NOT_PROBED;
	procmode_pick(c->pid, p->pm.verdict, &p->pm.inherit);
	p->pm.decided = 1;
	if (p->pm.inherit)
		bwrap_share_pidns(&p->bwrap);
}

void prepare_print_lost(const struct prepared *p)
{
	if (p->pm.inherit)
		fprintf(stderr, "cordon: note: the command shares this machine's PID namespace and "
			"/proc (%s): it sees other processes and their command lines; Landlock "
			"keeps it from signalling, tracing or reading them (cordon doctor)\n",
			p->pm.verdict == PROCMODE_FRESH_REFUSED ? "a fresh /proc cannot be mounted here"
							   : "--pid-ns inherit");
	if (p->limits.decided && (!p->limits.watches_shared || p->limits.watches_err))
		fprintf(stderr, "cordon: note: inotify and fanotify: %s\n",
			limits_how(&p->limits, LIMITS_WATCHES));
	if (p->limits.decided && p->limits.pids_way == LIMITS_PIDS_NONE &&
	    (p->pm.inherit || p->pm.sysctl_ro))
		fprintf(stderr, "cordon: note: processes are not counted: %s\n",
			p->pm.inherit ? "as root, cordon counts them in the sandbox's own PID "
					 "namespace, which it does not have here"
				       : "/proc/sys is read-only here, and no cgroup with the "
					 "pids controller is cordon's to make");
}

/* The caller's PID namespace is safe only with signals scoped by Landlock
 * (ABI 6): refused here, before anything starts, with the words
 * cordon-inner would use (it checks again, and is what enforces it). */
static int check_inherit_landlock(const struct prepared *p, struct cordon_err *e)
{
	if (!p->pm.inherit)
		return 0;
	/* landlock_create_ruleset(NULL, 0, LANDLOCK_CREATE_RULESET_VERSION) */
	long abi = syscall(SYS_landlock_create_ruleset, NULL, 0, 1U);
	if (abi >= 6)
		return 0;
	return err_set(e, EOPNOTSUPP,
		       "%s needs Landlock ABI 6 (Linux 6.12) to keep the command's signals in "
		       "the sandbox; %s: refusing (cordon doctor)",
		       p->pm.verdict == PROCMODE_FRESH_REFUSED
			       ? "a fresh /proc cannot be mounted here (a container), and sharing "
				 "this machine's PID namespace"
			       : "--pid-ns inherit",
		       abi > 0 ? "this kernel's Landlock is older" : "no Landlock here");
}

/* An explicit --pid-ns isolate is never relaxed: where the kernel refuses
 * the sandbox a fresh /proc (a container's masked one), it is refused here,
 * with what would do, rather than by bwrap's "Can't mount proc". */
static int check_isolate_possible(const struct config *c, struct cordon_err *e)
{
	if (c->pid != PID_ISOLATE || procprobe_fresh_proc() != PROCMODE_FRESH_REFUSED)
		return 0;
	return err_set(e, EPERM, "--pid-ns isolate: the kernel refuses the sandbox a /proc of its "
		       "own here (masked /proc entries, as in a container); pass --pid-ns auto "
		       "(cordon doctor says what it loses) or unmask /proc (--security-opt "
		       "systempaths=unconfined)");
}

int prepare_plan(const struct config *c, struct prepared *p, struct protect_run *prot,
		 struct cordon_err *e)
{
	int r;
	prepare_pid_mode(c, p);
	if ((r = check_isolate_possible(c, e)) < 0 || (r = check_inherit_landlock(p, e)) < 0 || (r = decide_limits(c, p, e)) < 0 ||
	    (r = resolve_config(c, &p->res, e)) < 0)
		return r;
	print_notes(&p->res);
	return protect_gather(&p->res, c, prot, e);
}

static int env_named(const struct config *c, const char *key)
{
	for (size_t i = 0; i < c->nenv; i++)
		if (strcmp(c->env[i].key, key) == 0)
			return 1;
	return 0;
}

int prepare_env(const struct config *c, struct prepared *p, struct cordon_err *e)
{
	int r;
	if ((r = env_build(environ, c, &p->env, e)) < 0 ||
	    (r = toolenv_apply(c, p->cache_dir, &p->env, e)) < 0 ||
	    (r = proxy_env(c, p, e)) < 0)
		return r;
	/* bwrap sets PWD to the directory it changes to (--chdir): said
	 * here, so that explain lists it with the rest. */
	if (p->res.cwd.path && !env_named(c, "PWD") && env_set(&p->env, "PWD", p->res.cwd.path) < 0)
		return err_set(e, ENOMEM, "out of memory building the environment");
	return 0;
}

/* The PID cordon-inner stands in for (inner/standin.h): cordon's parent,
 * the editor or agent that may have told a language server its PID.  None
 * in the host's PID namespace, where the parent is visible as it is. */
static pid_t standin_pid(const struct prepared *p)
{
	pid_t ppid = getppid();
	return p->pm.inherit || ppid <= 1 ? 0 : ppid;
}

/* The host sockets allowed by path, to cordon-inner's supervisor. */
static int allow_sockets(struct prepared *p, struct cordon_err *e)
{
	int r = 0;
	for (size_t i = 0; i < p->res.nsockets && r == 0; i++)
		r = inner_link_allow_socket(&p->inner, p->res.sockets[i].dev, p->res.sockets[i].ino, e);
	return r;
}

/* bwrap's options apart from the channels' descriptors. */
static void fill_opts(const struct config *c, struct prepared *p)
{
	p->bo = (struct bwrap_opts){
		.bwrap_name = "bwrap",
		/* Never the caller's session: with a terminal the command
		 * gets a session of its own on its own pty (launch/pty.h). */
		.new_session = 1,
		.share_pid = p->pm.inherit,
		.share_net = c->net == NET_FULL,
		.standin = standin_pid(p) > 0,
		.info_fd = -1,
		.userns_block_fd = -1,
		.cmd = c->cmd,
	};
}

int prepare_open(const struct config *c, const struct inner_term *t, struct prepared *p,
		 struct protect_run *prot, struct cordon_err *e)
{
	int r;
	if ((r = prepare_plan(c, p, prot, e)) < 0 ||
	    (r = toolenv_cache_root(c, &p->res, p->cache_dir, sizeof(p->cache_dir), e)) < 0 ||
	    (r = bwrap_find(p->res.roots, p->res.nroots, &p->bin, e)) < 0 ||
	    (r = bridge_link_open(&p->bridge, c, e)) < 0 ||
	    (r = inner_link_open(&p->inner, c, t, bridge_link_inner_fd(&p->bridge), e)) < 0 ||
	    (p->pm.inherit && (r = inner_link_share_pid(&p->inner, e)) < 0) ||
	    (standin_pid(p) > 0 && (r = inner_link_standin(&p->inner, standin_pid(p), e)) < 0) ||
	    (r = allow_sockets(p, e)) < 0 ||
	    (r = bwrap_open(&p->bwrap, e)) < 0 ||
	    (r = prepare_env(c, p, e)) < 0)
		return r;
	fill_opts(c, p);
	bwrap_fill_opts(&p->bwrap, &p->bo);
	inner_link_fill_opts(&p->inner, &p->bo);
	return collect_keep(p, prot, e);
}

int prepare_explain(const struct config *c, const struct inner_term *t, const char *cache_dir,
		    struct prepared *p, struct cordon_err *e)
{
	(void)snprintf(p->cache_dir, sizeof(p->cache_dir), "%s", cache_dir ? cache_dir : "");
	int r;
	if ((r = inner_link_plan(&p->inner, c, t, e)) < 0 ||
	    (p->pm.inherit && (r = inner_link_share_pid(&p->inner, e)) < 0) ||
	    (standin_pid(p) > 0 && (r = inner_link_standin(&p->inner, standin_pid(p), e)) < 0) ||
	    (r = allow_sockets(p, e)) < 0 ||
	    (r = prepare_env(c, p, e)) < 0)
		return r;
	fill_opts(c, p);
	inner_link_fill_opts(&p->inner, &p->bo);
	return 0;
}

int prepare_argv(const struct config *c, const struct protect_decision *d, struct prepared *p,
		 struct cordon_err *e)
{
	struct plan_input in = {
		p->res.roots, p->res.nroots, p->res.carves, p->res.ncarves,
		d, p->res.masks, p->res.nmasks,
		c->tmp == TMP_PRIVATE, c->full_write, p->res.cwd.path,
		p->res.proc, p->res.tmpfs_size,
		(const char *const *)p->res.kernel_ro, p->res.nkernel_ro,
		p->pm.inherit, p->res.sockets, p->res.nsockets,
	};
	int r;
	if ((r = mount_plan_build(&in, &p->plan, e)) < 0 ||
	    (r = bwrap_argv_options(&p->plan, &p->bo, &p->argv, e)) < 0)
		return r;
	p->nopts = p->argv.n;
	return bwrap_argv_command(&p->bo, &p->argv, e);
}

void prepare_free(struct prepared *p)
{
	/* Still running here only when the run failed before the command
	 * could start: cordon-inner waits for the bind checks. */
	bwrap_close(&p->bwrap);
	cgroup_run_remove(&p->cgroup);
	bridge_end(&p->bridge, 0);
	sys_close(&p->bridge.decisions);
	inner_link_close(&p->inner);
	resolved_free(&p->res);
	sys_close(&p->bin.fd);
	argv_free(&p->env);
	free(p->keep);
	mount_plan_free(&p->plan);
	argv_free(&p->argv);
}
