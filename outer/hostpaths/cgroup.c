/* cgroup.c: see cgroup.h. */
#include "hostpaths/cgroup.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>
#include "procstat.h"
#include "sys.h"

#define TEXT_MAX (1 << 20)       /* mountinfo of a busy host fits */
#define REMOVE_TRIES 200
#define REMOVE_STEP_MS 10
#define MEMBERS_MAX 4096
#define LOCK_TRIES 100
#define LOCK_STEP_MS 1
#define HOLDERS_MAX 64

/* This run's cgroup name (cgroup_run_name_pick); made_here: this process
 * made it (cordon; the guardian, forked before, did not). */
static char run_name[CGROUP_PICK_RANDOM_LEN + 1];
static int made_here;
/* The whole of a small kernel-made text file, NUL-terminated, in a buffer
 * of the caller's to free; NULL if it cannot be read. */
static char *read_text(const char *path)
{
	AUTO_FD fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	size_t cap = 4096, len = 0;
	char *buf = malloc(cap);
	while (buf) {
		ssize_t n = sys_read_full(fd, buf + len, cap - len - 1);
		if (n < 0)
			break;
		len += (size_t)n;
		if (len + 1 < cap) {
			buf[len] = '\0';
			return buf;
		}
		char *more = cap < TEXT_MAX ? realloc(buf, cap * 2) : NULL;
		if (!more)
			break;
		buf = more;
		cap *= 2;
	}
	free(buf);
	return NULL;
}

static int write_text(const char *dir, const char *file, const char *text)
{
	char path[PATH_MAX + 64];
	(void)snprintf(path, sizeof(path), "%s/%s", dir, file);
	AUTO_FD fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	return sys_write_all(fd, text, strlen(text));
}

/* The caller may make a cgroup in dir and move a process there. */
static int writable(const char *dir)
{
	char procs[PATH_MAX + 16];
	(void)snprintf(procs, sizeof(procs), "%s/cgroup.procs", dir);
	return faccessat(AT_FDCWD, dir, W_OK | X_OK, AT_EACCESS) == 0 &&
	       faccessat(AT_FDCWD, procs, W_OK, AT_EACCESS) == 0;
}

/* A v2 directory's facts; subtree is set to a buffer to free. */
static void v2_dir(const char *dir, struct cgroup_v2_dir *d, char **subtree)
{
	char path[PATH_MAX + 32];
	(void)snprintf(path, sizeof(path), "%s/cgroup.subtree_control", dir);
	*subtree = read_text(path);
	*d = (struct cgroup_v2_dir){ *subtree != NULL, *subtree && writable(dir), *subtree };
}

/* The unified hierarchy: where a run's cgroup goes for each controller, if
 * anywhere.  The caller's cgroup and its parent are read once for both. */
static void probe_v2(const char *self, const char *mi, struct limits_cgroup *pids,
		     struct limits_cgroup *memory, struct limits_cgroup *cpu)
{
	char path[PATH_MAX], mnt[PATH_MAX], root[PATH_MAX], own[PATH_MAX], parent[PATH_MAX];
	if (cgroup_pick_self(self, NULL, path, sizeof(path)) < 0 ||
	    cgroup_pick_mount(mi, NULL, mnt, sizeof(mnt), root, sizeof(root)) < 0 ||
	    cgroup_pick_dir(mnt, root, path, own, sizeof(own)) < 0)
		return;
	char *st_own = NULL, *st_parent = NULL;
	struct cgroup_v2_dir o, p = { 0 };
	v2_dir(own, &o, &st_own);
	if (cgroup_pick_parent(own, mnt, parent, sizeof(parent)) == 0)
		v2_dir(parent, &p, &st_parent);
	struct { const char *ctrl; struct limits_cgroup *out; } want[] = {
		{ "pids", pids }, { "memory", memory },
	};
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		int at = cgroup_pick_v2(&o, &p, want[i].ctrl);
		if (at < 0)
			continue;
		want[i].out->way = CGROUP_PICK_V2;
		(void)snprintf(want[i].out->dir, sizeof(want[i].out->dir), "%s",
			       at == 0 ? own : parent);
	}
	/* A process is in one v2 cgroup: the CPU time is counted in the one
	 * that also holds a limit, if there is one. */
	const char *dir = pids->way == CGROUP_PICK_V2 ? pids->dir :
			  memory->way == CGROUP_PICK_V2 ? memory->dir : NULL;
	if (!dir) {
		int at = cgroup_pick_v2(&o, &p, NULL);
		dir = at == 0 ? own : at == 1 ? parent : NULL;
	}
	if (dir) {
		cpu->way = CGROUP_PICK_V2;
		(void)snprintf(cpu->dir, sizeof(cpu->dir), "%s", dir);
	}
	free(st_own);
	free(st_parent);
}

