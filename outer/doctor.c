/* doctor.c: see doctor.h. */
#include "doctor.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/netlink.h>
#include <linux/seccomp.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/sysinfo.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "observe/budgets.h"
#include "launch/bwrap_find.h"
#include "config.h"
#include "hostpaths/caches.h"
#include "launch/userns.h"
#include "hostpaths/cgroup.h"
#include "hostpaths/registry.h"
#include "plan/limits.h"
#include "plan/resolve.h"
#include "err.h"
#include "run.h"
#include "seccomp_bpf.h"
#include "seccomp_policy.h"
#include "launch/child.h"
#include "launch/forkcall.h"
#include "launch/procprobe.h"
#include "sys.h"

static int failures;

static void line(int ok, const char *what, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void line(int ok, const char *what, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	printf("%s: %s", what, ok ? "ok, " : "PROBLEM, ");
	vprintf(fmt, ap);
	putchar('\n');
	va_end(ap);
	if (!ok)
		failures++;
}

/* bwrap --version, read through a pipe. */
static void check_bwrap(void)
{
	struct bwrap_bin b = { .fd = -1 };
	struct cordon_err e;
	if (bwrap_find(NULL, 0, &b, &e) < 0) {
		line(0, "bwrap", "%s", e.msg);
		return;
	}
	char ver[128] = "unknown version";
	int p[2];
	if (pipe2(p, O_CLOEXEC) == 0) {
		static char *argv[] = { "bwrap", "--version", NULL };
		extern char **environ;
		const int stdio[3] = { -1, p[1], -1 };
		const struct child_spec spec = { .name = "bwrap", .exec_fd = b.fd, .argv = argv,
						 .envp = environ, .stdio = stdio };
		pid_t pid = child_spawn(&spec, &e); /* a failure leaves "unknown version" */
		sys_close(&p[1]);
		ssize_t n = pid > 0 ? sys_read_full(p[0], ver, sizeof(ver) - 1) : -1;
		if (n > 0) {
			ver[n] = '\0';
			ver[strcspn(ver, "\n")] = '\0';
		}
		sys_close(&p[0]);
		int st;
		if (pid > 0)
			(void)sys_waitpid(pid, &st);
	}
	line(1, "bwrap", "%s (%s)", b.path, ver);
	sys_close(&b.fd);
}

static void check_userns(void)
{
	char buf[32] = "";
	FILE *f = fopen("/proc/sys/user/max_user_namespaces", "re");
	if (f) {
		if (!fgets(buf, sizeof(buf), f))
			buf[0] = '\0';
		fclose(f);
	}
	long max = strtol(buf, NULL, 10);
	if (max > 0 && userns_root_lacks_setfcap())
		line(0, "user namespaces", "max_user_namespaces=%ld, but every run is refused: "
		     USERNS_SETFCAP_ADVICE, max);
	else
		line(max > 0, "user namespaces", "max_user_namespaces=%ld%s", max,
		     max > 0 ? "" : "; set the sysctl user.max_user_namespaces to a positive value");
}

/* The trial itself, in the child check_trial forks: its exit status. */
static int trial_child(void *ctx)
{
	(void)ctx;
	int null = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (null < 0 || dup2(null, 0) < 0 || dup2(null, 1) < 0)
		return EXIT_CORDON_FAILED;
	static char *cmd[] = { "true", NULL };
	/* A hung trial must not hang doctor: 30 s is ample for `true`. */
	/* The trial checks the sandbox's mechanics; whether root may run
	 * without Landlock is the landlock line's business. */
	struct config c = { .mode = MODE_RUN, .default_protect = 1, .cwd = "/", .cmd = cmd,
			    .timeout = 30, .allow_no_landlock = 1, .cache = CACHE_NONE };
	struct cordon_err e;
	int r = run_sandbox(&c, NULL, &e);
	if (r < 0)
		err_print(&e);
	return r < 0 ? EXIT_CORDON_FAILED : r;
}

/* A trial run of `true` in the real sandbox, in a child so that its signal
 * handling and descriptors do not touch ours. */
static void check_trial(void)
{
	struct timespec t0, t1;
	(void)clock_gettime(CLOCK_MONOTONIC, &t0);
	pid_t pid = forkcall_start(trial_child, NULL);
	int st = 0;
	if (pid > 0)
		(void)sys_waitpid(pid, &st);
	(void)clock_gettime(CLOCK_MONOTONIC, &t1);
	long ms = (t1.tv_sec - t0.tv_sec) * 1000 + (t1.tv_nsec - t0.tv_nsec) / 1000000;
	int ok = pid > 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0;
	line(ok, "sandbox", ok ? "a trial run of `true` succeeded in %ld ms"
			       : "a trial run of `true` failed after %ld ms (its message is above); "
				 "check bwrap and user namespaces", ms);
}

static void check_seccomp(void)
{
	size_t n;
	(void)seccomp_policy_table(&n);
	struct sock_fprog prog;
	seccomp_bpf_program(0, &prog);
	/* PR_GET_SECCOMP answers EINVAL on a kernel built without seccomp. */
	int mode = prctl(PR_GET_SECCOMP, 0, 0, 0, 0);
	if (mode < 0) {
		line(0, "seccomp", "this kernel has no seccomp (%s); cordon refuses to run without it",
		     strerror(errno));
		return;
	}
	line(1, "seccomp", "enforced: %zu rules compiled to %u BPF instructions (see cordon explain)",
	     n, prog.len);
}

/* The Unix socket supervisor needs seccomp user notification (Linux 5.0,
 * pidfd_getfd 5.6) and sock_diag for Unix sockets: without the latter binds
 * still work but every connect to a bound path is refused. */
static void check_unix_sockets(void)
{
	struct seccomp_notif_sizes sz;
	if (syscall(SYS_seccomp, SECCOMP_GET_NOTIF_SIZES, 0, &sz) < 0) {
		line(0, "unix sockets", "seccomp user notification is missing (%s); cordon "
		     "cannot start a command (or pass --allow-unix-sockets, which opens every "
		     "host socket)", strerror(errno));
		return;
	}
	AUTO_FD d = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);
	if (d < 0) {
		line(0, "unix sockets", "no sock_diag (%s): sockets bound inside can be bound but "
		     "not connected to", strerror(errno));
		return;
	}
	line(1, "unix sockets", "%s; Landlock's LANDLOCK_ACCESS_FS_RESOLVE_UNIX is not used",
	     seccomp_policy_unix_mechanism(NULL, 0));
}

