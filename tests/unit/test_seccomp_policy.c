/* test_seccomp_policy.c: the seccomp table, and the loaded filter seen from a
 * process that runs under it.
 *
 * Each filter test forks a child that sets no_new_privs, loads the policy and
 * runs a list of checks; it exits with 0, or with the number of the first
 * check that failed (after printing that check to stderr).  The assertions
 * are in the parent.  Every denial is paired with a near miss that must still
 * work, so that a filter denying too much fails as loudly as one denying too
 * little. */
#include <criterion/criterion.h>
#include <criterion/logging.h>

#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/sched.h>
#include <seccomp.h>
#include <linux/seccomp.h>
#include <sys/un.h>
#include <sys/ioctl.h>

#include "err.h"
#include "fdpass.h"
#include "seccomp_policy.h"
#include "sys.h"

#define LOAD_FAILED 200
#define X32_SYSCALL_BIT 0x40000000L

/* ---- child side ---------------------------------------------------------- */

static int check_no; /* number of the check being run in the child */

static int child_fail(const char *what, long r, int err)
{
	fprintf(stderr, "seccomp child: check %d `%s` returned %ld, errno %d (%s)\n",
		check_no, what, r, err, strerror(err));
	return check_no;
}

/* The call must fail with errno e. */
#define EXPECT_ERRNO(call, e) do {                                        \
	check_no++;                                                       \
	errno = 0;                                                        \
	long r_ = (long)(call);                                           \
	if (r_ != -1 || errno != (e))                                     \
		return child_fail(#call, r_, errno);                      \
} while (0)

/* The call must succeed (return >= 0). */
#define EXPECT_OK(call) do {                                              \
	check_no++;                                                       \
	errno = 0;                                                        \
	long r_ = (long)(call);                                           \
	if (r_ < 0)                                                       \
		return child_fail(#call, r_, errno);                      \
} while (0)

/* The call may fail, but not with errno e (used where the environment may
 * legitimately refuse, e.g. no IPv6). */
#define EXPECT_NOT_ERRNO(call, e) do {                                    \
	check_no++;                                                       \
	errno = 0;                                                        \
	long r_ = (long)(call);                                           \
	if (r_ == -1 && errno == (e))                                     \
		return child_fail(#call, r_, errno);                      \
} while (0)

static void child_load(const struct seccomp_opts *o)
{
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) {
		perror("seccomp child: PR_SET_NO_NEW_PRIVS");
		_exit(LOAD_FAILED);
	}
	struct cordon_err e = { 0 };
	if (seccomp_policy_load(o, &e) < 0) {
		err_print(&e);
		_exit(LOAD_FAILED);
	}
}

/* ---- parent side --------------------------------------------------------- */

static int wait_child(pid_t pid)
{
	int st = 0;
	while (waitpid(pid, &st, 0) < 0)
		cr_assert_eq(errno, EINTR, "waitpid: %s", strerror(errno));
	return st;
}

/* Run body() in a child under the policy; return its wait status. */
static int run_filtered(const struct seccomp_opts *o, int (*body)(void))
{
	pid_t pid = fork();
	cr_assert_neq(pid, -1, "fork: %s", strerror(errno));
	if (pid == 0) {
		child_load(o);
		check_no = 0;
		_exit(body());
	}
	return wait_child(pid);
}

static void assert_passed(int st)
{
	cr_assert(WIFEXITED(st), "filtered child died of signal %d",
		  WIFSIGNALED(st) ? WTERMSIG(st) : -1);
	cr_assert_neq(WEXITSTATUS(st), LOAD_FAILED, "loading the filter failed (see stderr)");
	cr_assert_eq(WEXITSTATUS(st), 0, "check %d failed in the filtered child (see stderr)",
		     WEXITSTATUS(st));
}

static void assert_sigsys(int st, const char *what)
{
	cr_assert(!WIFEXITED(st) || WEXITSTATUS(st) != LOAD_FAILED,
		  "loading the filter failed (see stderr)");
	cr_assert(WIFSIGNALED(st), "%s: child exited with %d instead of dying of SIGSYS",
		  what, WIFEXITED(st) ? WEXITSTATUS(st) : -1);
	cr_assert_eq(WTERMSIG(st), SIGSYS, "%s: child died of signal %d, not SIGSYS",
		     what, WTERMSIG(st));
}

/* ---- the table ----------------------------------------------------------- */

static const struct seccomp_rule_desc *find_row(const char *name)
{
	size_t n = 0;
	const struct seccomp_rule_desc *t = seccomp_policy_table(&n);
	for (size_t i = 0; i < n; i++)
		if (strcmp(t[i].syscall, name) == 0)
			return &t[i];
	return NULL;
}

