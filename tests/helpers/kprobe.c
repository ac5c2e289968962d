/* kprobe.c: attempts one kernel operation and prints the outcome, for the
 * integration tests of the seccomp filter and the Landlock layer.
 *   kprobe NAME [ARG]   prints "ok" (exit 0) or the errno name (exit 1);
 *                       a probe that cannot even be set up exits 2.
 * Probes that need a partner (unix_listen, abstract_listen) serve one
 * connection and exit. */
#include <errno.h>
#include <fcntl.h>
#include <linux/bpf.h>
#include <linux/perf_event.h>
#include <linux/userfaultfd.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <netinet/in.h>
#include <termios.h>
#include <unistd.h>

static int report(long r)
{
	if (r >= 0) {
		puts("ok");
		return 0;
	}
	int e = errno;
	const char *n = e == EPERM ? "EPERM" : e == EACCES ? "EACCES" : e == ENOSYS ? "ENOSYS"
		: e == ENOENT ? "ENOENT" : e == ECONNREFUSED ? "ECONNREFUSED" : e == EINVAL ? "EINVAL"
		: e == ENOTTY ? "ENOTTY" : e == ESRCH ? "ESRCH" : e == EROFS ? "EROFS" : NULL;
	if (n)
		puts(n);
	else
		printf("errno=%d\n", e);
	return 1;
}

static socklen_t unix_addr(struct sockaddr_un *a, const char *name, int abstract)
{
	memset(a, 0, sizeof(*a));
	a->sun_family = AF_UNIX;
	size_t n = strlen(name);
	if (n > sizeof(a->sun_path) - 2)
		n = sizeof(a->sun_path) - 2;
	memcpy(a->sun_path + (abstract ? 1 : 0), name, n);
	return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + n + (abstract ? 1 : 0));
}

static int listen_unix(const char *name, int abstract)
{
	int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	struct sockaddr_un a;
	socklen_t l = unix_addr(&a, name, abstract);
	if (s < 0 || bind(s, (struct sockaddr *)&a, l) < 0 || listen(s, 1) < 0)
		return 2;
	puts("listening");
	fflush(stdout);
	int c = accept(s, NULL, NULL);
	return c >= 0 ? 0 : 2;
}

static int connect_unix(const char *name, int abstract)
{
	int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (s < 0)
		return report(-1);
	struct sockaddr_un a;
	socklen_t l = unix_addr(&a, name, abstract);
	return report(connect(s, (struct sockaddr *)&a, l));
}

/* Bind a TCP server on 127.0.0.1, connect to it, pass a byte both ways. */
static int inet_loopback(void)
{
	int srv = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t l = sizeof(a);
	if (srv < 0 || bind(srv, (struct sockaddr *)&a, l) < 0 || listen(srv, 1) < 0 ||
	    getsockname(srv, (struct sockaddr *)&a, &l) < 0)
		return report(-1);
	int c = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (c < 0 || connect(c, (struct sockaddr *)&a, l) < 0)
		return report(-1);
	int s = accept(srv, NULL, NULL);
	char b = 'x';
	if (s < 0 || write(c, &b, 1) != 1 || read(s, &b, 1) != 1 || write(s, &b, 1) != 1 ||
	    read(c, &b, 1) != 1)
		return report(-1);
	return report(0);
}