/* Without Landlock, say what is lost and what each remaining layer still
 * stops, so that a user can judge the weaker sandbox. */
static void landlock_missing(int err)
{
	int root = geteuid() == 0;
	line(!root, "landlock", "ABI 0, not enforced (%s)%s",
	     err == EOPNOTSUPP ? "disabled at boot" :
	     err == ENOSYS ? "not in this kernel, or blocked by a container's seccomp profile" :
	     strerror(err),
	     root ? "; as root cordon refuses to run unless --allow-no-landlock" : "");
	printf("  lost: the second wall on writes; the read-only mounts alone confine them,\n"
	       "    so a file they leave writable (in /proc, /sys or /dev) can be written,\n"
	       "    by root whatever its mode bits; a read-only mount does not stop writes\n"
	       "    to named pipes (FIFOs) anywhere on the host (as root, systemd's\n"
	       "    /run/initctl takes runlevel requests) nor to cordon-inner's own /proc/1\n"
	       "    files (its name, OOM score)\n"
	       "  still enforced: read-only mounts outside the writable roots, /tmp and /dev;\n"
	       "    seccomp (no mount API, ptrace, setuid/setgid bits, io_uring, bpf, new user\n"
	       "    namespaces, TIOCSTI, non-AF_UNIX socketpairs; Unix sockets reach only\n"
	       "    those bound inside, checked by cordon-inner); cordon-inner (PID 1)\n"
	       "    non-dumpable under its own seccomp filter; private PID namespace (no\n"
	       "    signals out) and network namespace (loopback only, no host abstract\n"
	       "    sockets); no capabilities\n"
	       "  --require-landlock refuses to run here\n");
}

static void check_landlock(void)
{
	/* landlock_create_ruleset(NULL, 0, LANDLOCK_CREATE_RULESET_VERSION) */
	long abi = syscall(SYS_landlock_create_ruleset, NULL, 0, 1U);
	if (abi > 0)
		line(1, "landlock", "ABI %ld, enforced: the command may write only beneath its "
		     "writable roots, /tmp and /dev%s", abi,
		     abi >= 6 ? "; abstract Unix sockets and signals scoped to the sandbox" : "");
	else
		landlock_missing(errno);
}

/* Inside a container (plan/procmode.h): what a fresh /proc and a read-only
 * /proc/sys leave of the sandbox, and what the container would need. */