Test(seccomp_policy, table_rows_are_well_formed_and_resolve)
{
	size_t n = 0;
	const struct seccomp_rule_desc *t = seccomp_policy_table(&n);
	cr_assert_not_null(t);
	cr_assert_gt(n, 0);
	size_t foreign = 0;
	for (size_t i = 0; i < n; i++) {
		cr_assert_not_null(t[i].syscall, "row %zu has no syscall", i);
		cr_assert_not_null(t[i].when, "row %zu (%s) has no condition", i, t[i].syscall);
		cr_expect(t[i].errno_value == 0 || t[i].errno_value == EPERM ||
			  t[i].errno_value == ENOSYS,
			  "row %s: unexpected errno %d", t[i].syscall, t[i].errno_value);
		int nr = seccomp_policy_resolve(&t[i]);
		if (t[i].match == SECCOMP_POLICY_FOREIGN_ABI) {
			foreign++;
			cr_expect_eq(t[i].errno_value, 0, "the foreign-ABI row must kill");
			cr_expect_eq(nr, -EINVAL);
			continue;
		}
		/* seccomp_policy_load() skips a name this libseccomp does not
		 * know (seccomp_policy_resolve() == -ENOENT, see the comment in
		 * add_row()); with the library cordon is built against, none
		 * may be skipped. */
		cr_expect_geq(nr, 0, "row %s does not resolve with libseccomp "
			      "%u.%u.%u: it would be skipped", t[i].syscall,
			      seccomp_version()->major, seccomp_version()->minor,
			      seccomp_version()->micro);
		cr_expect_eq(nr, seccomp_syscall_resolve_name(t[i].syscall));
	}
	cr_expect_eq(foreign, 1);

	struct seccomp_rule_desc bogus = { "no_such_syscall_cordon", "never", EPERM,
					   SECCOMP_POLICY_ALWAYS, 0, 0 };
	cr_expect_eq(seccomp_policy_resolve(&bogus), -ENOENT);
	cr_expect_eq(seccomp_policy_resolve(NULL), -EINVAL);
}

Test(seccomp_policy, table_covers_design_section_6)
{
	static const char *const denied[] = {
		"socket", "socketpair", "io_uring_setup", "io_uring_enter",
		"io_uring_register", "ptrace", "process_vm_readv",
		"process_vm_writev", "bpf", "perf_event_open", "userfaultfd", "modify_ldt", "uselib",
		"keyctl", "add_key", "request_key", "ioctl", "unshare", "clone",
		"clone3", "mount", "umount2", "pivot_root", "open_tree",
		"move_mount", "fsopen", "fsconfig", "fsmount", "fspick",
		"mount_setattr", "setns", "open_by_handle_at",
		"name_to_handle_at", "init_module", "finit_module",
		"delete_module", "kexec_load", "kexec_file_load", "reboot",
		"swapon", "swapoff", "acct", "quotactl", "quotactl_fd", "syslog",
		"chmod", "fchmod", "fchmodat", "fchmodat2", "creat", "open",
		"openat", "mknod", "mknodat", "openat2", "io_setup",
	};
	for (size_t i = 0; i < sizeof(denied) / sizeof(denied[0]); i++)
		cr_expect_not_null(find_row(denied[i]), "%s missing from the table", denied[i]);

	/* Denying these broke asyncio and Python's forkserver elsewhere;
	 * connect and bind are supervised, never denied by the table. */
	static const char *const allowed[] = {
		"sendto", "sendmsg", "recvmsg", "listen", "accept4", "fork", "vfork", "execve",
	};
	for (size_t i = 0; i < sizeof(allowed) / sizeof(allowed[0]); i++)
		cr_expect_null(find_row(allowed[i]), "%s must not be in the table", allowed[i]);

	static const char *const supervised[] = { "connect", "bind" };
	for (size_t i = 0; i < 2; i++) {
		const struct seccomp_rule_desc *r = find_row(supervised[i]);
		cr_assert_not_null(r, "%s missing from the table", supervised[i]);
		cr_expect_eq(r->match, SECCOMP_POLICY_SUPERVISED, "%s must go to the supervisor",
			     supervised[i]);
	}

	const struct seccomp_rule_desc *c3 = find_row("clone3");
	cr_assert_not_null(c3);
	cr_expect_eq(c3->errno_value, ENOSYS);
	/* ENOSYS, so that libaio's users fall back (issue 30 item 6). */
	const struct seccomp_rule_desc *aio = find_row("io_setup");
	cr_assert_not_null(aio);
	cr_expect_eq(aio->errno_value, ENOSYS);
}

Test(seccomp_policy, socket_family_predicate)
{
	struct seccomp_opts unix_ok = { .allow_unix_sockets = 1 };
	cr_expect(seccomp_policy_socket_family_allowed(AF_INET, NULL));
	cr_expect(seccomp_policy_socket_family_allowed(AF_INET6, NULL));
	cr_expect(seccomp_policy_socket_family_allowed(AF_NETLINK, NULL));
	cr_expect(seccomp_policy_socket_family_allowed(AF_UNIX, NULL));
	cr_expect(seccomp_policy_socket_family_allowed(AF_UNIX, &unix_ok));
	cr_expect(!seccomp_policy_socket_family_allowed(AF_PACKET, &unix_ok));
	cr_expect(!seccomp_policy_socket_family_allowed(0, &unix_ok));
	cr_expect(!seccomp_policy_socket_family_allowed((1ULL << 32) | AF_INET, &unix_ok));
	/* Unix types: stream and seqpacket, any with --allow-unix-sockets. */
	cr_expect(seccomp_policy_unix_type_allowed(SOCK_STREAM, NULL));
	cr_expect(seccomp_policy_unix_type_allowed(SOCK_SEQPACKET, NULL));
	cr_expect(!seccomp_policy_unix_type_allowed(SOCK_DGRAM, NULL));
	cr_expect(!seccomp_policy_unix_type_allowed(SOCK_RAW, NULL));
	cr_expect(seccomp_policy_unix_type_allowed(SOCK_DGRAM, &unix_ok));
}

