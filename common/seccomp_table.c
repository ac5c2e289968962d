/* seccomp_table.c: the rows of cordon's seccomp filters (DESIGN.md section
 * 6, the bridge's, the host-PID one) as plain data, with no libseccomp:
 * cordon (doctor, explain) and the docs read them here, seccomp_policy.c
 * compiles them, and the build embeds the compiled programs in
 * cordon-inner and cordon-bridge (seccomp_bpf.c). */
#include "seccomp_policy.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>

#define MOUNT_API "always (mount API: could hide or replace what bwrap set up)"
#define SUGID ((uint64_t)(S_ISUID | S_ISGID))
#define SUGID_MODE "mode has S_ISUID or S_ISGID"
#define SUGID_CREATE "creating (O_CREAT or O_TMPFILE) with S_ISUID or S_ISGID in the mode"

static const struct seccomp_rule_desc policy[] = {
	{ "(i386 or x32 ABI)", "any syscall not made through the x86_64 ABI "
	  "(int 0x80, or nr with bit 0x40000000)", 0,
	  SECCOMP_POLICY_FOREIGN_ABI, 0, 0 },

	/* Raw packet, bluetooth, vsock, ... sockets reach kernel code (and
	 * hosts) that bwrap's network namespace does not fence off. */
	{ "socket", "family is not AF_INET, AF_INET6, AF_NETLINK or AF_UNIX", EPERM,
	  SECCOMP_POLICY_SOCKET_FAMILY, 0, 0 },
	/* A Unix datagram socket can sendto any named socket on the host with
	 * an address no filter can read (sendmsg's sits in memory); stream
	 * and seqpacket sockets reach only what connect() reached, and the
	 * supervisor below decides that.  Kept out of the command, sendto and
	 * sendmsg need no supervision: on a stream socket the kernel refuses
	 * an address (EISCONN, EOPNOTSUPP), on a seqpacket one it ignores it. */
	{ "socket", "family is AF_UNIX and type (SOCK_NONBLOCK, SOCK_CLOEXEC "
	  "masked off) is not SOCK_STREAM or SOCK_SEQPACKET (any type with "
	  "--allow-unix-sockets)", EPERM, SECCOMP_POLICY_UNIX_SOCKET_TYPE, 0, 0 },
	/* Unix sockets that stay inside (DESIGN.md section 6): cordon-inner
	 * answers these (inner/unixsup.c) because the socket's family and the
	 * address are out of a filter's sight.  It performs a Unix connect or
	 * bind itself, on its own copy of the socket, once it has checked the
	 * target is a socket bound inside this sandbox; anything else it does
	 * or lets through unchanged. */
	{ "connect", "always, answered by cordon-inner: a Unix socket reaches only "
	  "sockets bound inside this sandbox (every call allowed with "
	  "--allow-unix-sockets)", 0, SECCOMP_POLICY_SUPERVISED, 0, 0 },
	{ "bind", "always, answered by cordon-inner: a Unix socket is bound by it "
	  "and recorded as the sandbox's own (every call allowed with "
	  "--allow-unix-sockets)", 0, SECCOMP_POLICY_SUPERVISED, 0, 0 },
	{ "socketpair", "family is not AF_UNIX", EPERM,
	  SECCOMP_POLICY_ARG0_NE, AF_UNIX, 0 },
	/* A datagram socket can sendto or connect to any named socket on the
	 * host (journald, syslog, sd_notify, a root daemon's control socket),
	 * descriptors included; a stream or seqpacket pair is connected to
	 * itself and can address nothing else. */
	{ "socketpair", "type (SOCK_NONBLOCK, SOCK_CLOEXEC masked off) is not "
	  "SOCK_STREAM or SOCK_SEQPACKET", EPERM, SECCOMP_POLICY_SOCKETPAIR_TYPE, 0, 0 },

	/* io_uring performs syscalls on the command's behalf where no seccomp
	 * filter sees them, and is a rich source of kernel bugs. */
	{ "io_uring_setup", "always", EPERM, SECCOMP_POLICY_ALWAYS, 0, 0 },
	{ "io_uring_enter", "always", EPERM, SECCOMP_POLICY_ALWAYS, 0, 0 },
	{ "io_uring_register", "always", EPERM, SECCOMP_POLICY_ALWAYS, 0, 0 },

	/* Kernel AIO contexts are counted machine-wide, not per user:
	 * fs.aio-nr against fs.aio-max-nr (65536 by default).  One
	 * io_setup(65536) in a sandbox made io_setup fail for every user of
	 * the machine, root included, until it exited.  ENOSYS, as on a
	 * kernel built without AIO: libaio's users (databases, qemu, fio)
	 * fall back to threads.  Without a context io_submit, io_getevents
	 * and the rest have nothing to act on (EINVAL). */
	{ "io_setup", "always (kernel AIO: its contexts are counted machine-wide; "
	  "libaio users fall back)", ENOSYS, SECCOMP_POLICY_ALWAYS, 0, 0 },

	/* A setuid or setgid file made by the command outlives the run: as
	 * root it is a root shell for every local user.  Whatever creates a
	 * file or sets a mode is covered; the bits are checked wherever the
	 * mode sits in the arguments. */
	{ "chmod", SUGID_MODE, EPERM, SECCOMP_POLICY_ARG_ANY_BITS, SUGID, 1 },
	{ "fchmod", SUGID_MODE, EPERM, SECCOMP_POLICY_ARG_ANY_BITS, SUGID, 1 },
	{ "fchmodat", SUGID_MODE, EPERM, SECCOMP_POLICY_ARG_ANY_BITS, SUGID, 2 },
	{ "fchmodat2", SUGID_MODE, EPERM, SECCOMP_POLICY_ARG_ANY_BITS, SUGID, 2 },
	{ "creat", SUGID_MODE, EPERM, SECCOMP_POLICY_ARG_ANY_BITS, SUGID, 1 },
	{ "open", SUGID_CREATE, EPERM, SECCOMP_POLICY_CREATE_MODE, SUGID, 1 },
	{ "openat", SUGID_CREATE, EPERM, SECCOMP_POLICY_CREATE_MODE, SUGID, 2 },
	{ "mknod", SUGID_MODE, EPERM, SECCOMP_POLICY_ARG_ANY_BITS, SUGID, 1 },
	{ "mknodat", SUGID_MODE, EPERM, SECCOMP_POLICY_ARG_ANY_BITS, SUGID, 2 },
	/* openat2 passes its flags and mode in memory, which seccomp cannot
	 * read; ENOSYS makes libc and runtimes fall back to openat. */
	{ "openat2", "always (libc falls back to openat)", ENOSYS, SECCOMP_POLICY_ALWAYS, 0, 0 },

	{ "ptrace", "always", EPERM, SECCOMP_POLICY_ALWAYS, 0, 0 },
	{ "process_vm_readv", "always", EPERM, SECCOMP_POLICY_ALWAYS, 0, 0 },
	{ "process_vm_writev", "always", EPERM, SECCOMP_POLICY_ALWAYS, 0, 0 },

	{ "bpf", "always", EPERM, SECCOMP_POLICY_ALWAYS, 0, 0 },
	{ "perf_event_open", "always", EPERM, SECCOMP_POLICY_ALWAYS, 0, 0 },
	/* userfaultfd stalls the kernel mid-copy_from_user: the classic way
	 * to win a race in a kernel exploit. */
	{ "userfaultfd", "always", EPERM, SECCOMP_POLICY_ALWAYS, 0, 0 },
	/* The x86 local descriptor table: 16-bit and Wine code only, and a
	 * recurring source of kernel bugs (Docker's default profile refuses
	 * it too).  uselib: the obsolete a.out library loader. */
	{ "modify_ldt", "always", EPERM, SECCOMP_POLICY_ALWAYS, 0, 0 },
	{ "uselib", "always", EPERM, SECCOMP_POLICY_ALWAYS, 0, 0 },

	/* Keyrings are not namespaced: the user's session keyring (and the
	 * secrets in it) would be shared with the sandbox. */
	{ "keyctl", "always", EPERM, SECCOMP_POLICY_ALWAYS, 0, 0 },
	{ "add_key", "always", EPERM, SECCOMP_POLICY_ALWAYS, 0, 0 },
	{ "request_key", "always", EPERM, SECCOMP_POLICY_ALWAYS, 0, 0 },

	/* TIOCSTI pushes bytes into the input of a terminal the command shares
	 * with the user's shell, which runs them after cordon exits; TIOCLINUX
	 * can do the same on a VT.  The kernel takes the request as unsigned
	 * int, so only the low 32 bits are compared: set high bits must not
	 * dodge the rule. */
	{ "ioctl", "request is TIOCSTI (low 32 bits)", EPERM,
	  SECCOMP_POLICY_ARG1_LOW32_EQ, TIOCSTI, 0 },
	{ "ioctl", "request is TIOCLINUX (low 32 bits)", EPERM,
	  SECCOMP_POLICY_ARG1_LOW32_EQ, TIOCLINUX, 0 },

	/* A new user namespace gives back every capability bwrap dropped,
	 * inside it, and with them the attack surface of namespaced code. */
	{ "unshare", "flags include CLONE_NEWUSER", EPERM,
	  SECCOMP_POLICY_ARG0_BITS_SET, CLONE_NEWUSER, 0 },
	{ "clone", "flags include CLONE_NEWUSER", EPERM,
	  SECCOMP_POLICY_ARG0_BITS_SET, CLONE_NEWUSER, 0 },
	/* clone3 passes its flags in memory, which seccomp cannot read; ENOSYS
	 * makes glibc and others fall back to clone, whose flags it can. */
	{ "clone3", "always (libc falls back to clone)", ENOSYS,
	  SECCOMP_POLICY_ALWAYS, 0, 0 },

	{ "mount", MOUNT_API, EPERM, SECCOMP_POLICY_ALWAYS, 0, 0 },
	{ "umount2", MOUNT_API, EPERM, SECCOMP_POLICY_ALWAYS, 0, 0 },
	{ "pivot_root", MOUNT_API, EPERM, SECCOMP_POLICY_ALWAYS, 0, 0 },
	{ "open_tree", MOUNT_API, EPERM, SECCOMP_POLICY_ALWAYS, 0, 0 },
	{ "move_mount", MOUNT_API, EPERM, SECCOMP_POLICY_ALWAYS, 0, 0 },
	{ "fsopen", MOUNT_API, EPERM, SECCOMP_POLICY_ALWAYS, 0, 0 },
	{ "fsconfig", MOUNT_API, EPERM, SECCOMP_POLICY_ALWAYS, 0, 0 },
	{ "fsmount", MOUNT_API, EPERM, SECCOMP_POLICY_ALWAYS, 0, 0 },
	{ "fspick", MOUNT_API, EPERM, SECCOMP_POLICY_ALWAYS, 0, 0 },
	{ "mount_setattr", MOUNT_API, EPERM, SECCOMP_POLICY_ALWAYS, 0, 0 },
	{ "setns", "always", EPERM, SECCOMP_POLICY_ALWAYS, 0, 0 },
	/* A file handle opens an inode by number, around the mount tree and
	 * so around every bind mount that hides a path (the "shocker"
	 * container escape). */
	{ "open_by_handle_at", "always", EPERM, SECCOMP_POLICY_ALWAYS, 0, 0 },
	{ "name_to_handle_at", "always", EPERM, SECCOMP_POLICY_ALWAYS, 0, 0 },

	{ "init_module", "always", EPERM, SECCOMP_POLICY_ALWAYS, 0, 0 },
	{ "finit_module", "always", EPERM, SECCOMP_POLICY_ALWAYS, 0, 0 },
	{ "delete_module", "always", EPERM, SECCOMP_POLICY_ALWAYS, 0, 0 },
	{ "kexec_load", "always", EPERM, SECCOMP_POLICY_ALWAYS, 0, 0 },
	{ "kexec_file_load", "always", EPERM, SECCOMP_POLICY_ALWAYS, 0, 0 },
	{ "reboot", "always", EPERM, SECCOMP_POLICY_ALWAYS, 0, 0 },
	{ "swapon", "always", EPERM, SECCOMP_POLICY_ALWAYS, 0, 0 },
	{ "swapoff", "always", EPERM, SECCOMP_POLICY_ALWAYS, 0, 0 },
	{ "acct", "always", EPERM, SECCOMP_POLICY_ALWAYS, 0, 0 },
	{ "quotactl", "always", EPERM, SECCOMP_POLICY_ALWAYS, 0, 0 },
	{ "quotactl_fd", "always", EPERM, SECCOMP_POLICY_ALWAYS, 0, 0 },
	/* The kernel log leaks kernel addresses and other users' activity. */
	{ "syslog", "always", EPERM, SECCOMP_POLICY_ALWAYS, 0, 0 },
};