static void check_container(void)
{
	enum procmode_verdict v = procprobe_fresh_proc();
	int ro = procprobe_sysctl_ro();
	long abi = syscall(SYS_landlock_create_ruleset, NULL, 0, 1U);
	if (v == PROCMODE_UNKNOWN)
		line(1, "pid namespace", "%s; runs keep a PID namespace of their own, and bwrap "
		     "says what fails (see user namespaces and sandbox)", procmode_verdict_words(v));
	else if (v != PROCMODE_FRESH_REFUSED)
		line(1, "pid namespace", "%s: the sandbox gets a PID namespace and /proc of its own",
		     procmode_verdict_words(v));
	else {
		line(abi >= 6, "pid namespace", "%s; runs share this machine's PID namespace and "
		     "its /proc, read-only (--pid-ns auto)%s", procmode_verdict_words(v),
		     abi >= 6 ? "" : "; that needs Landlock ABI 6 (Linux 6.12), so every run is "
				    "refused here");
		printf("  still enforced: Landlock's signal scope (the command cannot signal any\n"
		       "    process outside the sandbox) and its ptrace rule (nor trace one, nor read\n"
		       "    its /proc/PID/environ, mem, fd or root); seccomp, which also keeps it from\n"
		       "    renicing, pinning or limiting them, cordon included (setpriority,\n"
		       "    sched_set*, ioprio_set and prlimit act on itself only; prlimit may read\n"
		       "    another's limits); cordon-inner reaps and at the end kills the\n"
		       "    command's orphans (a child subreaper), and a run that cordon stops\n"
		       "    ends only once every process of the sandbox is gone\n"
		       "  lost: the command sees this machine's processes and their command lines;\n"
		       "    a cordon killed with SIGKILL leaves the command's processes running,\n"
		       "    still confined, until they exit; as root, processes are counted only\n"
		       "    with a cgroup (see limits)\n"
		       "  the container would need: /proc unmasked, e.g. docker or podman\n"
		       "    --security-opt systempaths=unconfined, or Kubernetes\n"
		       "    securityContext.procMount: Unmasked\n");
	}
	if (ro)
		line(1, "sysctl", "/proc/sys is read-only (a container's): the sandbox's share of the "
		     "caller's inotify and fanotify counts is not set, so a command may use them all; "
		     "the container would need a writable /proc/sys (systempaths=unconfined)");
}

/* Where the run's cgroup for a controller would go, or why none. */
static const char *cgroup_where(const struct limits_cgroup *g)
{
	return g->way != CGROUP_PICK_NONE ? g->dir
	       : "no cgroup: none of the caller's own is writable with this controller, where "
		 "one is needed (cgroup v2: a delegated subtree, as systemd gives user@UID.service; "
		 "the CPU time needs none)";
}

/* What this machine can limit for this caller, and how (plan/limits.h):
 * the plan a run with every limit set would get. */
static void check_limits(void)
{
	struct utsname u;
	struct sysinfo si;
	unsigned long long ram = sysinfo(&si) == 0 ? (unsigned long long)si.totalram * si.mem_unit : 0;
	int known = uname(&u) == 0;
	struct limits_facts f = {
		.root = geteuid() == 0,
		.own_pidns = procprobe_fresh_proc() != PROCMODE_FRESH_REFUSED,
		.pidns_pid_max = known && limits_release_at_least(u.release, 6, 14),
		.sysctl_ro = procprobe_sysctl_ro(),
	};
	cgroup_probe(&f.memory, &f.pids, &f.cpu);
	struct config c = { .limit_memory = 1, .limit_cpu = 1, .limit_pids = LIMITS_DEFAULT_PIDS };
	struct limits_plan p;
	struct cordon_err e;
	printf("limits: /tmp and /dev/shm are tmpfs of %llu MiB each (--tmp-size), the rest of "
	       "/dev read-only\n", resolve_tmpfs_default(ram) >> 20);
	if (limits_decide(&c, &f, &p, &e) < 0)
		printf("limits: processes: NOT counted for root here (root is exempt from "
		       "RLIMIT_NPROC; a per-namespace pid_max needs Linux 6.14, a PID namespace "
		       "of the sandbox's own and a writable /proc/sys): --limit-pids is "
		       "refused; %s\n", cgroup_where(&f.pids));
	else if (p.pids_way == LIMITS_PIDS_PIDNS)
		printf("limits: processes: %lu per sandbox by default (--limit-pids, at least %lu), "
		       "as %s\n", LIMITS_DEFAULT_PIDS, LIMITS_PID_MAX_MIN - 1, limits_how(&p, LIMITS_PIDS));
	else
		printf("limits: processes: %lu per sandbox by default (--limit-pids), as %s%s%s\n",
		       LIMITS_DEFAULT_PIDS, limits_how(&p, LIMITS_PIDS),
		       p.pids_way == LIMITS_PIDS_CGROUP ? " in " : "",
		       p.pids_way == LIMITS_PIDS_CGROUP ? p.pids_cg.dir : "");
	printf("limits: --limit-memory: %s%s%s\n", limits_how(&p, LIMITS_MEMORY),
	       p.memory ? ", in " : "; the sandbox's total is not bounded, ", cgroup_where(&f.memory));
	printf("limits: --limit-cpu: %s%s%s\n", limits_how(&p, LIMITS_CPU),
	       p.cpu_tree ? ", counted in " : "; the sandbox's total is not bounded, ",
	       cgroup_where(&f.cpu));
}