/* ---- loading ------------------------------------------------------------- */

struct nnp_report {
	int rc;
	int seccomp_mode;
	struct cordon_err e;
};

Test(seccomp_policy, load_refuses_without_no_new_privs)
{
	int p[2];
	cr_assert_eq(pipe2(p, O_CLOEXEC), 0);
	pid_t pid = fork();
	cr_assert_neq(pid, -1);
	if (pid == 0) {
		struct nnp_report rep = { 0 };
		rep.rc = seccomp_policy_load(NULL, &rep.e);
		rep.seccomp_mode = prctl(PR_GET_SECCOMP, 0, 0, 0, 0);
		_exit(sys_write_all(p[1], &rep, sizeof(rep)) == 0 ? 0 : 1);
	}
	sys_close(&p[1]);
	struct nnp_report rep;
	ssize_t got = sys_read_full(p[0], &rep, sizeof(rep));
	sys_close(&p[0]);
	int st = wait_child(pid);
	cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	cr_assert_eq(got, (ssize_t)sizeof(rep));
	cr_expect_eq(rep.rc, -EPERM);
	cr_expect_eq(rep.e.err, EPERM);
	cr_expect_eq(rep.e.exit_code, EXIT_CORDON_FAILED);
	rep.e.msg[sizeof(rep.e.msg) - 1] = '\0';
	cr_expect(strncmp(rep.e.msg, "seccomp: ", 9) == 0, "message: %s", rep.e.msg);
	cr_expect(strstr(rep.e.msg, "PR_SET_NO_NEW_PRIVS") != NULL, "message: %s", rep.e.msg);
	cr_expect_eq(rep.seccomp_mode, 0, "a filter was loaded anyway");
}

static int body_loaded(void)
{
	EXPECT_OK(prctl(PR_GET_SECCOMP, 0, 0, 0, 0) == 2 ? 0 : -1);
	/* no_new_privs stays the caller's business: still exactly 1. */
	EXPECT_OK(prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) == 1 ? 0 : -1);
	EXPECT_OK(getpid());
	return 0;
}

Test(seccomp_policy, load_with_null_opts_and_null_err)
{
	pid_t pid = fork();
	cr_assert_neq(pid, -1);
	if (pid == 0) {
		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
			_exit(LOAD_FAILED);
		if (seccomp_policy_load(NULL, NULL) != 0)
			_exit(LOAD_FAILED);
		check_no = 0;
		_exit(body_loaded());
	}
	assert_passed(wait_child(pid));
}

/* ---- socket / socketpair ------------------------------------------------- */

static long raw_socket(uint64_t family, int type)
{
	return syscall(SYS_socket, family, (long)(type | SOCK_CLOEXEC), 0L);
}

static long raw_socketpair(uint64_t family, int type)
{
	int sv[2];
	return syscall(SYS_socketpair, family, (long)(type | SOCK_CLOEXEC), 0L, sv);
}

static int body_socket_default(void)
{
	EXPECT_OK(raw_socket(AF_INET, SOCK_STREAM));
	EXPECT_OK(raw_socket(AF_INET, SOCK_DGRAM));
	EXPECT_NOT_ERRNO(raw_socket(AF_INET6, SOCK_STREAM), EPERM);
	EXPECT_OK(raw_socket(AF_NETLINK, SOCK_RAW));
	EXPECT_OK(raw_socket(AF_UNIX, SOCK_STREAM));
	EXPECT_OK(raw_socket(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK));
	/* A datagram socket could sendto any host socket by an address no
	 * filter sees. */
	EXPECT_ERRNO(raw_socket(AF_UNIX, SOCK_DGRAM), EPERM);
	EXPECT_ERRNO(raw_socket(AF_UNIX, SOCK_DGRAM | SOCK_NONBLOCK), EPERM);
	EXPECT_ERRNO(raw_socket(AF_UNIX, SOCK_RAW), EPERM);
	EXPECT_ERRNO(syscall(SYS_socket, (long)AF_UNIX, (1L << 32) | SOCK_DGRAM, 0L), EPERM);
	EXPECT_ERRNO(raw_socket(AF_PACKET, SOCK_RAW), EPERM);
	EXPECT_ERRNO(raw_socket(AF_VSOCK, SOCK_STREAM), EPERM);
	EXPECT_ERRNO(raw_socket(AF_BLUETOOTH, SOCK_STREAM), EPERM);
	EXPECT_ERRNO(raw_socket(0, SOCK_STREAM), EPERM);
	EXPECT_ERRNO(raw_socket(3, SOCK_STREAM), EPERM);
	EXPECT_ERRNO(raw_socket(AF_MAX + 5, SOCK_STREAM), EPERM);
	/* The kernel reads an int: this is AF_UNIX to it. */
	EXPECT_ERRNO(raw_socket((1ULL << 32) | AF_UNIX, SOCK_STREAM), EPERM);
	EXPECT_ERRNO(raw_socket(~0ULL, SOCK_STREAM), EPERM);

	EXPECT_OK(raw_socketpair(AF_UNIX, SOCK_STREAM));
	EXPECT_OK(raw_socketpair(AF_UNIX, SOCK_SEQPACKET));
	EXPECT_ERRNO(raw_socketpair(AF_INET, SOCK_STREAM), EPERM);
	EXPECT_ERRNO(raw_socketpair(AF_NETLINK, SOCK_RAW), EPERM);
	EXPECT_ERRNO(raw_socketpair((1ULL << 32) | AF_INET, SOCK_STREAM), EPERM);
	return 0;
}

