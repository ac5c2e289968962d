/* confine.c: see confine.h. */
#include "confine.h"

#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>

#if defined(__x86_64__)
#define CONFINE_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define CONFINE_ARCH AUDIT_ARCH_AARCH64
#else
#error "cordon-bridge: the seccomp filter knows x86_64 and aarch64 only"
#endif

#define LD_NR BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr))
#define LD_ARG_LO(i) BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[i]))
#define RET(v) BPF_STMT(BPF_RET | BPF_K, (v))
#define ERRNO(e) RET(SECCOMP_RET_ERRNO | (e))
/* if nr == n: return v, else fall through */
#define DENY(n, v) BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (n), 0, 1), v

/* Open flags that write, create or truncate. */
#define WRITE_FLAGS (O_WRONLY | O_RDWR | O_CREAT | O_TRUNC | O_APPEND)

int confine_apply(int allow_unix, struct cordon_err *e)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, CONFINE_ARCH, 1, 0),
		RET(SECCOMP_RET_KILL_PROCESS),
		LD_NR,
		/* x32 system calls on x86_64: another table of numbers. */
		BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, 0x40000000u, 0, 1),
		RET(SECCOMP_RET_KILL_PROCESS),
		DENY(SYS_execve, ERRNO(EPERM)),
		DENY(SYS_execveat, ERRNO(EPERM)),
		DENY(SYS_ptrace, ERRNO(EPERM)),
		DENY(SYS_process_vm_readv, ERRNO(EPERM)),
		DENY(SYS_process_vm_writev, ERRNO(EPERM)),
		/* Its flags live in memory the filter cannot read; libc falls
		 * back to openat. */
		DENY(SYS_openat2, ERRNO(ENOSYS)),
#ifdef SYS_creat
		DENY(SYS_creat, ERRNO(EPERM)),
#endif
#ifdef SYS_mkdir
		DENY(SYS_mkdir, ERRNO(EPERM)), DENY(SYS_rmdir, ERRNO(EPERM)),
		DENY(SYS_unlink, ERRNO(EPERM)), DENY(SYS_rename, ERRNO(EPERM)),
		DENY(SYS_link, ERRNO(EPERM)), DENY(SYS_symlink, ERRNO(EPERM)),
		DENY(SYS_chmod, ERRNO(EPERM)), DENY(SYS_chown, ERRNO(EPERM)),
		DENY(SYS_lchown, ERRNO(EPERM)), DENY(SYS_mknod, ERRNO(EPERM)),
		DENY(SYS_utimes, ERRNO(EPERM)), DENY(SYS_utime, ERRNO(EPERM)),
		DENY(SYS_futimesat, ERRNO(EPERM)),
#endif
		DENY(SYS_mkdirat, ERRNO(EPERM)), DENY(SYS_unlinkat, ERRNO(EPERM)),
		DENY(SYS_renameat, ERRNO(EPERM)), DENY(SYS_renameat2, ERRNO(EPERM)),
		DENY(SYS_linkat, ERRNO(EPERM)), DENY(SYS_symlinkat, ERRNO(EPERM)),
		DENY(SYS_truncate, ERRNO(EPERM)), DENY(SYS_fchmodat, ERRNO(EPERM)),
		DENY(SYS_fchownat, ERRNO(EPERM)), DENY(SYS_mknodat, ERRNO(EPERM)),
		DENY(SYS_utimensat, ERRNO(EPERM)), DENY(SYS_setxattr, ERRNO(EPERM)),
		DENY(SYS_lsetxattr, ERRNO(EPERM)), DENY(SYS_removexattr, ERRNO(EPERM)),
		DENY(SYS_lremovexattr, ERRNO(EPERM)), DENY(SYS_mount, ERRNO(EPERM)),
		DENY(SYS_umount2, ERRNO(EPERM)),
		DENY(SYS_name_to_handle_at, ERRNO(EPERM)), DENY(SYS_open_by_handle_at, ERRNO(EPERM)),
#ifdef SYS_open
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_open, 0, 3),
		LD_ARG_LO(1),
		BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, WRITE_FLAGS, 0, 1),
		ERRNO(EPERM),
		LD_NR,
#endif
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_openat, 0, 3),
		LD_ARG_LO(2),
		BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, WRITE_FLAGS, 0, 1),
		ERRNO(EPERM),
		LD_NR,
		/* socket(): the internet families only, and AF_UNIX for a Unix
		 * upstream; a Docker or D-Bus socket is a root shell. */
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_socket, 0, 5),
		LD_ARG_LO(0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AF_INET, 3, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AF_INET6, 2, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, allow_unix ? AF_UNIX : AF_INET, 1, 0),
		ERRNO(EPERM),
		RET(SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { (unsigned short)(sizeof(f) / sizeof(f[0])), f };
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return err_sys(e, errno, "cordon-bridge: no_new_privs");
	if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) < 0)
		return err_sys(e, errno, "cordon-bridge: PR_SET_DUMPABLE");
	if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog) < 0)
		return err_sys(e, errno, "cordon-bridge: cannot load its seccomp filter");
	return 0;
}