static void probe_v1(const char *self, const char *mi, const char *ctrl, struct limits_cgroup *out)
{
	char path[PATH_MAX], mnt[PATH_MAX], root[PATH_MAX], own[PATH_MAX];
	if (cgroup_pick_self(self, ctrl, path, sizeof(path)) < 0 ||
	    cgroup_pick_mount(mi, ctrl, mnt, sizeof(mnt), root, sizeof(root)) < 0 ||
	    cgroup_pick_dir(mnt, root, path, own, sizeof(own)) < 0 || !writable(own))
		return;
	out->way = CGROUP_PICK_V1;
	(void)snprintf(out->dir, sizeof(out->dir), "%s", own);
}

void cgroup_probe(struct limits_cgroup *memory, struct limits_cgroup *pids,
		  struct limits_cgroup *cpu)
{
	char *self = read_text("/proc/self/cgroup");
	char *mi = self ? read_text("/proc/self/mountinfo") : NULL;
	cgroup_probe_texts(self, mi, memory, pids, cpu);
	free(self);
	free(mi);
}

void cgroup_probe_texts(const char *self, const char *mi, struct limits_cgroup *memory,
			struct limits_cgroup *pids, struct limits_cgroup *cpu)
{
	memory->way = pids->way = cpu->way = CGROUP_PICK_NONE;
	memory->dir[0] = pids->dir[0] = cpu->dir[0] = '\0';
	if (self && mi) {
		probe_v2(self, mi, pids, memory, cpu);
		/* A process is in one v2 cgroup: both limits must be set on
		 * the same one, and the process count is the one every run
		 * has. */
		if (pids->way == CGROUP_PICK_V2 && memory->way == CGROUP_PICK_V2 &&
		    strcmp(pids->dir, memory->dir) != 0)
			memory->way = CGROUP_PICK_NONE;
		if (pids->way == CGROUP_PICK_NONE)
			probe_v1(self, mi, "pids", pids);
		if (memory->way == CGROUP_PICK_NONE)
			probe_v1(self, mi, "memory", memory);
		if (cpu->way == CGROUP_PICK_NONE)
			probe_v1(self, mi, "cpuacct", cpu);
	}
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

/* 1 if pid is listed in the cgroup.procs text. */
static int listed(const char *procs, long pid)
{
	for (const char *s = procs; s && *s;) {
		char *end;
		if (strtol(s, &end, 10) == pid)
			return 1;
		s = *end ? end + 1 : NULL;
	}
	return 0;
}

/* SIGKILL everything in the cgroup at dir.  v2 has cgroup.kill (5.14+);
 * otherwise each member listed is killed through a pidfd taken and then
 * checked against a second listing, so that a pid reused in between is not
 * killed. */
static void kill_members(const char *dir)
{
	char path[PATH_MAX + 16];
	if (write_text(dir, "cgroup.kill", "1") == 0)
		return;
	(void)snprintf(path, sizeof(path), "%s/cgroup.procs", dir);
	char *before = read_text(path);
	static int fds[MEMBERS_MAX];
	static long pids[MEMBERS_MAX];
	size_t n = 0;
	for (const char *s = before; s && *s && n < MEMBERS_MAX;) {
		char *end;
		long pid = strtol(s, &end, 10);
		if (end == s)
			break;
		int fd = pid > 0 ? (int)syscall(SYS_pidfd_open, (pid_t)pid, 0) : -1;
		if (fd >= 0) {
			fds[n] = fd;
			pids[n++] = pid;
		}
		s = *end ? end + 1 : end;
	}
	free(before);
	char *after = read_text(path);
	for (size_t i = 0; i < n; i++) {
		if (after && listed(after, pids[i]))
			(void)syscall(SYS_pidfd_send_signal, fds[i], SIGKILL, NULL, 0);
		sys_close(&fds[i]);
	}
	free(after);
}

/* rmdir, ending the members first if any are left (the sandbox's PID 1 is
 * reaped by then, and the kernel ends its namespace's processes with it;
 * with --pid-ns inherit some may outlive it). */
static int remove_dir(const char *dir)
{
	for (int i = 0; i < REMOVE_TRIES; i++) {
		if (rmdir(dir) == 0 || errno == ENOENT)
			return 0;
		if (errno != EBUSY)
			return -errno;
		kill_members(dir);
		sleep_ms(REMOVE_STEP_MS);
	}
	return -EBUSY;
}

void cgroup_run_remove(struct cgroup_run *r)
{
	sys_close(&r->cpu_fd);
	sys_close(&r->kill_fd);
	while (r->n > 0) {
		r->n--;
		int rc = remove_dir(r->dir[r->n]);
		/* Released only now: a sweep meanwhile takes it for a live run's. */
		sys_close(&r->lock[r->n]);
		if (rc < 0)
			fprintf(stderr, "cordon: cannot remove the run's cgroup %s: %s (the next run "
				"removes it)\n", r->dir[r->n], strerror(-rc));
	}
}

/* 1 if a process outside the cgroup at dir holds the flock on fd (its
 * cordon); 0 if nobody does, or only the command inside it (then this
 * process may hold the lock now: fd keeps it until closed). */
static int held_outside(int fd, const char *dir)
{
	struct stat st;
	if (flock(fd, LOCK_EX | LOCK_NB) == 0)
		return 0;
	if (errno != EWOULDBLOCK || fstat(fd, &st) < 0)
		return 1;
	char procs[PATH_MAX + 16];
	(void)snprintf(procs, sizeof(procs), "%s/cgroup.procs", dir);
	char *locks = read_text("/proc/locks"), *members = read_text(procs);
	long pids[HOLDERS_MAX];
	size_t n = locks ? cgroup_pick_lock_holders(locks, major(st.st_dev), minor(st.st_dev),
						    (unsigned long long)st.st_ino, pids,
						    HOLDERS_MAX) : 0;
	/* Unreadable, or a holder not found: as if its cordon held it. */
	int outside = !locks || !members || n == 0 || n == HOLDERS_MAX;
	for (size_t i = 0; i < n && !outside; i++)
		outside = !listed(members, pids[i]);
	free(locks);
	free(members);
	return outside;
}

/* Is the cgroup at path, named name, a run's that is gone?  1 for a
 * random name that cgroup_pick_sweep_random gives up, or an older
 * cordon-PID-START whose cordon is gone. */
static int run_gone(const char *name, const char *path, int *lockfd)
{
	long pid;
	unsigned long long start;
	uint64_t now;
	if (cgroup_pick_run_name(name, &pid, &start)) {
		int rc = procstat_start((pid_t)pid, &now);
		return rc == 0 ? now != start : rc == -ESRCH;
	}
	if (!cgroup_pick_run_random(name))
		return 0;
	struct cgroup_sweep_facts f = { 0 };
	f.mine = !made_here && strcmp(name, run_name) == 0;
	if (f.mine)
		return cgroup_pick_sweep_random(&f);
	struct stat st;
	/* The lock this takes, if it can, is held (*lockfd, the caller's to
	 * close) until the removal that follows is done. */
	int fd = *lockfd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) < 0)
		return 0;
	f.held = held_outside(fd, path);
	return cgroup_pick_sweep_random(&f);
}