Test(seccomp_policy, socket_families_default)
{
	assert_passed(run_filtered(&(struct seccomp_opts){ 0 }, body_socket_default));
}

static int body_socket_allow_unix(void)
{
	EXPECT_OK(raw_socket(AF_UNIX, SOCK_STREAM));
	EXPECT_OK(raw_socket(AF_UNIX, SOCK_DGRAM));
	EXPECT_OK(raw_socket(AF_INET, SOCK_STREAM));
	EXPECT_OK(raw_socket(AF_NETLINK, SOCK_RAW));
	EXPECT_ERRNO(raw_socket(0, SOCK_STREAM), EPERM);
	EXPECT_ERRNO(raw_socket(AF_PACKET, SOCK_RAW), EPERM);
	EXPECT_ERRNO(raw_socket((1ULL << 32) | AF_UNIX, SOCK_STREAM), EPERM);
	EXPECT_ERRNO(raw_socketpair(AF_INET, SOCK_STREAM), EPERM);
	return 0;
}

Test(seccomp_policy, socket_families_allow_unix)
{
	assert_passed(run_filtered(&(struct seccomp_opts){ .allow_unix_sockets = 1 },
				   body_socket_allow_unix));
}

/* sendto/sendmsg/bind/listen must stay allowed (asyncio, forkserver). */
static int body_network_calls(void)
{
	int sv[2];
	EXPECT_OK(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv));
	int nul = open("/dev/null", O_RDONLY | O_CLOEXEC);
	EXPECT_OK(nul);
	EXPECT_OK(fdpass_send(sv[0], "x", 1, nul) == 0 ? 0 : -1);
	char c = 0;
	int got_fd = -1;
	EXPECT_OK(fdpass_recv(sv[1], &c, 1, &got_fd) == 1 && c == 'x' && got_fd >= 0 ? 0 : -1);

	EXPECT_OK(sendto(sv[0], "y", 1, 0, NULL, 0));
	EXPECT_OK(recv(sv[1], &c, 1, 0));

	struct sockaddr_in any = { .sin_family = AF_INET, .sin_port = 0,
				   .sin_addr.s_addr = htonl(INADDR_ANY) };
	int udp = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	EXPECT_OK(udp);
	EXPECT_OK(bind(udp, (struct sockaddr *)&any, sizeof(any)));
	int tcp = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	EXPECT_OK(tcp);
	EXPECT_OK(bind(tcp, (struct sockaddr *)&any, sizeof(any)));
	EXPECT_OK(listen(tcp, 1));
	return 0;
}

Test(seccomp_policy, send_bind_listen_stay_allowed)
{
	/* bind goes to the supervisor by default (below); unsupervised here. */
	assert_passed(run_filtered(&(struct seccomp_opts){ .allow_unix_sockets = 1 },
				   body_network_calls));
}

/* The default filter sends connect and bind to a listener, whose answer
 * the caller gets; sendto stays with the kernel.  The child loads the
 * exported program with a new listener; its own child makes the calls. */
static int supervised_calls(void)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX, .sun_path = "/nonexistent" };
	int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	check_no = 10;
	EXPECT_ERRNO(connect(s, (struct sockaddr *)&sa, sizeof(sa)), EXDEV);
	EXPECT_ERRNO(bind(s, (struct sockaddr *)&sa, sizeof(sa)), EXDEV);
	EXPECT_ERRNO(sendto(s, "x", 1, MSG_NOSIGNAL, NULL, 0), ENOTCONN);
	return 0;
}