const struct seccomp_rule_desc *seccomp_policy_table(size_t *n)
{
	if (n)
		*n = sizeof(policy) / sizeof(policy[0]);
	return policy;
}

/* cordon-bridge parses bytes the command wrote: once it holds its
 * listeners, its log and its hosts map, a bug in that parsing must not
 * give the command a program to run, a file to write or a host socket to
 * reach.  It reads what it must (its resolver's /etc files); every call
 * that writes or creates a file is refused, and open and openat with a
 * flag that writes, creates or truncates (the low 32 bits: the kernel
 * reads an int).  No libseccomp in the bridge: the build compiles this
 * table (seccomp_bpf.h). */
#define BRIDGE_WRITE_FLAGS ((uint64_t)(O_WRONLY | O_RDWR | O_CREAT | O_TRUNC | O_APPEND))
#define BRIDGE_OPEN_WRITE "flags include O_WRONLY, O_RDWR, O_CREAT, O_TRUNC or O_APPEND"
#define NO_WRITE "always (the bridge writes no file)"
#define BRIDGE_ALWAYS(name, why) { name, why, EPERM, SECCOMP_POLICY_ALWAYS, 0, 0 }

static const struct seccomp_rule_desc bridge_policy[] = {
	{ "(i386 or x32 ABI)", "any syscall not made through the x86_64 ABI "
	  "(int 0x80, or nr with bit 0x40000000)", 0,
	  SECCOMP_POLICY_FOREIGN_ABI, 0, 0 },
	BRIDGE_ALWAYS("execve", "always (the bridge runs no program)"),
	BRIDGE_ALWAYS("execveat", "always (the bridge runs no program)"),
	BRIDGE_ALWAYS("ptrace", "always"),
	BRIDGE_ALWAYS("process_vm_readv", "always"),
	BRIDGE_ALWAYS("process_vm_writev", "always"),
	/* Its flags live in memory the filter cannot read. */
	{ "openat2", "always (libc falls back to openat)", ENOSYS, SECCOMP_POLICY_ALWAYS, 0, 0 },
	{ "open", BRIDGE_OPEN_WRITE, EPERM, SECCOMP_POLICY_ARG_ANY_BITS, BRIDGE_WRITE_FLAGS, 1 },
	{ "openat", BRIDGE_OPEN_WRITE, EPERM, SECCOMP_POLICY_ARG_ANY_BITS, BRIDGE_WRITE_FLAGS, 2 },
	BRIDGE_ALWAYS("creat", NO_WRITE),
	BRIDGE_ALWAYS("mkdir", NO_WRITE),
	BRIDGE_ALWAYS("rmdir", NO_WRITE),
	BRIDGE_ALWAYS("unlink", NO_WRITE),
	BRIDGE_ALWAYS("rename", NO_WRITE),
	BRIDGE_ALWAYS("link", NO_WRITE),
	BRIDGE_ALWAYS("symlink", NO_WRITE),
	BRIDGE_ALWAYS("chmod", NO_WRITE),
	BRIDGE_ALWAYS("chown", NO_WRITE),
	BRIDGE_ALWAYS("lchown", NO_WRITE),
	BRIDGE_ALWAYS("mknod", NO_WRITE),
	BRIDGE_ALWAYS("utimes", NO_WRITE),
	BRIDGE_ALWAYS("utime", NO_WRITE),
	BRIDGE_ALWAYS("futimesat", NO_WRITE),
	BRIDGE_ALWAYS("mkdirat", NO_WRITE),
	BRIDGE_ALWAYS("unlinkat", NO_WRITE),
	BRIDGE_ALWAYS("renameat", NO_WRITE),
	BRIDGE_ALWAYS("renameat2", NO_WRITE),
	BRIDGE_ALWAYS("linkat", NO_WRITE),
	BRIDGE_ALWAYS("symlinkat", NO_WRITE),
	BRIDGE_ALWAYS("truncate", NO_WRITE),
	BRIDGE_ALWAYS("fchmodat", NO_WRITE),
	BRIDGE_ALWAYS("fchownat", NO_WRITE),
	BRIDGE_ALWAYS("mknodat", NO_WRITE),
	BRIDGE_ALWAYS("utimensat", NO_WRITE),
	BRIDGE_ALWAYS("setxattr", NO_WRITE),
	BRIDGE_ALWAYS("lsetxattr", NO_WRITE),
	BRIDGE_ALWAYS("removexattr", NO_WRITE),
	BRIDGE_ALWAYS("lremovexattr", NO_WRITE),
	BRIDGE_ALWAYS("mount", "always"),
	BRIDGE_ALWAYS("umount2", "always"),
	BRIDGE_ALWAYS("name_to_handle_at", "always"),
	BRIDGE_ALWAYS("open_by_handle_at", "always"),
	/* The internet families only, and AF_UNIX for a Unix upstream: a
	 * Docker or D-Bus socket is a root shell. */
	{ "socket", "family (low 32 bits) is not AF_INET or AF_INET6 (nor AF_UNIX, "
	  "with --proxy-upstream unix:PATH)", EPERM, SECCOMP_POLICY_FAMILY_LOW32,
	  ((uint64_t)1 << AF_INET) | ((uint64_t)1 << AF_INET6), 0 },
};