void cgroup_sweep_in(const char *parent)
{
	DIR *d = opendir(parent);
	if (!d)
		return;
	for (struct dirent *de; (de = readdir(d));) {
		char path[PATH_MAX + 256];
		(void)snprintf(path, sizeof(path), "%s/%s", parent, de->d_name);
		int lockfd = -1;
		if (run_gone(de->d_name, path, &lockfd))
			(void)remove_dir(path);
		sys_close(&lockfd);
	}
	(void)closedir(d);
}

void cgroup_sweep(void)
{
	struct limits_cgroup g[3];
	cgroup_probe(&g[0], &g[1], &g[2]);
	for (size_t i = 0; i < 3; i++) {
		int seen = g[i].way == CGROUP_PICK_NONE;
		for (size_t j = 0; j < i && !seen; j++)
			seen = g[j].way != CGROUP_PICK_NONE && strcmp(g[j].dir, g[i].dir) == 0;
		if (!seen)
			cgroup_sweep_in(g[i].dir);
	}
}

/* Make the run's cgroup at path and take its exclusive lock, held until it
 * is removed.  Until it holds the lock, a sweep takes it for a dead run's
 * and may remove it: the lock in hand, the directory at path must still be
 * the one locked, else it is made again (a few tries). */
static int make_locked(const char *path, int *out)
{
	int err = EAGAIN;
	for (int i = 0; i < LOCK_TRIES; i++) {
		struct stat here, locked;
		if (mkdir(path, 0755) < 0 && errno != EEXIST)
			return -errno;
		int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (fd < 0 && errno != ENOENT)
			return -errno;
		if (fd >= 0 && flock(fd, LOCK_EX | LOCK_NB) == 0 && fstat(fd, &locked) == 0 &&
		    stat(path, &here) == 0 && here.st_ino == locked.st_ino &&
		    here.st_dev == locked.st_dev) {
			*out = fd;
			return 0;
		}
		if (fd >= 0)
			err = errno;
		sys_close(&fd);
		sleep_ms(LOCK_STEP_MS);
	}
	return -err;
}