static int body_supervised(void)
{
	struct sock_fprog prog;
	struct cordon_err e;
	if (seccomp_policy_export(NULL, &prog, &e) < 0)
		return 90;
	int l = (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
			     SECCOMP_FILTER_FLAG_NEW_LISTENER, &prog);
	free(prog.filter);
	if (l < 0)
		return 91;
	pid_t c = fork();
	if (c == 0)
		_exit(supervised_calls());
	static const int want[] = { SYS_connect, SYS_bind };
	for (int i = 0; i < 2; i++) {
		struct seccomp_notif req;
		struct seccomp_notif_resp resp;
		memset(&req, 0, sizeof(req));
		if (ioctl(l, SECCOMP_IOCTL_NOTIF_RECV, &req) < 0 || req.data.nr != want[i])
			return 92 + i;
		memset(&resp, 0, sizeof(resp));
		resp.id = req.id;
		resp.error = -EXDEV;
		if (ioctl(l, SECCOMP_IOCTL_NOTIF_SEND, &resp) < 0)
			return 94;
	}
	int st;
	if (waitpid(c, &st, 0) != c || !WIFEXITED(st))
		return 95;
	return WEXITSTATUS(st);
}

Test(seccomp_policy, connect_and_bind_go_to_the_supervisor)
{
	pid_t pid = fork();
	cr_assert_neq(pid, -1);
	if (pid == 0) {
		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
			_exit(LOAD_FAILED);
		_exit(body_supervised());
	}
	assert_passed(wait_child(pid));
}

/* A datagram pair could sendto any named socket on the host; a stream or
 * seqpacket pair addresses nothing but itself. */
static int body_socketpair_types(void)
{
	EXPECT_OK(raw_socketpair(AF_UNIX, SOCK_STREAM));
	EXPECT_OK(raw_socketpair(AF_UNIX, SOCK_SEQPACKET));
	EXPECT_OK(raw_socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK));
	EXPECT_OK(raw_socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK));
	EXPECT_ERRNO(raw_socketpair(AF_UNIX, SOCK_DGRAM), EPERM);
	EXPECT_ERRNO(raw_socketpair(AF_UNIX, SOCK_DGRAM | SOCK_NONBLOCK), EPERM);
	EXPECT_ERRNO(raw_socketpair(AF_UNIX, SOCK_RAW), EPERM);
	EXPECT_ERRNO(raw_socketpair(AF_UNIX, SOCK_RDM), EPERM);
	EXPECT_ERRNO(raw_socketpair(AF_UNIX, 0), EPERM);
	EXPECT_ERRNO(raw_socketpair(AF_UNIX, 15), EPERM);
	/* The kernel reads an int: this is SOCK_DGRAM to it. */
	int sv[2];
	EXPECT_ERRNO(syscall(SYS_socketpair, (long)AF_UNIX, (1L << 32) | SOCK_DGRAM, 0L, sv), EPERM);
	/* Near miss: a stray flag bit on a stream pair is the kernel's EINVAL. */
	EXPECT_ERRNO(raw_socketpair(AF_UNIX, SOCK_STREAM | 0x10), EINVAL);
	return 0;
}

Test(seccomp_policy, socketpair_stream_and_seqpacket_only)
{
	assert_passed(run_filtered(NULL, body_socketpair_types));
	assert_passed(run_filtered(&(struct seccomp_opts){ .allow_unix_sockets = 1 },
				   body_socketpair_types));
	cr_expect(seccomp_policy_socketpair_type_allowed(SOCK_STREAM));
	cr_expect(seccomp_policy_socketpair_type_allowed(SOCK_SEQPACKET));
	cr_expect(!seccomp_policy_socketpair_type_allowed(SOCK_DGRAM));
	cr_expect(!seccomp_policy_socketpair_type_allowed(SOCK_RAW));
}

/* ---- setuid and setgid bits ---------------------------------------------- */

#define NR_OPENAT2 437
#define NR_FCHMODAT2 452

static char sugid_dir[] = "/tmp/cordon-sugid.XXXXXX";

static const char *in_dir(const char *name)
{
	static char buf[4][128];
	static int i;
	i = (i + 1) % 4;
	snprintf(buf[i], sizeof(buf[i]), "%s/%s", sugid_dir, name);
	return buf[i];
}

static long raw_open(const char *path, long flags, long mode)
{
	return syscall(SYS_open, path, flags | O_CLOEXEC, mode);
}

static long raw_openat(const char *path, long flags, long mode)
{
	return syscall(SYS_openat, (long)AT_FDCWD, path, flags | O_CLOEXEC, mode);
}

