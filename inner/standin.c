/* standin.c: see standin.h. */
#include "standin.h"

#include <errno.h>
#include <sched.h>
#include <linux/capability.h>
#include <signal.h>
#include <stdint.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef SYS_clone3
#define SYS_clone3 435
#endif
#ifndef SYS_close_range
#define SYS_close_range 436
#endif

/* The kernel's struct clone_args up to set_tid_size (CLONE_ARGS_SIZE_VER1,
 * ten u64 fields), which musl's headers do not carry: the fields used. */
enum { CA_FLAGS = 0, CA_SET_TID = 8, CA_SET_TID_SIZE = 9, CA_N = 10 };

static int caps_zero(void)
{
	struct __user_cap_header_struct hdr = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct data[2] = { { 0, 0, 0 }, { 0, 0, 0 } };
	return (int)syscall(SYS_capset, &hdr, data);
}

int standin_drop(void);

/* After the clone: only system calls, nothing of libc's state. */
static _Noreturn void standin_child(void)
{
	if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) < 0 ||
	    syscall(SYS_close_range, 0U, ~0U, 0U) < 0 || standin_drop() < 0)
		syscall(SYS_exit_group, 1);
	(void)prctl(PR_SET_NAME, "cordon-standin", 0, 0, 0);
	for (;;)
		(void)pause();
}

int standin_make(pid_t pid)
{
	uint64_t tid = (uint64_t)pid;
	/* CLONE_PARENT: cordon-inner's child, not the command's (a shell's
	 * `wait` would wait for it forever); exit_signal is then the
	 * caller's own, SIGCHLD. */
	uint64_t a[CA_N] = { 0 };
	a[CA_FLAGS] = CLONE_PARENT;
	a[CA_SET_TID] = (uint64_t)(uintptr_t)&tid;
	a[CA_SET_TID_SIZE] = 1;
	long r = syscall(SYS_clone3, a, sizeof(a));
	if (r == 0)
		standin_child();
	return r > 0 ? 1 : 0;
}

int standin_drop(void)
{
	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) < 0)
		return -errno;
	for (int cap = 0; cap < 64; cap++) {
		int b = prctl(PR_CAPBSET_READ, cap, 0, 0, 0);
		if (b < 0 && errno == EINVAL)
			break;
		if (b < 0 || (b == 1 && prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) < 0))
			return -errno;
	}
	return caps_zero() < 0 ? -errno : 0;
}