int cgroup_run_name_pick(struct cordon_err *e)
{
	char rnd[17];
	int rc = sys_random_hex(rnd, 8);
	if (rc < 0)
		return err_sys(e, -rc, "cannot name the run's cgroup: getrandom");
	(void)snprintf(run_name, sizeof(run_name), "cordon-%s", rnd);
	return 0;
}

/* Make (or find, v2: one for both) the run's cgroup beneath g's directory;
 * ctrl names its v1 controller. */
static int make_dir(struct cgroup_run *r, const struct limits_cgroup *g, const char *ctrl,
		    const char *name, char **dir, struct cordon_err *e)
{
	const char *parent = g->dir;
	char path[PATH_MAX];
	int len = snprintf(path, sizeof(path), "%s/%s", parent, name);
	if (len < 0 || (size_t)len >= sizeof(path))
		return err_set(e, ENAMETOOLONG, "cgroup %s: path too long", parent);
	for (size_t i = 0; i < r->n; i++)
		if (strcmp(r->dir[i], path) == 0) {
			*dir = r->dir[i];
			return 0;
		}
	cgroup_sweep_in(parent);
	made_here = 1;
	int rc = make_locked(path, &r->lock[r->n]);
	if (rc < 0)
		return err_sys(e, -rc, "cannot make the run's cgroup %s (cordon doctor says which "
			       "limits this machine enforces, and how)", path);
	memcpy(r->dir[r->n], path, (size_t)len + 1);
	r->ctrl[r->n] = g->way == CGROUP_PICK_V1 ? ctrl : NULL;
	if (g->way == CGROUP_PICK_V2 && r->kill_fd < 0) {
		char kill_path[PATH_MAX + 16];
		(void)snprintf(kill_path, sizeof(kill_path), "%s/cgroup.kill", path);
		/* Missing before Linux 5.14: then PID 1's death ends the rest. */
		r->kill_fd = open(kill_path, O_WRONLY | O_CLOEXEC);
	}
	*dir = r->dir[r->n++];
	return 0;
}

/* Write one limit; an optional file (swap accounting) may be missing. */
static int set(const char *dir, const char *file, const char *value, int optional,
	       struct cordon_err *e)
{
	int rc = write_text(dir, file, value);
	if (rc == -ENOENT && optional)
		return 0;
	return rc < 0 ? err_sys(e, -rc, "cannot set %s of the run's cgroup %s", file, dir) : 0;
}

static int set_memory(const char *dir, const struct limits_plan *p, struct cordon_err *e)
{
	char v[32];
	(void)snprintf(v, sizeof(v), "%llu\n", p->memory);
	int rc;
	if (p->memory_cg.way == CGROUP_PICK_V2)
		return (rc = set(dir, "memory.max", v, 0, e)) < 0 ? rc :
		       set(dir, "memory.swap.max", "0\n", 1, e);
	/* memsw is memory and swap together: not below the memory limit,
	 * so it is set second; equal to it, swap adds nothing. */
	return (rc = set(dir, "memory.limit_in_bytes", v, 0, e)) < 0 ? rc :
	       set(dir, "memory.memsw.limit_in_bytes", v, 1, e);
}

/* The run's cgroup that counts its CPU time, and its counter opened for
 * the supervisor's reads: a counter that cannot be read is an error, since
 * --limit-cpu would then not hold on the tree. */