static int body_sugid(void)
{
	const char *f = in_dir("f");
	int fd = open(f, O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
	EXPECT_OK(fd);

	EXPECT_ERRNO(chmod(f, 04755), EPERM);
	EXPECT_ERRNO(chmod(f, 02755), EPERM);
	EXPECT_ERRNO(chmod(f, 06755), EPERM);
	EXPECT_ERRNO(syscall(SYS_chmod, f, (1L << 40) | 04755), EPERM);
	EXPECT_OK(chmod(f, 0755));
	EXPECT_OK(chmod(f, 01755)); /* sticky is harmless */
	EXPECT_ERRNO(fchmod(fd, 04700), EPERM);
	EXPECT_ERRNO(fchmod(fd, 02700), EPERM);
	EXPECT_OK(fchmod(fd, 0700));
	EXPECT_ERRNO(syscall(SYS_fchmodat, (long)AT_FDCWD, f, 04755L), EPERM);
	EXPECT_ERRNO(syscall(SYS_fchmodat, (long)AT_FDCWD, f, 02755L), EPERM);
	EXPECT_OK(syscall(SYS_fchmodat, (long)AT_FDCWD, f, 0644L));
	EXPECT_ERRNO(syscall(NR_FCHMODAT2, (long)AT_FDCWD, f, 04755L, 0L), EPERM);
	EXPECT_ERRNO(syscall(NR_FCHMODAT2, (long)AT_FDCWD, f, 02755L, 0L), EPERM);
	/* Near miss (ENOSYS before Linux 6.6). */
	EXPECT_NOT_ERRNO(syscall(NR_FCHMODAT2, (long)AT_FDCWD, f, 0644L, 0L), EPERM);

	EXPECT_ERRNO(syscall(SYS_creat, in_dir("c"), 04755L), EPERM);
	EXPECT_OK(syscall(SYS_creat, in_dir("c"), 0755L));
	EXPECT_ERRNO(raw_open(in_dir("o"), O_CREAT | O_WRONLY, 04755), EPERM);
	EXPECT_ERRNO(raw_open(in_dir("o"), O_CREAT | O_WRONLY, 02755), EPERM);
	EXPECT_OK(raw_open(in_dir("o"), O_CREAT | O_WRONLY, 0755));
	/* Without O_CREAT the mode is ignored by the kernel, and so here. */
	EXPECT_OK(raw_open(f, O_WRONLY, 04755));
	EXPECT_ERRNO(raw_openat(in_dir("a"), O_CREAT | O_WRONLY, 04755), EPERM);
	EXPECT_ERRNO(raw_openat(in_dir("a"), O_CREAT | O_WRONLY | O_EXCL, 06700), EPERM);
	EXPECT_OK(raw_openat(in_dir("a"), O_CREAT | O_WRONLY, 0700));
	EXPECT_OK(raw_openat(f, O_RDONLY, 04755));
	EXPECT_ERRNO(raw_openat(sugid_dir, O_TMPFILE | O_WRONLY, 04700), EPERM);
	EXPECT_ERRNO(raw_openat(sugid_dir, O_TMPFILE | O_RDWR, 02700), EPERM);
	/* Near miss: the filesystem may lack O_TMPFILE (EOPNOTSUPP). */
	EXPECT_NOT_ERRNO(raw_openat(sugid_dir, O_TMPFILE | O_WRONLY, 0700), EPERM);

	EXPECT_ERRNO(mknod(in_dir("p"), S_IFIFO | 04644, 0), EPERM);
	EXPECT_ERRNO(mknodat(AT_FDCWD, in_dir("p"), S_IFIFO | 02644, 0), EPERM);
	EXPECT_ERRNO(mknodat(AT_FDCWD, in_dir("p"), S_IFREG | 04755, 0), EPERM);
	EXPECT_OK(mknod(in_dir("p"), S_IFIFO | 0644, 0));
	EXPECT_OK(mknodat(AT_FDCWD, in_dir("q"), S_IFIFO | 0644, 0));

	/* Its flags and mode are in memory: refused whatever they say. */
	struct { uint64_t flags, mode, resolve; } how = { O_RDONLY, 0, 0 };
	EXPECT_ERRNO(syscall(NR_OPENAT2, (long)AT_FDCWD, f, &how, sizeof(how)), ENOSYS);

	struct stat st;
	EXPECT_OK(stat(f, &st));
	EXPECT_OK((st.st_mode & (S_ISUID | S_ISGID)) ? -1 : 0);
	return 0;
}

Test(seccomp_policy, setuid_setgid_bits_refused)
{
	cr_assert_not_null(mkdtemp(sugid_dir), "mkdtemp: %s", strerror(errno));
	int st = run_filtered(NULL, body_sugid);
	static const char *const names[] = { "f", "c", "o", "a", "p", "q" };
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		(void)unlink(in_dir(names[i]));
	cr_expect_eq(rmdir(sugid_dir), 0, "rmdir %s: %s", sugid_dir, strerror(errno));
	assert_passed(st);
}

/* ---- ioctl --------------------------------------------------------------- */

static int body_ioctl(void)
{
	int fd = open("/dev/null", O_RDWR | O_CLOEXEC);
	EXPECT_OK(fd);
	char ch = 'x';
	EXPECT_ERRNO(ioctl(fd, TIOCSTI, &ch), EPERM);
	EXPECT_ERRNO(ioctl(fd, TIOCLINUX, &ch), EPERM);
	/* The kernel truncates the request to unsigned int: high bits set
	 * would still be TIOCSTI to it. */
	EXPECT_ERRNO(syscall(SYS_ioctl, (long)fd, (1UL << 32) | TIOCSTI, &ch), EPERM);
	EXPECT_ERRNO(syscall(SYS_ioctl, (long)fd, 0xffffffff00000000UL | TIOCSTI, &ch), EPERM);
	EXPECT_ERRNO(syscall(SYS_ioctl, (long)fd, (1UL << 63) | TIOCLINUX, &ch), EPERM);
	/* Near misses reach the driver, which answers ENOTTY for /dev/null. */
	struct winsize ws;
	EXPECT_ERRNO(ioctl(fd, TIOCGWINSZ, &ws), ENOTTY);
	EXPECT_ERRNO(ioctl(fd, TIOCSTI + 0x10000, &ch), ENOTTY);
	int avail = 0;
	EXPECT_NOT_ERRNO(ioctl(fd, FIONREAD, &avail), EPERM);
	return 0;
}

Test(seccomp_policy, ioctl_tiocsti_tioclinux)
{
	assert_passed(run_filtered(NULL, body_ioctl));
}

/* ---- clone, clone3, unshare ---------------------------------------------- */

/* A clone that should have been denied but was not: the copy leaves at once
 * so that it never runs the rest of the checks. */
static long raw_clone(uint64_t flags)
{
	long r = syscall(SYS_clone, flags, 0L, 0L, 0L, 0L);
	if (r == 0)
		_exit(0);
	if (r > 0)
		(void)waitpid((pid_t)r, NULL, __WALL); /* reap; result already known */
	return r;
}

static long fork_and_reap(void)
{
	pid_t pid = fork();
	if (pid == 0)
		_exit(7);
	if (pid < 0)
		return -1;
	int st = 0;
	if (waitpid(pid, &st, 0) != pid)
		return -1;
	return WIFEXITED(st) && WEXITSTATUS(st) == 7 ? 0 : -1;
}

static void *thread_fn(void *arg)
{
	return arg;
}

static long thread_round_trip(void)
{
	pthread_t t;
	int tag = 0;
	void *ret = NULL;
	int rc = pthread_create(&t, NULL, thread_fn, &tag);
	if (rc != 0) {
		errno = rc;
		return -1;
	}
	rc = pthread_join(t, &ret);
	if (rc != 0) {
		errno = rc;
		return -1;
	}
	return ret == &tag ? 0 : -1;
}

static int body_clone(void)
{
	EXPECT_ERRNO(unshare(CLONE_NEWUSER), EPERM);
	EXPECT_ERRNO(unshare(CLONE_NEWUSER | CLONE_NEWNS), EPERM);
	EXPECT_ERRNO(syscall(SYS_unshare, (1UL << 40) | CLONE_NEWUSER), EPERM);
	EXPECT_OK(unshare(0));
	EXPECT_OK(unshare(CLONE_FILES));

	EXPECT_ERRNO(raw_clone(CLONE_NEWUSER | SIGCHLD), EPERM);
	EXPECT_ERRNO(raw_clone((1ULL << 32) | CLONE_NEWUSER | SIGCHLD), EPERM);
	EXPECT_OK(raw_clone(SIGCHLD));

	struct clone_args ca = { .exit_signal = SIGCHLD };
	EXPECT_ERRNO(syscall(SYS_clone3, &ca, sizeof(ca)), ENOSYS);
	ca.flags = CLONE_NEWUSER;
	EXPECT_ERRNO(syscall(SYS_clone3, &ca, sizeof(ca)), ENOSYS);

	/* glibc tries clone3 first and must fall back to clone. */
	EXPECT_OK(fork_and_reap());
	EXPECT_OK(thread_round_trip());
	return 0;
}

Test(seccomp_policy, clone_unshare_clone3)
{
	assert_passed(run_filtered(NULL, body_clone));
}

/* ---- calls that would succeed without the filter ------------------------- */

#define KEYCTL_GET_KEYRING_ID_ 0
#define KEY_SPEC_PROCESS_KEYRING_ (-2L)

/* Each of these works unfiltered for any user (keyrings, reading one's own
 * memory), so EPERM can only come from the filter. */
static int body_would_succeed(void)
{
	EXPECT_ERRNO(syscall(SYS_keyctl, KEYCTL_GET_KEYRING_ID_, KEY_SPEC_PROCESS_KEYRING_, 1L),
		     EPERM);
	EXPECT_ERRNO(syscall(SYS_add_key, "user", "cordon-test", "v", 1L,
			     KEY_SPEC_PROCESS_KEYRING_), EPERM);
	char src[4] = "abc", dst[4] = { 0 };
	struct iovec l = { dst, sizeof(dst) }, r = { src, sizeof(src) };
	EXPECT_ERRNO(process_vm_readv(getpid(), &l, 1, &r, 1, 0), EPERM);
	EXPECT_ERRNO(process_vm_writev(getpid(), &r, 1, &l, 1, 0), EPERM);
	/* Unfiltered these fail with ENOENT, not EPERM, even for root. */
	EXPECT_ERRNO(mount("none", "/nonexistent-cordon-test", "tmpfs", 0, NULL), EPERM);
	EXPECT_ERRNO(umount2("/nonexistent-cordon-test", 0), EPERM);
	/* Unfiltered it makes a context (fs.aio-nr, the machine's count). */
	unsigned long aio = 0;
	EXPECT_ERRNO(syscall(SYS_io_setup, 8, &aio), ENOSYS);
	EXPECT_OK(getpid());
	return 0;
}

Test(seccomp_policy, keyctl_vm_mount_denied)
{
	assert_passed(run_filtered(NULL, body_would_succeed));
}

/* ---- every unconditional row, from the table ----------------------------- */

struct row_result {
	int nr;
	int ctrl_err;   /* errno of the same call without the filter */
	long ret;
	int err;
};

/* Arguments that make each call fail harmlessly if it ever reached the
 * kernel: bad pointers, invalid flags, fd -1.  init_module gets length 0,
 * which is refused before any allocation. */
static long call_row(const struct seccomp_rule_desc *r, int nr)
{
	errno = 0;
	if (strcmp(r->syscall, "init_module") == 0)
		return syscall(nr, 0L, 0L, 0L);
	return syscall(nr, -1L, -1L, -1L, -1L, -1L, -1L);
}

Test(seccomp_policy, every_unconditional_row_denies)
{
	size_t n = 0;
	const struct seccomp_rule_desc *t = seccomp_policy_table(&n);
	int p[2];
	cr_assert_eq(pipe2(p, O_CLOEXEC), 0);
	pid_t pid = fork();
	cr_assert_neq(pid, -1);
	if (pid == 0) {
		struct row_result res[128];
		if (n > sizeof(res) / sizeof(res[0]))
			_exit(2);
		memset(res, 0, sizeof(res));
		for (size_t i = 0; i < n; i++) {
			res[i].nr = t[i].match == SECCOMP_POLICY_ALWAYS
				    ? seccomp_policy_resolve(&t[i]) : -1;
			if (res[i].nr >= 0) {
				(void)call_row(&t[i], res[i].nr); /* control: errno only */
				res[i].ctrl_err = errno;
			}
		}
		child_load(NULL);
		for (size_t i = 0; i < n; i++) {
			if (res[i].nr < 0)
				continue;
			res[i].ret = call_row(&t[i], res[i].nr);
			res[i].err = errno;
		}
		_exit(sys_write_all(p[1], res, n * sizeof(res[0])) == 0 ? 0 : 1);
	}
	sys_close(&p[1]);
	struct row_result res[128];
	cr_assert_leq(n, sizeof(res) / sizeof(res[0]));
	ssize_t got = sys_read_full(p[0], res, n * sizeof(res[0]));
	sys_close(&p[0]);
	assert_passed(wait_child(pid));
	cr_assert_eq(got, (ssize_t)(n * sizeof(res[0])));

	size_t checked = 0;
	for (size_t i = 0; i < n; i++) {
		if (t[i].match != SECCOMP_POLICY_ALWAYS)
			continue;
		cr_expect_geq(res[i].nr, 0, "%s: not resolved, so not tested", t[i].syscall);
		if (res[i].nr < 0)
			continue;
		checked++;
		cr_expect_eq(res[i].ret, -1, "%s returned %ld under the filter",
			     t[i].syscall, res[i].ret);
		cr_expect_eq(res[i].err, t[i].errno_value, "%s: errno %d (%s), want %d",
			     t[i].syscall, res[i].err, strerror(res[i].err),
			     t[i].errno_value);
		if (res[i].ctrl_err == t[i].errno_value)
			cr_log_warn("%s fails with %s without the filter too: "
				    "not conclusive on this host", t[i].syscall,
				    strerror(res[i].ctrl_err));
	}
	cr_expect_gt(checked, 30);
}

/* ---- foreign ABIs -------------------------------------------------------- */

static void *x32_getpid(void *arg)
{
	(void)arg;
	(void)syscall(X32_SYSCALL_BIT | SYS_getpid); /* must never return */
	return NULL;
}

/* The x32 call is made from a second thread: the main thread outliving it
 * would mean only the thread was killed, not the process. */
static int body_x32(void)
{
	pthread_t t;
	if (pthread_create(&t, NULL, x32_getpid, NULL) != 0)
		return 90;
	struct timespec ts = { .tv_sec = 5 };
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
	return 91;
}

Test(seccomp_policy, x32_syscall_kills_the_process)
{
	assert_sigsys(run_filtered(NULL, body_x32), "x32 getpid");
}

static long int80_getpid(void)
{
	long r = 20; /* __NR_getpid in the i386 table */
	__asm__ volatile("int $0x80"
			 : "+a"(r)
			 :
			 : "memory", "cc", "r8", "r9", "r10", "r11");
	return r;
}

static int body_i386(void)
{
	(void)int80_getpid();
	return 91;
}

Test(seccomp_policy, i386_syscall_kills_the_process)
{
	/* Without IA32 emulation int 0x80 is a fault, not a syscall: there is
	 * nothing for the filter to see. */
	pid_t pid = fork();
	cr_assert_neq(pid, -1);
	if (pid == 0)
		_exit(int80_getpid() == (long)getpid() ? 0 : 1);
	int st = wait_child(pid);
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
		cr_skip_test("int 0x80 does not work on this kernel (no IA32 emulation)");
	assert_sigsys(run_filtered(NULL, body_i386), "i386 getpid");
}