const struct seccomp_rule_desc *seccomp_policy_bridge_table(size_t *n)
{
	if (n)
		*n = sizeof(bridge_policy) / sizeof(bridge_policy[0]);
	return bridge_policy;
}

/* inner/hostpidns.h says why: in the caller's PID namespace these calls
 * would act on cordon, the agent and the caller's shells.  Each acts on
 * the caller itself only (pid 0, who 0; the low 32 bits, which the kernel
 * reads), prlimit64 also reads another's limits; anything else is EPERM.
 * No row for another ABI: the command's own filter kills those. */
#define PID_NOT_SELF "pid (low 32 bits) is not 0 (the caller)"
#define HOSTPID_SELF(name) { name, PID_NOT_SELF, EPERM, SECCOMP_POLICY_ARG_LOW32_NE, 0, 0 }

static const struct seccomp_rule_desc hostpid_policy[] = {
	{ "setpriority", "which (low 32 bits) is not PRIO_PROCESS", EPERM,
	  SECCOMP_POLICY_ARG_LOW32_NE, PRIO_PROCESS, 0 },
	{ "setpriority", "who (low 32 bits) is not 0 (the caller)", EPERM,
	  SECCOMP_POLICY_ARG_LOW32_NE, 0, 1 },
	/* IOPRIO_WHO_PROCESS: the kernel's uapi ioprio.h, not in musl's. */
	{ "ioprio_set", "which (low 32 bits) is not IOPRIO_WHO_PROCESS", EPERM,
	  SECCOMP_POLICY_ARG_LOW32_NE, 1, 0 },
	{ "ioprio_set", "who (low 32 bits) is not 0 (the caller)", EPERM,
	  SECCOMP_POLICY_ARG_LOW32_NE, 0, 1 },
	/* Reading another's limits (new NULL: ulimit, getrlimit, `prlimit
	 * --pid N`) changes nothing. */
	{ "prlimit64", PID_NOT_SELF ", and new limits are given (new is not NULL)", EPERM,
	  SECCOMP_POLICY_ARG0_LOW32_SET_AND, 0, 2 },
	HOSTPID_SELF("sched_setaffinity"),
	HOSTPID_SELF("sched_setscheduler"),
	HOSTPID_SELF("sched_setparam"),
	HOSTPID_SELF("sched_setattr"),
	/* ptrace-checked already (Landlock answers); the same rule costs
	 * nothing. */
	HOSTPID_SELF("migrate_pages"),
	HOSTPID_SELF("move_pages"),
	HOSTPID_SELF("get_robust_list"),
};

