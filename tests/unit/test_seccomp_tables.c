/* test_seccomp_tables.c: cordon-bridge's filter and the host-PID filter,
 * built from their tables (common/seccomp_table.c), against the programs
 * written out by hand that they replaced (bridge/confine.c and
 * inner/hostpidns.c before issue 31, kept here verbatim as the oracle):
 * both are run by an interpreter (bpf_eval.h) on every syscall number of
 * three architectures, x32's and the edges of the number space, with the
 * arguments each rule looks at varied over values that sit on and around
 * every boundary, high halves included.  Every answer must be the same,
 * but for one number the old bridge filter killed and the table's answers
 * ENOSYS (-1: the kernel's "no syscall", see nr_minus_one below).
 *
 * Also: the tables are well formed, and the embedded programs are what
 * libseccomp compiles from them now. */
#include <criterion/criterion.h>

#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>

#include "bpf_eval.h"
#include "seccomp_bpf.h"
#include "seccomp_policy.h"

/* ---- the oracle: the hand-written programs, as they were ---------------- */

#define CONFINE_ARCH AUDIT_ARCH_X86_64
#define LD_NR BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr))
#define LD_ARG_LO(i) BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[i]))
#define RET(v) BPF_STMT(BPF_RET | BPF_K, (v))
#define ERRNO(e) RET(SECCOMP_RET_ERRNO | (e))
#define DENY(n, v) BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (n), 0, 1), v
#define WRITE_FLAGS (O_WRONLY | O_RDWR | O_CREAT | O_TRUNC | O_APPEND)

static uint32_t old_bridge(int allow_unix, const struct seccomp_data *d)
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
	return bpf_eval(&prog, d);
}

#define HOSTPIDNS_ARCH AUDIT_ARCH_X86_64
#define ARG_LO(n) (offsetof(struct seccomp_data, args) + (n) * sizeof(__u64))
#define ARG_HI(n) (ARG_LO(n) + sizeof(__u32))
#define LD(off) BPF_STMT(BPF_LD | BPF_W | BPF_ABS, (off))
#define JEQ(at, k, t, f) BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (k), (t) - (at) - 1, (f) - (at) - 1)
#define DENY_EPERM (SECCOMP_RET_ERRNO | (EPERM & SECCOMP_RET_DATA))
enum { AT_NR = 2, AT_PID0 = 14, AT_PRIO = 16, AT_IOPRIO = 20, AT_PRLIMIT = 24, AT_DENY = 30,
       AT_ALLOW = 31 };

static const struct sock_filter old_hostpid[] = {
	LD(offsetof(struct seccomp_data, arch)),                        /* 0 */
	JEQ(1, HOSTPIDNS_ARCH, AT_NR, AT_ALLOW),                        /* 1 */
	LD(offsetof(struct seccomp_data, nr)),                          /* 2: AT_NR */
	JEQ(3, __NR_setpriority, AT_PRIO, 4),                           /* 3 */
	JEQ(4, __NR_ioprio_set, AT_IOPRIO, 5),                          /* 4 */
	JEQ(5, __NR_prlimit64, AT_PRLIMIT, 6),                          /* 5 */
	JEQ(6, __NR_sched_setaffinity, AT_PID0, 7),                     /* 6 */
	JEQ(7, __NR_sched_setscheduler, AT_PID0, 8),                    /* 7 */
	JEQ(8, __NR_sched_setparam, AT_PID0, 9),                        /* 8 */
	JEQ(9, __NR_sched_setattr, AT_PID0, 10),                        /* 9 */
	JEQ(10, __NR_migrate_pages, AT_PID0, 11),                       /* 10 */
	JEQ(11, __NR_move_pages, AT_PID0, 12),                          /* 11 */
	JEQ(12, __NR_get_robust_list, AT_PID0, 13),                     /* 12 */
	RET(SECCOMP_RET_ALLOW),                                         /* 13 */
	/* call(pid, ...): pid 0, the caller */
	LD(ARG_LO(0)),                                                  /* 14: AT_PID0 */
	JEQ(15, 0, AT_ALLOW, AT_DENY),                                  /* 15 */
	/* setpriority(which, who, prio): PRIO_PROCESS (0), who 0 */
	LD(ARG_LO(0)),                                                  /* 16: AT_PRIO */
	JEQ(17, 0, 18, AT_DENY),                                        /* 17 */
	LD(ARG_LO(1)),                                                  /* 18 */
	JEQ(19, 0, AT_ALLOW, AT_DENY),                                  /* 19 */
	/* ioprio_set(which, who, prio): IOPRIO_WHO_PROCESS (1), who 0 */
	LD(ARG_LO(0)),                                                  /* 20: AT_IOPRIO */
	JEQ(21, 1, 22, AT_DENY),                                        /* 21 */
	LD(ARG_LO(1)),                                                  /* 22 */
	JEQ(23, 0, AT_ALLOW, AT_DENY),                                  /* 23 */
	/* prlimit64(pid, resource, new, old): pid 0, or only reading (new
	 * NULL): ulimit, getrlimit and `prlimit --pid N` without a new value */
	LD(ARG_LO(0)),                                                  /* 24: AT_PRLIMIT */
	JEQ(25, 0, AT_ALLOW, 26),                                       /* 25 */
	LD(ARG_LO(2)),                                                  /* 26 */
	JEQ(27, 0, 28, AT_DENY),                                        /* 27 */
	LD(ARG_HI(2)),                                                  /* 28 */
	JEQ(29, 0, AT_ALLOW, AT_DENY),                                  /* 29 */
	RET(DENY_EPERM),                                                      /* 30: AT_DENY */
	RET(SECCOMP_RET_ALLOW),                                         /* 31: AT_ALLOW */
};