/* The registry of materialized mount points: usable, and nothing leaked. */
static void check_registry(void)
{
	struct registry reg = REGISTRY_INIT;
	struct cordon_err e;
	if (registry_open(&reg, &e) < 0) {
		line(0, "registry", "%s", e.msg);
		registry_close(&reg);
		return;
	}
	size_t records = 0;
	if (registry_count(&reg, &records, &e) < 0) {
		line(0, "registry", "%s", e.msg);
		registry_close(&reg);
		return;
	}
	line(1, "registry", "%s, %zu run record%s (cordon reclaim removes what dead runs left)",
	     reg.path, records, records == 1 ? "" : "s");
	registry_close(&reg);
}

/* The per-user counts runs depend on: the caller's inotify instances (one
 * per run for its watch, outside the sandbox), and each sandbox's budget of
 * every count it shares with the caller. */
static void check_budgets(void)
{
	struct budget b[BUDGETS_N];
	budgets_read(b);
	long used = budgets_inotify_in_use();
	if (!b[0].known) {
		line(0, "inotify", "cannot read /proc/sys/user/max_inotify_instances: every run "
		     "then holds missing names with placeholders");
	} else if (used < 0) {
		line(1, "inotify", "limit %llu instances (fs.inotify.max_user_instances); cannot "
		     "count those in use (/proc)", b[0].limit);
	} else {
		unsigned long long left = (unsigned long long)used < b[0].limit
						  ? b[0].limit - (unsigned long long)used : 0;
		line(1, "inotify", "%ld of %llu instances in use by your processes; each run "
		     "takes 1 for its watch, and its sandbox may take %llu more: %llu more runs "
		     "can watch at once, later ones hold missing protected names with "
		     "placeholders (raise with sysctl fs.inotify.max_user_instances=N)",
		     used, b[0].limit, b[0].sandbox, left);
	}
	printf("budgets: each sandbox may take");
	for (size_t i = 0; i < BUDGETS_N; i++) {
		if (!b[i].known)
			continue;
		if (b[i].sandbox == ULLONG_MAX)
			printf("%s %s: unlimited", i ? ";" : "", b[i].name);
		else
			printf("%s %s: %llu of your %llu (%s)", i ? ";" : "", b[i].name,
			       b[i].sandbox, b[i].limit, b[i].raise);
	}
	putchar('\n');
}

/* The cache directory (--cache private): usable, and how big. */
static void check_caches(void)
{
	char msg[PATH_MAX + 256];
	int ok = caches_describe(msg, sizeof(msg));
	line(ok, "caches", "%s", msg);
}

/* --git commit watches each split git dir (its missing config entries and
 * its config's lock file) with inotify, as watch mode does the roots. */
static void check_git(void)
{
	char buf[32] = "";
	AUTO_FD fd = open("/proc/sys/fs/inotify/max_user_watches", O_RDONLY | O_CLOEXEC);
	ssize_t n = fd >= 0 ? sys_read_full(fd, buf, sizeof(buf) - 1) : -1;
	long max = n > 0 ? strtol(buf, NULL, 10) : 0;
	line(max >= 64, "git", "--git commit (git's data writable in a protected .git, its config "
	     "and hooks read-only) can be used: it watches each git dir and its submodules' and "
	     "worktrees' with inotify (fs.inotify.max_user_watches = %ld); the default is "
	     "--git read-only", max);
}

int doctor_run(void)
{
	failures = 0;
	check_bwrap();
	check_userns();
	check_seccomp();
	check_unix_sockets();
	check_landlock();
	check_container();
	check_registry();
	check_limits();
	check_caches();
	check_budgets();
	check_git();
	(void)fflush(stdout);
	check_trial();
	return failures ? 1 : 0;
}