const struct seccomp_rule_desc *seccomp_policy_hostpid_table(size_t *n)
{
	if (n)
		*n = sizeof(hostpid_policy) / sizeof(hostpid_policy[0]);
	return hostpid_policy;
}

/* cordon-inner's own filter, loaded once the command's process is forked:
 * what its supervision loop (pid1.c), the release of the command (spawn.c),
 * its reports to cordon (wire.c), the Unix socket supervisor (unixsup.c) and
 * its exit call need.  No exec, no socket, no open for writing (openat only
 * without O_WRONLY, O_RDWR, O_CREAT, O_TRUNC, O_APPEND, O_TMPFILE), no ioctl
 * but the three seccomp notification requests and the two of a terminal's
 * foreground group (pid1.c moves the command's terminal with cordon's job):
 * a PID 1 taken over through some kernel bug could write no file, start no
 * program, and not type into the caller's terminal; what it can open and
 * connect to, the command can. */
static const char *const pid1_allowed[] = {
	"read", "write", "writev", "close", "poll", "ppoll", "wait4", "waitid",
	"kill", "sendmsg", "rt_sigprocmask", "rt_sigreturn", "restart_syscall",
	"munmap", "madvise", "exit", "exit_group",
	/* The Unix socket supervisor (inner/unixsup.c): its notifications
	 * (ioctl, restricted below to the seccomp requests), the target's
	 * socket and memory (pidfd_open, pidfd_getfd, process_vm_readv: all
	 * ptrace-checked by the kernel), the path it resolves and pins (openat,
	 * fchdir, chdir, umask, statx, fstat, fcntl, getsockopt), the call it performs (connect,
	 * bind) and the sock_diag answer that names the file a bind made. */
	"ioctl", "pidfd_open", "pidfd_getfd", "process_vm_readv", "openat", "fchdir",
	"statx", "fstat", "newfstatat", "fcntl", "getsockopt", "connect", "bind", "chdir", "umask",
};

