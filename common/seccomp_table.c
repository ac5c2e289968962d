/* seccomp_table.c: the rows of cordon's seccomp policy (DESIGN.md section 6)
 * as plain data, with no libseccomp: cordon (doctor, explain) and the docs
 * read it here, seccomp_policy.c compiles it, and the build embeds the
 * compiled program in cordon-inner (seccomp_bpf.c). */
#include "seccomp_policy.h"

#include <errno.h>
#include <sched.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <sys/socket.h>

#define MOUNT_API "always (mount API: could hide or replace what bwrap set up)"

static const struct seccomp_rule_desc policy[] = {
	{ "(i386 or x32 ABI)", "any syscall not made through the x86_64 ABI "
	  "(int 0x80, or nr with bit 0x40000000): kills the process", 0,
	  SECCOMP_POLICY_FOREIGN_ABI, 0 },

	/* Raw packet, bluetooth, vsock, ... sockets reach kernel code (and
	 * hosts) that bwrap's network namespace does not fence off. */
	{ "socket", "family is not AF_INET, AF_INET6 or AF_NETLINK (AF_UNIX "
	  "only with --allow-unix-sockets)", EPERM,
	  SECCOMP_POLICY_SOCKET_FAMILY, 0 },
	{ "socketpair", "family is not AF_UNIX", EPERM,
	  SECCOMP_POLICY_ARG0_NE, AF_UNIX },

	/* io_uring performs syscalls on the command's behalf where no seccomp
	 * filter sees them, and is a rich source of kernel bugs. */
	{ "io_uring_setup", "always", EPERM, SECCOMP_POLICY_ALWAYS, 0 },
	{ "io_uring_enter", "always", EPERM, SECCOMP_POLICY_ALWAYS, 0 },
	{ "io_uring_register", "always", EPERM, SECCOMP_POLICY_ALWAYS, 0 },

	{ "ptrace", "always", EPERM, SECCOMP_POLICY_ALWAYS, 0 },
	{ "process_vm_readv", "always", EPERM, SECCOMP_POLICY_ALWAYS, 0 },
	{ "process_vm_writev", "always", EPERM, SECCOMP_POLICY_ALWAYS, 0 },

	{ "bpf", "always", EPERM, SECCOMP_POLICY_ALWAYS, 0 },
	{ "perf_event_open", "always", EPERM, SECCOMP_POLICY_ALWAYS, 0 },
	/* userfaultfd stalls the kernel mid-copy_from_user: the classic way
	 * to win a race in a kernel exploit. */
	{ "userfaultfd", "always", EPERM, SECCOMP_POLICY_ALWAYS, 0 },

	/* Keyrings are not namespaced: the user's session keyring (and the
	 * secrets in it) would be shared with the sandbox. */
	{ "keyctl", "always", EPERM, SECCOMP_POLICY_ALWAYS, 0 },
	{ "add_key", "always", EPERM, SECCOMP_POLICY_ALWAYS, 0 },
	{ "request_key", "always", EPERM, SECCOMP_POLICY_ALWAYS, 0 },

	/* TIOCSTI pushes bytes into the input of a terminal the command shares
	 * with the user's shell, which runs them after cordon exits; TIOCLINUX
	 * can do the same on a VT.  The kernel takes the request as unsigned
	 * int, so only the low 32 bits are compared: set high bits must not
	 * dodge the rule. */
	{ "ioctl", "request is TIOCSTI (low 32 bits)", EPERM,
	  SECCOMP_POLICY_ARG1_LOW32_EQ, TIOCSTI },
	{ "ioctl", "request is TIOCLINUX (low 32 bits)", EPERM,
	  SECCOMP_POLICY_ARG1_LOW32_EQ, TIOCLINUX },

	/* A new user namespace gives back every capability bwrap dropped,
	 * inside it, and with them the attack surface of namespaced code. */
	{ "unshare", "flags include CLONE_NEWUSER", EPERM,
	  SECCOMP_POLICY_ARG0_BITS_SET, CLONE_NEWUSER },
	{ "clone", "flags include CLONE_NEWUSER", EPERM,
	  SECCOMP_POLICY_ARG0_BITS_SET, CLONE_NEWUSER },
	/* clone3 passes its flags in memory, which seccomp cannot read; ENOSYS
	 * makes glibc and others fall back to clone, whose flags it can. */
	{ "clone3", "always (libc falls back to clone)", ENOSYS,
	  SECCOMP_POLICY_ALWAYS, 0 },

	{ "mount", MOUNT_API, EPERM, SECCOMP_POLICY_ALWAYS, 0 },
	{ "umount2", MOUNT_API, EPERM, SECCOMP_POLICY_ALWAYS, 0 },
	{ "pivot_root", MOUNT_API, EPERM, SECCOMP_POLICY_ALWAYS, 0 },
	{ "open_tree", MOUNT_API, EPERM, SECCOMP_POLICY_ALWAYS, 0 },
	{ "move_mount", MOUNT_API, EPERM, SECCOMP_POLICY_ALWAYS, 0 },
	{ "fsopen", MOUNT_API, EPERM, SECCOMP_POLICY_ALWAYS, 0 },
	{ "fsconfig", MOUNT_API, EPERM, SECCOMP_POLICY_ALWAYS, 0 },
	{ "fsmount", MOUNT_API, EPERM, SECCOMP_POLICY_ALWAYS, 0 },
	{ "fspick", MOUNT_API, EPERM, SECCOMP_POLICY_ALWAYS, 0 },
	{ "mount_setattr", MOUNT_API, EPERM, SECCOMP_POLICY_ALWAYS, 0 },
	{ "setns", "always", EPERM, SECCOMP_POLICY_ALWAYS, 0 },
	/* A file handle opens an inode by number, around the mount tree and
	 * so around every bind mount that hides a path (the "shocker"
	 * container escape). */
	{ "open_by_handle_at", "always", EPERM, SECCOMP_POLICY_ALWAYS, 0 },
	{ "name_to_handle_at", "always", EPERM, SECCOMP_POLICY_ALWAYS, 0 },

	{ "init_module", "always", EPERM, SECCOMP_POLICY_ALWAYS, 0 },
	{ "finit_module", "always", EPERM, SECCOMP_POLICY_ALWAYS, 0 },
	{ "delete_module", "always", EPERM, SECCOMP_POLICY_ALWAYS, 0 },
	{ "kexec_load", "always", EPERM, SECCOMP_POLICY_ALWAYS, 0 },
	{ "kexec_file_load", "always", EPERM, SECCOMP_POLICY_ALWAYS, 0 },
	{ "reboot", "always", EPERM, SECCOMP_POLICY_ALWAYS, 0 },
	{ "swapon", "always", EPERM, SECCOMP_POLICY_ALWAYS, 0 },
	{ "swapoff", "always", EPERM, SECCOMP_POLICY_ALWAYS, 0 },
	{ "acct", "always", EPERM, SECCOMP_POLICY_ALWAYS, 0 },
	{ "quotactl", "always", EPERM, SECCOMP_POLICY_ALWAYS, 0 },
	{ "quotactl_fd", "always", EPERM, SECCOMP_POLICY_ALWAYS, 0 },
	/* The kernel log leaks kernel addresses and other users' activity. */
	{ "syslog", "always", EPERM, SECCOMP_POLICY_ALWAYS, 0 },
};

const struct seccomp_rule_desc *seccomp_policy_table(size_t *n)
{
	if (n)
		*n = sizeof(policy) / sizeof(policy[0]);
	return policy;
}

static const int base_families[] = { AF_INET, AF_INET6, AF_NETLINK };

int seccomp_policy_socket_family_allowed(uint64_t family,
					 const struct seccomp_opts *o)
{
	if (family == AF_UNIX)
		return o && o->allow_unix_sockets;
	for (size_t i = 0; i < sizeof(base_families) / sizeof(base_families[0]); i++)
		if (family == (uint64_t)base_families[i])
			return 1;
	return 0;
}
