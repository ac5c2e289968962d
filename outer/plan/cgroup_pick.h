/* cgroup_pick.h: where a run's cgroup can go, from what /proc and cgroupfs
 * say (pure: the texts and access facts are read by hostpaths/cgroup.c).
 *
 * A limit on the whole process tree needs a cgroup the caller may create
 * and move the sandbox into:
 *   - cgroup v2 (the unified hierarchy, "0::PATH" in /proc/self/cgroup):
 *     the caller's own cgroup C when C itself already enables the
 *     controller for its children (cgroup.subtree_control), else C's parent
 *     P when P does.  A new child of C could not get the controller
 *     otherwise: enabling it in C is refused while C holds processes
 *     (cordon itself), the "no internal processes" rule.  Moving the sandbox
 *     from C needs write access to cgroup.procs of the common ancestor of
 *     C and the new cgroup (C or P), besides the directory itself.
 *   - cgroup v1 (one hierarchy per controller, "N:memory,...:PATH"): the
 *     caller's own cgroup in that hierarchy when it is writable.  The new
 *     cgroup is always a child of the caller's own, so a limit set on the
 *     caller still holds on the sandbox.
 * A v2 sibling under P leaves C's own limits (not P's): said in doctor. */
#ifndef CORDON_CGROUP_PICK_H
#define CORDON_CGROUP_PICK_H

#include <stddef.h>

enum cgroup_pick_way { CGROUP_PICK_NONE, CGROUP_PICK_V2, CGROUP_PICK_V1 };

/* The cgroup path of controller ctrl ("memory"; NULL: the v2 hierarchy)
 * in a /proc/PID/cgroup text.  0, or -ENOENT when no line names it, or
 * -ENAMETOOLONG. */
int cgroup_pick_self(const char *proc_cgroup, const char *ctrl, char *path, size_t n)
	__attribute__((warn_unused_result));

/* Where the hierarchy of ctrl (NULL: cgroup2) is mounted, from a
 * /proc/PID/mountinfo text: its mount point and the cgroup path it shows
 * (field 4, "/" unless mounted from inside a cgroup namespace).  The first
 * such mount wins.  0, -ENOENT, or -ENAMETOOLONG. */
int cgroup_pick_mount(const char *mountinfo, const char *ctrl, char *mnt, size_t mn, char *root,
		      size_t rn) __attribute__((warn_unused_result));

/* The directory of cgroup path `path` in a hierarchy mounted at mnt that
 * shows `root`: mnt + (path without root).  -ENOENT when path is not
 * beneath root (the cgroup is out of this mount's sight). */
int cgroup_pick_dir(const char *mnt, const char *root, const char *path, char *out, size_t n)
	__attribute__((warn_unused_result));

/* 1 if the space-separated list (cgroup.controllers, subtree_control)
 * holds ctrl. */
int cgroup_pick_lists(const char *list, const char *ctrl);

/* The parent directory of a cgroup directory, or -ENOENT at the mount. */
int cgroup_pick_parent(const char *dir, const char *mnt, char *out, size_t n)
	__attribute__((warn_unused_result));

/* What the caller may do in one v2 cgroup directory. */
struct cgroup_v2_dir {
	int exists;       /* the directory is known */
	int writable;     /* the caller may create in it and write its cgroup.procs */
	const char *subtree; /* its cgroup.subtree_control */
};

/* Which v2 directory a run's cgroup for ctrl goes in: 0 own, 1 parent, -1
 * neither.  ctrl NULL: a cgroup for the CPU time only, which every v2
 * cgroup counts (cpu.stat's usage_usec) with no controller enabled, and
 * which a cgroup holding processes may still have as a child. */
int cgroup_pick_v2(const struct cgroup_v2_dir *own, const struct cgroup_v2_dir *parent,
		   const char *ctrl);

/* The CPU time a cgroup's processes used, in microseconds, from its v2
 * cpu.stat ("usage_usec N" line) or its v1 cpuacct.usage (nanoseconds).
 * 0, or -EINVAL when the text says no such thing. */
int cgroup_pick_cpu_usec(const char *text, int v2, unsigned long long *usec)
	__attribute__((warn_unused_result));

/* 1 if a cgroup directory name is a run's of an older cordon
 * ("cordon-PID-START"), with its owner's pid and start time. */
int cgroup_pick_run_name(const char *name, long *pid, unsigned long long *start);

/* A run's cgroup is named "cordon-" and 16 random hex digits
 * (CGROUP_PICK_RANDOM_LEN bytes in all): its name tells nothing of cordon
 * (the command can list the hierarchy, read-only, and find its own cgroup
 * there; a name holding cordon's pid told it that pid).  Whether its run
 * lives is told by a lock instead: cordon holds an exclusive flock(2) on
 * the directory from right after it made it until it is removed. */
#define CGROUP_PICK_RANDOM_LEN 23

/* 1 if name is such a run's cgroup name. */
int cgroup_pick_run_random(const char *name);

/* The facts a sweep gathers about one run's cgroup with a random name. */
struct cgroup_sweep_facts {
	int mine;        /* the run of this very process (the guardian, cordon gone) */
	int held;        /* its flock is held by a process outside the cgroup (its
			    cordon); a holder inside it is the command, which cannot
			    keep a dead run's cgroup alive that way */
};

/* 1 if a sweep removes that cgroup (its run is gone), else 0.  A cgroup
 * made a moment ago may not be locked yet: removed then, it is made again
 * (hostpaths/cgroup.c checks, lock in hand, that the directory it locked
 * is still the one at its path). */
int cgroup_pick_sweep_random(const struct cgroup_sweep_facts *f);

/* The pids holding a FLOCK (not waiting for one) on inode ino of device
 * (major, minor) in a /proc/locks text, at most max of them in pids.  The
 * number found. */
size_t cgroup_pick_lock_holders(const char *locks, unsigned major, unsigned minor,
				unsigned long long ino, long *pids, size_t max);

#endif
