/* mount_plan.h: the ordered list of mounts that builds the sandbox's view of
 * the filesystem.  mount_plan_build is pure: it reads only its input (paths
 * already resolved and opened by resolve.c) and allocates the plan.  Later
 * mounts win, so the order is the policy:
 *   / read-only (or writable with --full-write); /dev, its /dev/shm a capped
 *   tmpfs; /proc, its kernel tunables read-only and its kernel-state files
 *   masked; /tmp, capped;
 *   writable roots and read-only carve-outs (and the registry's pins:
 *   writable binds of a path onto itself), shallower first (a root nested in a carve-out is
 *   mounted after it and stays writable, and the reverse);
 *   protected names (after every root, so nothing re-exposes them);
 *   host sockets allowed by path; deny-read masks; /dev remounted read-only (the mount points of everything
 *   above exist by then); then the working directory. */
#ifndef CORDON_MOUNT_PLAN_H
#define CORDON_MOUNT_PLAN_H

#include <stddef.h>
#include <sys/types.h>
#include "err.h"

/* One resolved path.  fd is an O_PATH descriptor of the object (for masks of
 * files: a descriptor of empty data for bwrap to copy), -1 where none. */
struct rpath {
	char *path;   /* canonical absolute path, owned */
	int fd;
	dev_t dev;
	ino_t ino;
	int is_dir;
	int pin;      /* registry_carve and plan/pins only: not read-only but a
			 writable bind of the path onto itself, bound by path:
			 a mount point cannot be renamed or removed (EBUSY), so
			 the sandbox cannot move it, and what lies below it,
			 out of the way */
	int writable; /* a check bound by path that cordon-inner counts as a
			 writable root (Landlock writes beneath it): --git
			 commit's common dir outside every root (gitlinked.h) */
};

struct protect_decision;

/* The /proc entries a container runtime masks or makes read-only (the OCI
 * defaults of runc, crun and containerd).  Through them a root caller would
 * act on the host kernel: kernel.core_pattern in /proc/sys runs a program as
 * host root, /proc/sysrq-trigger reboots; masked files leak kernel memory or
 * other users' keys.  /proc/pressure is added: its files are writable by
 * anyone.  A fresh procfs instance shows the same global entries
 * as the host's, so the host's /proc tells which of them exist. */
enum proc_cover { PROC_READ_ONLY, PROC_MASK };
struct proc_rule {
	const char *path;
	enum proc_cover cover;
};
#define MOUNT_PLAN_NPROC 15
extern const struct proc_rule mount_plan_proc_rules[MOUNT_PLAN_NPROC];

/* What the host's /proc holds at each rule's path. */
enum proc_kind { PROC_ABSENT, PROC_FILE, PROC_DIR };

struct plan_input {
	const struct rpath *roots;     size_t nroots;     /* writable */
	const struct rpath *carves;    size_t ncarves;    /* --read-only */
	const struct protect_decision *protect;           /* protected names and the
							   * registry carve-out; may be NULL */
	const struct rpath *masks;     size_t nmasks;     /* --deny-read */
	int tmp_private;
	int full_write;
	const char *cwd;
	/* kind of mount_plan_proc_rules[i] on the host; NULL: none exists */
	const unsigned char *proc;
	/* size in bytes of each tmpfs the command can write (/tmp, /dev/shm);
	 * 0: the kernel's default (half the memory), which resolve never asks */
	unsigned long long tmpfs_size;
	/* with full_write: the host's pseudo filesystems (sysfs, cgroupfs, ...)
	 * outside /proc and /dev, each bound read-only over the writable / */
	const char *const *kernel_ro; size_t nkernel_ro;
	/* --pid-ns inherit (plan/procmode.h): the host's /proc, bound
	 * read-only with whatever is mounted over its entries, instead of a
	 * fresh one (which a PID namespace of the caller's could not have) */
	int host_proc;
	/* --allow-unix-socket: each host socket bound read-only from its
	 * descriptor at its own path (after the protected names, before the
	 * masks: a --deny-read over it wins) */
	const struct rpath *sockets; size_t nsockets;
};

enum mount_kind {
	MOUNT_RO_BIND,     /* src dest */
	MOUNT_BIND,        /* src dest */
	MOUNT_DEV,         /* dest */
	MOUNT_PROC,        /* dest */
	MOUNT_TMPFS,       /* dest, perms, size (0: none given) */
	MOUNT_REMOUNT_RO,  /* dest */
	MOUNT_BIND_FD,     /* fd dest: writable root */
	MOUNT_RO_BIND_FD,  /* fd dest: carve-out or protected name */
	MOUNT_RO_BIND_PATH,/* dest dest: the same, opened or created after bwrap was
			    * forked; cordon-inner checks (dev, ino) at dest */
	MOUNT_MASK_FILE,   /* fd dest: empty read-only file from fd's data */
	MOUNT_MASK_DIR,    /* dest: empty read-only tmpfs */
	MOUNT_CHDIR,       /* dest */
};

struct mount_op {
	enum mount_kind kind;
	const char *src;   /* borrowed from the input */
	const char *dest;  /* borrowed from the input */
	int fd;
	unsigned perms;
	unsigned long long size;
};

struct mount_plan {
	struct mount_op *ops;
	size_t n;
};

int mount_plan_build(const struct plan_input *in, struct mount_plan *out,
		     struct cordon_err *e) __attribute__((warn_unused_result));
void mount_plan_free(struct mount_plan *p);

/* The mount the command sees at path (absolute, clean): the last one of
 * the plan whose destination holds it, as the kernel stacks them; NULL if
 * none does (a plan always starts with /). */
const struct mount_op *mount_plan_shown_at(const struct mount_plan *plan, const char *path);

#endif
