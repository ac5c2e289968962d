/* landlock.c: see landlock.h.  Raw syscalls; constants newer than the build
 * host's <linux/landlock.h> are defined here, with the kernel's values. */
#include "landlock.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/landlock.h>

#include "sys.h"

/* Landlock's syscall numbers are the same on every architecture that has them
 * (the unified table), so a libc that predates them can still reach them. */
#ifndef __NR_landlock_create_ruleset
#define __NR_landlock_create_ruleset 444
#endif
#ifndef __NR_landlock_add_rule
#define __NR_landlock_add_rule 445
#endif
#ifndef __NR_landlock_restrict_self
#define __NR_landlock_restrict_self 446
#endif

#ifndef LANDLOCK_CREATE_RULESET_VERSION
#define LANDLOCK_CREATE_RULESET_VERSION (1U << 0)
#endif
#ifndef LANDLOCK_ACCESS_FS_REFER
#define LANDLOCK_ACCESS_FS_REFER (1ULL << 13)
#endif
#ifndef LANDLOCK_ACCESS_FS_TRUNCATE
#define LANDLOCK_ACCESS_FS_TRUNCATE (1ULL << 14)
#endif
#ifndef LANDLOCK_ACCESS_FS_IOCTL_DEV
#define LANDLOCK_ACCESS_FS_IOCTL_DEV (1ULL << 15)
#endif
#ifndef LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET
#define LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET (1ULL << 0)
#endif
#ifndef LANDLOCK_SCOPE_SIGNAL
#define LANDLOCK_SCOPE_SIGNAL (1ULL << 1)
#endif

/* The ruleset attribute as of ABI 6.  Older headers declare only its first
 * field, so it is spelled out here.  An older kernel accepts the larger struct
 * as long as the fields it does not know are zero (copy_struct_from_user), and
 * they are whenever the ABI lacks them. */
/* Read by the kernel, never by us: cppcheck cannot see through syscall(2). */
struct ll_ruleset_attr {
	/* cppcheck-suppress unusedStructMember */
	uint64_t handled_access_fs;
	/* cppcheck-suppress unusedStructMember */
	uint64_t handled_access_net;
	/* cppcheck-suppress unusedStructMember */
	uint64_t scoped;
};

#define LL_READ (LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_READ_FILE | \
		 LANDLOCK_ACCESS_FS_READ_DIR)
#define LL_WRITE_V1 (LANDLOCK_ACCESS_FS_WRITE_FILE | LANDLOCK_ACCESS_FS_REMOVE_DIR | \
		     LANDLOCK_ACCESS_FS_REMOVE_FILE | LANDLOCK_ACCESS_FS_MAKE_CHAR | \
		     LANDLOCK_ACCESS_FS_MAKE_DIR | LANDLOCK_ACCESS_FS_MAKE_REG | \
		     LANDLOCK_ACCESS_FS_MAKE_SOCK | LANDLOCK_ACCESS_FS_MAKE_FIFO | \
		     LANDLOCK_ACCESS_FS_MAKE_BLOCK | LANDLOCK_ACCESS_FS_MAKE_SYM)
/* The rights the kernel accepts in a rule whose parent_fd is not a directory
 * (ACCESS_FILE in security/landlock/fs.c); any other bit gets EINVAL. */
#define LL_FILE_RIGHTS (LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_WRITE_FILE | \
			LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_TRUNCATE | \
			LANDLOCK_ACCESS_FS_IOCTL_DEV)

int landlock_abi(void)
{
	long abi = syscall(__NR_landlock_create_ruleset, NULL, (size_t)0,
			   LANDLOCK_CREATE_RULESET_VERSION);
	/* ENOSYS: not built in; EOPNOTSUPP: built in but disabled at boot.
	 * Either way there is nothing to enforce with. */
	if (abi <= 0)
		return 0;
	return abi > INT32_MAX ? INT32_MAX : (int)abi;
}

void landlock_masks_for_abi(int abi, int scope, struct landlock_masks *m)
{
	m->handled_fs = 0;
	m->write_grant = 0;
	m->read_grant = 0;
	m->scoped = 0;
	if (abi <= 0)
		return;

	m->read_grant = LL_READ;
	m->write_grant = LL_WRITE_V1;
	/* With ABI 1 the kernel refuses every cross-directory rename and link
	 * (EXDEV) whatever the rules say; REFER in ABI 2 is what lifts that
	 * beneath the write paths. */
	if (abi >= 2)
		m->write_grant |= LANDLOCK_ACCESS_FS_REFER;
	/* Without TRUNCATE (ABI < 3) truncate(2) and O_TRUNC are unchecked by
	 * Landlock; the read-only mounts still stop them outside write paths. */
	if (abi >= 3)
		m->write_grant |= LANDLOCK_ACCESS_FS_TRUNCATE;
	/* IOCTL_DEV (ABI 5) is handled, so that the ruleset covers every right
	 * the kernel knows, and then granted on "/".  Device ioctls are what
	 * terminals live on: isatty() is TCGETS, line editing sets termios,
	 * job control uses TIOCSPGRP, a resize is TIOCGWINSZ; a command that
	 * opens /dev/tty (ssh, sudo, less, an editor) or a new pty through
	 * /dev/ptmx would break without it.  Granting it costs nothing the
	 * other layers do not already pay for: the only device nodes the
	 * sandbox can open are bwrap's minimal /dev (every other mount is
	 * nodev), and the dangerous terminal ioctls (TIOCSTI, TIOCLINUX) are
	 * seccomp's job, which can filter by request number while Landlock
	 * cannot.  Descriptors opened before the domain (the inherited
	 * terminal) are not checked at all, since Landlock decides at open. */
	if (abi >= 5)
		m->read_grant |= LANDLOCK_ACCESS_FS_IOCTL_DEV;
	m->handled_fs = m->read_grant | m->write_grant;
	if (abi >= 6 && scope)
		m->scoped = LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET | LANDLOCK_SCOPE_SIGNAL;
}