static void *thread_fn(void *arg)
{
	return arg;
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return 2;
	const char *p = argv[1];
	const char *arg = argc > 2 ? argv[2] : "";

	if (!strcmp(p, "unix_socket"))
		return report(socket(AF_UNIX, SOCK_STREAM, 0));
	if (!strcmp(p, "socketpair")) {
		int sv[2];
		return report(socketpair(AF_UNIX, SOCK_STREAM, 0, sv));
	}
	if (!strcmp(p, "unix_listen"))
		return listen_unix(arg, 0);
	if (!strcmp(p, "abstract_listen"))
		return listen_unix(arg, 1);
	if (!strcmp(p, "unix_connect"))
		return connect_unix(arg, 0);
	if (!strcmp(p, "abstract_connect"))
		return connect_unix(arg, 1);
	if (!strcmp(p, "abstract_self")) {
		/* listen and connect inside the same sandbox */
		int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
		struct sockaddr_un a;
		socklen_t l = unix_addr(&a, arg, 1);
		if (s < 0 || bind(s, (struct sockaddr *)&a, l) < 0 || listen(s, 1) < 0)
			return report(-1);
		return connect_unix(arg, 1);
	}
	if (!strcmp(p, "inet_loopback"))
		return inet_loopback();
	if (!strcmp(p, "tiocsti")) {
		char c = '#';
		return report(ioctl(0, TIOCSTI, &c));
	}
	if (!strcmp(p, "keyctl_read_session"))
		/* KEYCTL_READ (11) of KEY_SPEC_SESSION_KEYRING (-3) */
		return report(syscall(SYS_keyctl, 11, -3, 0, 0, 0));
	if (!strcmp(p, "io_uring_setup")) {
		char params[120] = { 0 };
		return report(syscall(SYS_io_uring_setup, 4, params));
	}
	if (!strcmp(p, "io_setup")) {
		/* The context is destroyed at once: fs.aio-nr is the machine's. */
		unsigned long ctx = 0;
		long r = syscall(SYS_io_setup, 8, &ctx);
		if (r == 0)
			(void)syscall(SYS_io_destroy, ctx);
		return report(r);
	}
	if (!strcmp(p, "ptrace")) {
		pid_t c = fork();
		if (c == 0) {
			pause();
			_exit(0);
		}
		long r = ptrace(PTRACE_ATTACH, c, 0, 0);
		int e = errno;
		kill(c, SIGKILL);
		waitpid(c, NULL, 0);
		errno = e;
		return report(r);
	}
	if (!strcmp(p, "process_vm_readv")) {
		char src[8] = "abc", dst[8];
		struct iovec l = { dst, 4 }, r = { src, 4 };
		return report(syscall(SYS_process_vm_readv, getpid(), &l, 1, &r, 1, 0));
	}
	if (!strcmp(p, "bpf")) {
		union bpf_attr a;
		memset(&a, 0, sizeof(a));
		return report(syscall(SYS_bpf, BPF_PROG_LOAD, &a, sizeof(a)));
	}
	if (!strcmp(p, "perf_event_open")) {
		struct perf_event_attr a;
		memset(&a, 0, sizeof(a));
		a.size = sizeof(a);
		a.type = PERF_TYPE_SOFTWARE;
		a.config = PERF_COUNT_SW_CPU_CLOCK;
		a.exclude_kernel = 1;
		return report(syscall(SYS_perf_event_open, &a, 0, -1, -1, 0));
	}
	if (!strcmp(p, "modify_ldt")) {
		char ldt[16];
		return report(syscall(SYS_modify_ldt, 0, ldt, sizeof(ldt))); /* read: changes nothing */
	}
	if (!strcmp(p, "uselib"))
		return report(syscall(SYS_uselib, "/nonexistent-cordon-lib"));
	if (!strcmp(p, "userfaultfd"))
		return report(syscall(SYS_userfaultfd, O_CLOEXEC | UFFD_USER_MODE_ONLY));
	if (!strcmp(p, "unshare_user"))
		return report(unshare(CLONE_NEWUSER));
	if (!strcmp(p, "mount"))
		/* a tmpfs on the scratch directory given: never run this on the
		 * host as root with a real path */
		return arg[0] ? report(mount("none", arg, "tmpfs", 0, NULL)) : 2;
	if (!strcmp(p, "open_by_handle_at")) {
		char h[sizeof(struct file_handle) + 128];
		memset(h, 0, sizeof(h));
		((struct file_handle *)h)->handle_bytes = 128;
		return report(syscall(SYS_open_by_handle_at, AT_FDCWD, h, O_RDONLY));
	}
	if (!strcmp(p, "clone3")) {
		char a[88] = { 0 };
		return report(syscall(SYS_clone3, a, sizeof(a)));
	}
	if (!strcmp(p, "threads")) {
		pthread_t t;
		if (pthread_create(&t, NULL, thread_fn, NULL) != 0 || pthread_join(t, NULL) != 0)
			return report(-1);
		return report(0);
	}
	if (!strcmp(p, "write"))
		return report(open(arg, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644));
	if (!strcmp(p, "kill"))
		return report(kill((pid_t)atoi(arg), SIGTERM));
	return 2;
}