static uint32_t old_hostpid_eval(const struct seccomp_data *d)
{
	struct sock_fprog prog = { (unsigned short)(sizeof(old_hostpid) / sizeof(old_hostpid[0])),
				   (struct sock_filter *)old_hostpid };
	return bpf_eval(&prog, d);
}

/* ---- the inputs --------------------------------------------------------- */

static const uint32_t arches[] = { AUDIT_ARCH_X86_64, AUDIT_ARCH_I386, AUDIT_ARCH_AARCH64 };

/* The numbers past the native table: x32's (bit 30), the top, -1. */
static const uint32_t odd_nrs[] = {
	0x3fffffffu, 0x40000000u, 0x40000000u + 2, 0x40000000u + 41, 0x40000000u + 59,
	0x40000000u + 141, 0x40000000u + 302, 0x7fffffffu, 0x80000000u, 0xfffffffeu, 0xffffffffu,
};

/* Every rule's boundary and its neighbours, in both halves. */
static const uint64_t wide[] = {
	0, 1, 2, 3, 9, 10, 11, 16, 17, 45, 46, 63, 64, 65, O_WRONLY | O_CREAT, O_TRUNC, O_APPEND,
	O_CLOEXEC, O_DIRECTORY, O_PATH, 0x7fffffffu, 0x80000000u, 0xfffffffeu, 0xffffffffu,
	0x100000000ull, 0x100000001ull, 0x10000000aull, 0xffffffff00000000ull,
	0xffffffff00000002ull, 0xffffffffffffffffull,
};

/* A few of them, for the numbers no rule looks at the arguments of. */
static const uint64_t narrow[] = { 0, 1, 2, 0x41, 0xffffffffu, 0x100000000ull,
				   0xffffffff0000000aull };

#define N(a) (sizeof(a) / sizeof((a)[0]))

typedef uint32_t (*eval_fn)(const void *ctx, const struct seccomp_data *d);

/* Every argument triple (args 0-2; the rules look at no other) of vals
 * for one number and arch: the two programs' answers, compared.  Returns
 * how many inputs were tried. */
static size_t compare_args(const struct sock_fprog *fresh, eval_fn old, const void *ctx,
			   uint32_t arch, uint32_t nr, const uint64_t *vals, size_t nv)
{
	struct seccomp_data d;
	memset(&d, 0, sizeof(d));
	d.arch = arch;
	d.nr = (int)nr;
	d.instruction_pointer = 0x401000;
	d.args[3] = 0xdeadbeefcafef00dull;
	d.args[4] = 1;
	d.args[5] = 0xffffffffffffffffull;
	for (size_t i = 0; i < nv; i++)
		for (size_t j = 0; j < nv; j++)
			for (size_t k = 0; k < nv; k++) {
				d.args[0] = vals[i];
				d.args[1] = vals[j];
				d.args[2] = vals[k];
				uint32_t want = old(ctx, &d), got = bpf_eval(fresh, &d);
				if (want != got)
					cr_assert_fail("arch %#x nr %u args %#llx %#llx %#llx: the "
						       "hand-written program answers %#x, the "
						       "table's %#x", arch, nr,
						       (unsigned long long)d.args[0],
						       (unsigned long long)d.args[1],
						       (unsigned long long)d.args[2], want, got);
			}
	return nv * nv * nv;
}

/* The numbers the hand-written programs look at the arguments of. */
static const long oracle_args[] = {
	SYS_open, SYS_openat, SYS_socket, SYS_setpriority, SYS_ioprio_set, SYS_prlimit64,
	SYS_sched_setaffinity, SYS_sched_setscheduler, SYS_sched_setparam, SYS_sched_setattr,
	SYS_migrate_pages, SYS_move_pages, SYS_get_robust_list,
};