static int ll_add_path(int ruleset_fd, const char *path, unsigned long long allowed,
		       int require_dir, struct cordon_err *e)
{
	if (!path || path[0] != '/')
		return err_set(e, EINVAL, "landlock: writable path %s is not absolute",
			       path ? path : "(null)");
	AUTO_FD fd = open(path, O_PATH | O_CLOEXEC | (require_dir ? O_DIRECTORY : 0));
	if (fd < 0)
		return err_sys(e, errno, "landlock: cannot open %s", path);
	struct stat st;
	if (fstat(fd, &st) < 0)
		return err_sys(e, errno, "landlock: cannot stat %s", path);
	if (!S_ISDIR(st.st_mode))
		allowed &= LL_FILE_RIGHTS;
	if (allowed == 0)
		return 0;

	struct landlock_path_beneath_attr attr = {
		.allowed_access = allowed,
		.parent_fd = fd,
	};
	if (syscall(__NR_landlock_add_rule, ruleset_fd, LANDLOCK_RULE_PATH_BENEATH,
		    &attr, 0U) < 0)
		return err_sys(e, errno, "landlock: cannot add a rule for %s (cordon doctor shows the "
			       "kernel's Landlock support)", path);
	return 0;
}

/* Without Landlock, writes are confined by the read-only mounts alone: a
 * writable file the mount plan misses (a /proc or /sys knob, a device) is
 * then writable, by root whatever its mode.  A root caller accepts that
 * only with --allow-no-landlock. */
static int refuse_without_landlock(int required, struct cordon_err *e)
{
	if (required == LANDLOCK_ROOT)
		return err_set(e, EOPNOTSUPP,
			       "Landlock is unavailable here (kernel, lsm= or a container's seccomp): "
			       "as root, the read-only mounts alone would confine writes, with no "
			       "second wall; --allow-no-landlock accepts that weaker sandbox");
	if (required)
		return err_set(e, EOPNOTSUPP,
			       "--require-landlock: Landlock is unavailable here (not built in, left "
			       "out of lsm=, or blocked by a container's seccomp); enable it, or run "
			       "without --require-landlock");
	return 0;
}

int landlock_prepare(const struct landlock_plan *p, int required, int *ruleset_out,
		     struct cordon_err *e)
{
	*ruleset_out = -1;
	if (!p || (p->nwrite > 0 && !p->write_paths))
		return err_set(e, EINVAL, "landlock: no plan");

	int abi = landlock_abi();
	if (abi == 0)
		return refuse_without_landlock(required, e);

	struct landlock_masks m;
	landlock_masks_for_abi(abi, p->scope, &m);
	struct ll_ruleset_attr rattr = {
		.handled_access_fs = m.handled_fs,
		.handled_access_net = 0,
		.scoped = m.scoped,
	};
	long rfd = syscall(__NR_landlock_create_ruleset, &rattr, sizeof(rattr), 0U);
	if (rfd < 0)
		return err_sys(e, errno, "landlock: cannot create a ruleset (ABI %d)", abi);
	/* landlock_create_ruleset(2) always sets O_CLOEXEC on the new descriptor. */
	AUTO_FD ruleset_fd = (int)rfd;

	int r = ll_add_path(ruleset_fd, "/", m.read_grant, 1, e);
	if (r < 0)
		return r;
	for (size_t i = 0; i < p->nwrite; i++) {
		r = ll_add_path(ruleset_fd, p->write_paths[i], m.write_grant, 0, e);
		if (r < 0)
			return r;
	}
	*ruleset_out = sys_take_fd(&ruleset_fd);
	return 1;
}

int landlock_enforce(int ruleset_fd)
{
	if (syscall(__NR_landlock_restrict_self, ruleset_fd, 0U) < 0)
		return -errno;
	return 0;
}

int landlock_apply(const struct landlock_plan *p, int required, struct cordon_err *e)
{
	int fd = -1;
	int r = landlock_prepare(p, required, &fd, e);
	if (r <= 0)
		return r;
	r = landlock_enforce(fd);
	sys_close(&fd);
	if (r == -EPERM)
		return err_set(e, EPERM, "landlock: cannot restrict the command: "
			       "no_new_privs is not set (cordon bug)");
	if (r < 0)
		return err_sys(e, -r, "landlock: cannot restrict the command");
	return 1;
}

int landlock_scope_self(struct cordon_err *e)
{
	int abi = landlock_abi();
	if (abi < 6)
		return err_set(e, EOPNOTSUPP,
			       "sharing this machine's PID namespace (no fresh /proc here, or "
			       "--pid-ns inherit) needs Landlock ABI 6 (Linux 6.12) to keep the "
			       "command's signals in the sandbox; %s: refusing (cordon doctor)",
			       abi > 0 ? "this kernel's Landlock is older" : "no Landlock here");
	struct landlock_masks m;
	landlock_masks_for_abi(abi, 1, &m);
	struct ll_ruleset_attr rattr = { .scoped = m.scoped };
	long rfd = syscall(__NR_landlock_create_ruleset, &rattr, sizeof(rattr), 0U);
	if (rfd < 0)
		return err_sys(e, errno, "landlock: cannot create the scoping ruleset (ABI %d)", abi);
	AUTO_FD fd = (int)rfd;
	int r = landlock_enforce(fd);
	if (r < 0)
		return err_sys(e, -r, "landlock: cannot scope cordon-inner's signals");
	return 0;
}