static int count_cpu(struct cgroup_run *r, const struct limits_cgroup *g, const char *name,
		     struct cordon_err *e)
{
	char *dir = NULL, path[PATH_MAX + 32];
	int rc = make_dir(r, g, "cpuacct", name, &dir, e);
	if (rc < 0)
		return rc;
	r->cpu_v2 = g->way == CGROUP_PICK_V2;
	(void)snprintf(path, sizeof(path), "%s/%s", dir, r->cpu_v2 ? "cpu.stat" : "cpuacct.usage");
	r->cpu_fd = open(path, O_RDONLY | O_CLOEXEC);
	unsigned long long usec;
	if (r->cpu_fd < 0 || (rc = cgroup_run_cpu_usec(r, &usec)) < 0)
		return err_sys(e, r->cpu_fd < 0 ? errno : -rc, "--limit-cpu: cannot read the CPU "
			       "time of the run's cgroup (%s)", path);
	return 0;
}

int cgroup_run_cpu_usec(const struct cgroup_run *r, unsigned long long *usec)
{
	char buf[1024];
	if (r->cpu_fd < 0)
		return -EBADF;
	ssize_t n = pread(r->cpu_fd, buf, sizeof(buf) - 1, 0);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	return cgroup_pick_cpu_usec(buf, r->cpu_v2, usec);
}

int cgroup_run_make(struct cgroup_run *r, const struct limits_plan *p, pid_t bwrap,
		    struct cordon_err *e)
{
	char v[32];
	const char *name = run_name;
	char *mem = NULL, *pids = NULL;
	int rc;
	if (!p->memory && p->pids_way != LIMITS_PIDS_CGROUP && !p->cpu_tree)
		return 0;
	if (!run_name[0])
		return err_set(e, EINVAL, "internal: the run's cgroup has no name yet");
	if (p->memory && ((rc = make_dir(r, &p->memory_cg, "memory", name, &mem, e)) < 0 ||
			  (rc = set_memory(mem, p, e)) < 0))
		return rc;
	(void)snprintf(v, sizeof(v), "%lu\n", p->pids);
	if (p->pids_way == LIMITS_PIDS_CGROUP &&
	    ((rc = make_dir(r, &p->pids_cg, "pids", name, &pids, e)) < 0 ||
	     (rc = set(pids, "pids.max", v, 0, e)) < 0))
		return rc;
	if (p->cpu_tree && (rc = count_cpu(r, &p->cpu_cg, name, e)) < 0)
		return rc;
	(void)snprintf(v, sizeof(v), "%d\n", (int)bwrap);
	for (size_t i = 0; i < r->n; i++)
		if ((rc = write_text(r->dir[i], "cgroup.procs", v)) < 0)
			return err_sys(e, -rc, "cannot move bwrap into the run's cgroup %s",
				       r->dir[i]);
	return 0;
}

/* The directory of cordon's own cgroup in the hierarchy of ctrl (NULL:
 * v2), where bwrap came from. */
static int own_dir(const char *self, const char *mi, const char *ctrl, char *out, size_t n)
{
	char path[PATH_MAX], mnt[PATH_MAX], root[PATH_MAX];
	int rc;
	if (!self || !mi)
		return -EIO;
	if ((rc = cgroup_pick_self(self, ctrl, path, sizeof(path))) < 0 ||
	    (rc = cgroup_pick_mount(mi, ctrl, mnt, sizeof(mnt), root, sizeof(root))) < 0)
		return rc;
	return cgroup_pick_dir(mnt, root, path, out, n);
}

int cgroup_run_enter(struct cgroup_run *r, pid_t bwrap, pid_t sandbox, struct cordon_err *e)
{
	char v[32], home[PATH_MAX] = "?";
	int rc = 0;
	if (r->n == 0)
		return 0;
	char *self = read_text("/proc/self/cgroup");
	char *mi = self ? read_text("/proc/self/mountinfo") : NULL;
	for (size_t i = 0; i < r->n && rc == 0; i++) {
		(void)snprintf(v, sizeof(v), "%d\n", (int)sandbox);
		if ((rc = write_text(r->dir[i], "cgroup.procs", v)) < 0) {
			rc = err_sys(e, -rc, "cannot move the sandbox into the run's cgroup %s",
				     r->dir[i]);
			break;
		}
		(void)snprintf(v, sizeof(v), "%d\n", (int)bwrap);
		if ((rc = own_dir(self, mi, r->ctrl[i], home, sizeof(home))) < 0 ||
		    (rc = write_text(home, "cgroup.procs", v)) < 0)
			rc = err_sys(e, -rc, "cannot move bwrap from the run's cgroup %s back to "
				     "cordon's own (%s): the limits would count it; cordon doctor "
				     "says which limits this machine enforces, and how",
				     r->dir[i], home);
	}
	free(self);
	free(mi);
	return rc;
}