/* The numbers of the native table that the oracle or a rule of rows looks
 * at the arguments of: there, every triple of `wide`. */
static int args_matter(const struct seccomp_rule_desc *rows, size_t n, uint32_t nr)
{
	for (size_t i = 0; i < N(oracle_args); i++)
		if (oracle_args[i] == (long)nr)
			return 1;
	for (size_t i = 0; i < n; i++)
		if (rows[i].match != SECCOMP_POLICY_ALWAYS &&
		    rows[i].match != SECCOMP_POLICY_FOREIGN_ABI &&
		    seccomp_policy_resolve(&rows[i]) == (int)nr)
			return 1;
	return 0;
}

/* Every number of every arch, the odd ones, skip_nr aside (-1: none). */
static size_t compare_all(const struct sock_fprog *fresh, eval_fn old, const void *ctx,
			  const struct seccomp_rule_desc *rows, size_t n, int64_t skip_nr)
{
	size_t tried = 0;
	for (size_t a = 0; a < N(arches); a++) {
		for (uint32_t nr = 0; nr < 600; nr++) {
			int wide_args = arches[a] == AUDIT_ARCH_X86_64 && args_matter(rows, n, nr);
			tried += compare_args(fresh, old, ctx, arches[a], nr,
					      wide_args ? wide : narrow, wide_args ? N(wide) : N(narrow));
		}
		for (size_t i = 0; i < N(odd_nrs); i++)
			if ((int64_t)odd_nrs[i] != skip_nr || arches[a] != AUDIT_ARCH_X86_64)
				tried += compare_args(fresh, old, ctx, arches[a], odd_nrs[i], narrow,
						      N(narrow));
	}
	return tried;
}

static uint32_t old_bridge_fn(const void *ctx, const struct seccomp_data *d)
{
	return old_bridge(*(const int *)ctx, d);
}

static uint32_t old_hostpid_fn(const void *ctx, const struct seccomp_data *d)
{
	(void)ctx;
	return old_hostpid_eval(d);
}

/* ---- the comparisons ---------------------------------------------------- */

static void bridge_same(int allow_unix)
{
	struct sock_fprog fresh;
	size_t n;
	const struct seccomp_rule_desc *rows = seccomp_policy_bridge_table(&n);
	seccomp_bpf_bridge_program(allow_unix, &fresh);
	size_t tried = compare_all(&fresh, old_bridge_fn, &allow_unix, rows, n, 0xffffffffu);
	cr_assert_gt(tried, 100000, "%zu inputs", tried);
}

Test(seccomp_tables, bridge_answers_as_the_hand_written_one) { bridge_same(0); }
Test(seccomp_tables, bridge_unix_upstream_answers_as_the_hand_written_one) { bridge_same(1); }

Test(seccomp_tables, hostpid_answers_as_the_hand_written_one)
{
	struct sock_fprog fresh;
	size_t n;
	const struct seccomp_rule_desc *rows = seccomp_policy_hostpid_table(&n);
	seccomp_bpf_hostpid_program(&fresh);
	size_t tried = compare_all(&fresh, old_hostpid_fn, NULL, rows, n, -1);
	cr_assert_gt(tried, 100000, "%zu inputs", tried);
}

/* The one difference, on purpose: the hand-written bridge filter killed
 * every number from 0x40000000 up, -1 included; libseccomp's x32 guard
 * (and so the command's own filter) lets -1 through, which the kernel
 * answers with ENOSYS without running anything.  The table's program
 * allows it; the other x32 numbers are killed by both. */
Test(seccomp_tables, bridge_nr_minus_one)
{
	struct sock_fprog fresh;
	seccomp_bpf_bridge_program(0, &fresh);
	struct seccomp_data d;
	memset(&d, 0, sizeof(d));
	d.arch = AUDIT_ARCH_X86_64;
	d.nr = -1;
	int zero = 0;
	cr_assert_eq(old_bridge_fn(&zero, &d), SECCOMP_RET_KILL_PROCESS);
	cr_assert_eq(bpf_eval(&fresh, &d), SECCOMP_RET_ALLOW);
	d.nr = 0x40000000 + 59; /* x32 execve */
	cr_assert_eq(bpf_eval(&fresh, &d), SECCOMP_RET_KILL_PROCESS);
}

/* The oracle itself answers what the rules say (a comparison of two
 * programs that accept everything would pass too). */