/* TIOCGPGRP and TIOCSPGRP (tcgetpgrp, tcsetpgrp): the kernel answers them
 * only on the caller's controlling terminal, which for cordon-inner is the
 * sandbox's pty (the caller's own terminal is not even open inside), and
 * moves its foreground only to a group of the pty's session: what the
 * command's own shell may do to it already.  No TIOCSTI, no mode change. */
static const unsigned long pid1_ioctls[] = {
	SECCOMP_IOCTL_NOTIF_RECV, SECCOMP_IOCTL_NOTIF_SEND, SECCOMP_IOCTL_NOTIF_ID_VALID,
	TIOCGPGRP, TIOCSPGRP,
};

const unsigned long *seccomp_policy_pid1_ioctls(size_t *n)
{
	if (n)
		*n = sizeof(pid1_ioctls) / sizeof(pid1_ioctls[0]);
	return pid1_ioctls;
}

const char *const *seccomp_policy_pid1_allowed(size_t *n)
{
	if (n)
		*n = sizeof(pid1_allowed) / sizeof(pid1_allowed[0]);
	return pid1_allowed;
}

int seccomp_policy_socketpair_type_allowed(uint64_t type)
{
	return type == SOCK_STREAM || type == SOCK_SEQPACKET;
}

int seccomp_policy_unix_type_allowed(uint64_t type, const struct seccomp_opts *o)
{
	return (o && o->allow_unix_sockets) || seccomp_policy_socketpair_type_allowed(type);
}

static const int base_families[] = { AF_INET, AF_INET6, AF_NETLINK };

int seccomp_policy_socket_family_allowed(uint64_t family,
					 const struct seccomp_opts *o)
{
	(void)o;
	if (family == AF_UNIX)
		return 1;
	for (size_t i = 0; i < sizeof(base_families) / sizeof(base_families[0]); i++)
		if (family == (uint64_t)base_families[i])
			return 1;
	return 0;
}

const char *seccomp_policy_unix_mechanism(const struct seccomp_opts *o, int json)
{
	if (o && o->allow_unix_sockets)
		return json ? "unsupervised"
			    : "every host socket the mounts show is reachable "
			      "(--allow-unix-sockets: Docker's, D-Bus's, an ssh agent's)";
	return json ? "seccomp-supervisor"
		    : "inside only: connect and bind reach sockets bound inside this sandbox "
		      "(seccomp user notification, answered by cordon-inner)";
}