Test(seccomp_tables, the_oracle_refuses)
{
	struct seccomp_data d;
	memset(&d, 0, sizeof(d));
	d.arch = AUDIT_ARCH_X86_64;
	int zero = 0, one = 1;
	d.nr = SYS_execve;
	cr_assert_eq(old_bridge_fn(&zero, &d), SECCOMP_RET_ERRNO | EPERM);
	d.nr = SYS_openat;
	d.args[2] = O_RDONLY;
	cr_assert_eq(old_bridge_fn(&zero, &d), SECCOMP_RET_ALLOW);
	d.args[2] = O_WRONLY;
	cr_assert_eq(old_bridge_fn(&zero, &d), SECCOMP_RET_ERRNO | EPERM);
	d.nr = SYS_socket;
	d.args[0] = AF_UNIX;
	cr_assert_eq(old_bridge_fn(&zero, &d), SECCOMP_RET_ERRNO | EPERM);
	cr_assert_eq(old_bridge_fn(&one, &d), SECCOMP_RET_ALLOW);
	d.arch = AUDIT_ARCH_I386;
	cr_assert_eq(old_bridge_fn(&one, &d), SECCOMP_RET_KILL_PROCESS);
	cr_assert_eq(old_hostpid_eval(&d), SECCOMP_RET_ALLOW, "another ABI: left to the command's");
	d.arch = AUDIT_ARCH_X86_64;
	d.nr = SYS_prlimit64;
	d.args[0] = 42;
	d.args[2] = 0x100000000ull;
	cr_assert_eq(old_hostpid_eval(&d), SECCOMP_RET_ERRNO | EPERM);
	d.args[2] = 0;
	cr_assert_eq(old_hostpid_eval(&d), SECCOMP_RET_ALLOW, "reading another's limits");
	d.nr = SYS_setpriority;
	d.args[0] = 0x100000000ull; /* PRIO_PROCESS in the low half */
	d.args[1] = 0;
	cr_assert_eq(old_hostpid_eval(&d), SECCOMP_RET_ALLOW);
	d.args[1] = 7;
	cr_assert_eq(old_hostpid_eval(&d), SECCOMP_RET_ERRNO | EPERM);
}

/* ---- the tables ---------------------------------------------------------- */

static void well_formed(const struct seccomp_rule_desc *t, size_t n, size_t want_foreign)
{
	size_t foreign = 0;
	cr_assert_gt(n, 0);
	for (size_t i = 0; i < n; i++) {
		cr_assert_not_null(t[i].syscall, "row %zu has no syscall", i);
		cr_assert_not_null(t[i].when, "row %zu (%s) has no condition", i, t[i].syscall);
		if (t[i].match == SECCOMP_POLICY_FOREIGN_ABI) {
			foreign++;
			cr_expect_eq(t[i].errno_value, 0, "the foreign-ABI row must kill");
			continue;
		}
		cr_expect(t[i].errno_value == EPERM || t[i].errno_value == ENOSYS,
			  "row %s: unexpected errno %d", t[i].syscall, t[i].errno_value);
		cr_expect(t[i].match != SECCOMP_POLICY_SUPERVISED,
			  "row %s: nothing answers a notification here", t[i].syscall);
		int nr = seccomp_policy_resolve(&t[i]);
		cr_expect_geq(nr, 0, "row %s does not resolve: it would be skipped", t[i].syscall);
	}
	cr_expect_eq(foreign, want_foreign);
}

Test(seccomp_tables, rows_are_well_formed_and_resolve)
{
	size_t n;
	const struct seccomp_rule_desc *t = seccomp_policy_bridge_table(&n);
	well_formed(t, n, 1);
	t = seccomp_policy_hostpid_table(&n);
	well_formed(t, n, 0);
}

static void same_as_libseccomp(const struct seccomp_rule_desc *rows, size_t n, int allow_unix,
			       const struct sock_fprog *embedded)
{
	struct seccomp_opts o = { allow_unix };
	struct sock_fprog fresh = { 0, NULL };
	struct cordon_err e;
	cr_assert_eq(seccomp_policy_export_rows(rows, n, &o, &fresh, &e), 0, "%s", e.msg);
	cr_assert_eq(embedded->len, fresh.len, "embedded %u instructions, libseccomp %u",
		     embedded->len, fresh.len);
	cr_assert_eq(memcmp(embedded->filter, fresh.filter, fresh.len * sizeof(*fresh.filter)), 0,
		     "the embedded program differs from libseccomp's: rebuild (make)");
	free(fresh.filter);
}

Test(seccomp_tables, embedded_programs_match_libseccomp)
{
	size_t n;
	struct sock_fprog p;
	const struct seccomp_rule_desc *t = seccomp_policy_bridge_table(&n);
	seccomp_bpf_bridge_program(0, &p);
	same_as_libseccomp(t, n, 0, &p);
	seccomp_bpf_bridge_program(1, &p);
	same_as_libseccomp(t, n, 1, &p);
	t = seccomp_policy_hostpid_table(&n);
	seccomp_bpf_hostpid_program(&p);
	same_as_libseccomp(t, n, 0, &p);
}
