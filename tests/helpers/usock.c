/* usock.c: Unix socket probes for t_unix.sh, run inside the sandbox (and
 * outside, as the control).  Each prints one line: "ok" or the errno name.
 *
 *   usock connect PATH        connect a stream socket to PATH
 *   usock opath PATH          the same through /proc/self/fd/N of an O_PATH fd
 *   usock serve PATH          bind+listen PATH, accept one, print "ok"
 *   usock self PATH           bind+listen PATH, connect to it, accept: "ok"
 *   usock dgram PATH          socket(AF_UNIX, SOCK_DGRAM) and sendto PATH
 *   usock sendmsg PATH        sendmsg with PATH as address on a stream and on
 *                             a seqpacket socket: "stream=E seqpacket=E"
 *   usock flood N PATH        N connect attempts to PATH on one socket:
 *                             "refused=K rss_before=A rss_after=B" (PID 1's kB)
 *   usock race N DIR          DIR/a/s is served here, DIR/b/s by the host;
 *                             a thread swaps a and b while N connects to
 *                             DIR/a/s run: "host=H swaps=S connected=K"
 *                             (H: answered by the host's listener, which
 *                             sends "H"; S exchanges; K connects that worked)
 *   usock bindrace N DIR      DIR/host.sock is the host's; a thread keeps
 *                             renaming fresh hard links of it over DIR/x.sock
 *                             while N times the command binds DIR/x.sock and
 *                             connects to it: "host=H bound=B" (H answered
 *                             by the host's listener)
 *   usock bench N PATH        N connect+accept round trips to a listener on
 *                             PATH: "N round trips in T ms (U us each)"
 *   usock killmid PATH        a child blocks in connect to PATH (a listener
 *                             here with a full backlog) and is killed; then a
 *                             fresh connect still gets an answer: "ok"
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static const char *ename(int e)
{
	switch (e) {
	case 0: return "ok";
	case EACCES: return "EACCES";
	case EPERM: return "EPERM";
	case ECONNREFUSED: return "ECONNREFUSED";
	case ENOENT: return "ENOENT";
	case EISCONN: return "EISCONN";
	case EOPNOTSUPP: return "EOPNOTSUPP";
	case ENOTCONN: return "ENOTCONN";
	case EAGAIN: return "EAGAIN";
	case EINVAL: return "EINVAL";
	default: return strerror(e);
	}
}

static socklen_t mkaddr(struct sockaddr_un *sa, const char *path)
{
	memset(sa, 0, sizeof(*sa));
	sa->sun_family = AF_UNIX;
	snprintf(sa->sun_path, sizeof(sa->sun_path), "%s", path);
	return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + strlen(sa->sun_path) + 1);
}

static int conn(const char *path)
{
	struct sockaddr_un sa;
	socklen_t l = mkaddr(&sa, path);
	int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (s < 0)
		return errno;
	int r = connect(s, (struct sockaddr *)&sa, l) < 0 ? errno : 0;
	close(s);
	return r;
}

static int listener(const char *path, int backlog)
{
	struct sockaddr_un sa;
	socklen_t l = mkaddr(&sa, path);
	unlink(path);
	int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (s < 0 || bind(s, (struct sockaddr *)&sa, l) < 0 || listen(s, backlog) < 0) {
		printf("%s\n", ename(errno));
		exit(1);
	}
	return s;
}

static long rss_of_pid1(void)
{
	char buf[4096];
	FILE *f = fopen("/proc/1/status", "r");
	long v = -1;
	if (!f)
		return -1;
	while (fgets(buf, sizeof(buf), f))
		if (sscanf(buf, "VmRSS: %ld", &v) == 1)
			break;
	fclose(f);
	return v;
}

static const char *race_dir;
static volatile int racing = 1;

static long swaps;

static int exchange(const char *a, const char *b)
{
	return (int)syscall(SYS_renameat2, AT_FDCWD, a, AT_FDCWD, b, 2 /* RENAME_EXCHANGE */);
}

/* An even number of exchanges: when it stops, a/ and b/ are where they began. */
static void *swapper(void *arg)
{
	(void)arg;
	char a[512], b[512];
	snprintf(a, sizeof(a), "%s/a", race_dir);
	snprintf(b, sizeof(b), "%s/b", race_dir);
	while (racing)
		if (exchange(a, b) == 0)
			__atomic_add_fetch(&swaps, 1, __ATOMIC_RELAXED);
	while (swaps % 2 && exchange(a, b) < 0)
		;
	return NULL;
}

static void *acceptor(void *arg)
{
	int s = *(int *)arg;
	for (;;) {
		int c = accept(s, NULL, NULL);
		if (c >= 0)
			close(c);
	}
	return NULL;
}

static int race(int n, const char *dir)
{
	char p[512];
	snprintf(p, sizeof(p), "%s/a/s", dir);
	int l = listener(p, 4096);
	pthread_t th, ac;
	pthread_create(&ac, NULL, acceptor, &l);
	race_dir = dir;
	pthread_create(&th, NULL, swapper, NULL);
	/* On a loaded machine the connects could all run before the swapper
	 * is first scheduled: no race at all.  Start once it swaps. */
	while (__atomic_load_n(&swaps, __ATOMIC_RELAXED) < 2)
		sched_yield();
	int host = 0, ok = 0;
	for (int i = 0; i < n; i++) {
		struct sockaddr_un sa;
		socklen_t sl = mkaddr(&sa, p);
		int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (s < 0)
			continue;
		char c = 0;
		/* The host's listener says "H"; ours closes without a word. */
		if (connect(s, (struct sockaddr *)&sa, sl) < 0) {
			if (getenv("USOCK_DEBUG"))
				fprintf(stderr, "%s\n", ename(errno));
		} else {
			ok++;
			if (read(s, &c, 1) == 1 && c == 'H')
				host++;
		}
		close(s);
	}
	racing = 0;
	pthread_join(th, NULL);
	printf("host=%d swaps=%ld connected=%d\n", host, swaps, ok);
	return 0;
}

static void *relinker(void *arg)
{
	(void)arg;
	char h[512], t[512], x[512];
	snprintf(h, sizeof(h), "%s/host.sock", race_dir);
	snprintf(t, sizeof(t), "%s/h.tmp", race_dir);
	snprintf(x, sizeof(x), "%s/x.sock", race_dir);
	while (racing) {
		(void)unlink(t);
		if (link(h, t) == 0)
			(void)rename(t, x);
		/* Give the binds a chance: under load this thread alone
		 * ran, every bind met the host's file, and nothing raced. */
		struct timespec pause = { 0, 20000 };
		(void)nanosleep(&pause, NULL);
	}
	return NULL;
}

static int bindrace(int n, const char *dir)
{
	char x[512];
	snprintf(x, sizeof(x), "%s/x.sock", dir);
	race_dir = dir;
	pthread_t th;
	pthread_create(&th, NULL, relinker, NULL);
	int host = 0, bound = 0;
	/* n tries, and more (up to 10 n) while none has bound: a race in which
	 * no bind won tests nothing. */
	for (int i = 0; i < n || (bound == 0 && i < 10 * n); i++) {
		struct sockaddr_un sa;
		socklen_t sl = mkaddr(&sa, x);
		(void)unlink(x);
		int l = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
		int c = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (bind(l, (struct sockaddr *)&sa, sl) == 0) {
			bound++;
			char b = 0;
			(void)listen(l, 4);
			int r = connect(c, (struct sockaddr *)&sa, sl);
			/* Our listener closes unaccepted: the read ends at once. */
			close(l);
			l = -1;
			if (r == 0 && read(c, &b, 1) == 1 && b == 'H')
				host++;
		}
		if (l >= 0)
			close(l);
		close(c);
	}
	racing = 0;
	pthread_join(th, NULL);
	printf("host=%d bound=%d\n", host, bound);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 3)
		return 2;
	const char *m = argv[1], *path = argv[argc - 1];
	struct sockaddr_un sa;
	socklen_t sl = mkaddr(&sa, path);
	if (strcmp(m, "connect") == 0) {
		printf("%s\n", ename(conn(path)));
	} else if (strcmp(m, "opath") == 0) {
		int fd = open(path, O_PATH | O_CLOEXEC);
		if (fd < 0) {
			printf("%s\n", ename(errno));
			return 0;
		}
		char p[64];
		snprintf(p, sizeof(p), "/proc/self/fd/%d", fd);
		printf("%s\n", ename(conn(p)));
	} else if (strcmp(m, "serve") == 0) {
		int l = listener(path, 4);
		int c = accept(l, NULL, NULL);
		printf("%s\n", ename(c < 0 ? errno : 0));
	} else if (strcmp(m, "self") == 0) {
		int l = listener(path, 4);
		int r = conn(path);
		int c = r == 0 ? accept(l, NULL, NULL) : -1;
		printf("%s\n", ename(r ? r : c < 0 ? errno : 0));
	} else if (strcmp(m, "dgram") == 0) {
		int s = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
		int r = s < 0 ? errno : sendto(s, "x", 1, 0, (struct sockaddr *)&sa, sl) < 0 ? errno : 0;
		printf("%s\n", ename(r));
	} else if (strcmp(m, "sendmsg") == 0) {
		int types[2] = { SOCK_STREAM, SOCK_SEQPACKET };
		int res[2];
		for (int i = 0; i < 2; i++) {
			int s = socket(AF_UNIX, types[i] | SOCK_CLOEXEC, 0);
			struct iovec iov = { "x", 1 };
			struct msghdr msg = { .msg_name = &sa, .msg_namelen = sl, .msg_iov = &iov,
					      .msg_iovlen = 1 };
			res[i] = s < 0 ? errno : sendmsg(s, &msg, MSG_NOSIGNAL) < 0 ? errno : 0;
		}
		printf("stream=%s seqpacket=%s\n", ename(res[0]), ename(res[1]));
	} else if (strcmp(m, "flood") == 0 && argc == 4) {
		int n = atoi(argv[2]), refused = 0;
		long before = rss_of_pid1();
		int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
		for (int i = 0; i < n; i++)
			if (connect(s, (struct sockaddr *)&sa, sl) < 0 && errno == EACCES)
				refused++;
		printf("refused=%d rss_before=%ld rss_after=%ld\n", refused, before, rss_of_pid1());
	} else if (strcmp(m, "race") == 0 && argc == 4) {
		return race(atoi(argv[2]), path);
	} else if (strcmp(m, "bench") == 0 && argc == 4) {
		int n = atoi(argv[2]);
		int l = listener(path, 16);
		struct timespec a, b;
		clock_gettime(CLOCK_MONOTONIC, &a);
		for (int i = 0; i < n; i++) {
			int c = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
			if (c < 0 || connect(c, (struct sockaddr *)&sa, sl) < 0)
				return printf("%s\n", ename(errno)), 1;
			int x = accept(l, NULL, NULL);
			close(x);
			close(c);
		}
		clock_gettime(CLOCK_MONOTONIC, &b);
		double ms = (double)(b.tv_sec - a.tv_sec) * 1e3 + (double)(b.tv_nsec - a.tv_nsec) / 1e6;
		printf("%d round trips in %.1f ms (%.1f us each)\n", n, ms, ms * 1e3 / n);
	} else if (strcmp(m, "bindrace") == 0 && argc == 4) {
		return bindrace(atoi(argv[2]), path);
	} else if (strcmp(m, "killmid") == 0) {
		/* backlog 0 holds one connection: the second blocks. */
		int l = listener(path, 0);
		int first = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (connect(first, (struct sockaddr *)&sa, sl) < 0)
			return printf("first %s\n", ename(errno)), 1;
		pid_t c = fork();
		if (c == 0) {
			int s = socket(AF_UNIX, SOCK_STREAM, 0);
			int r = connect(s, (struct sockaddr *)&sa, sl);
			_exit(r == 0 ? 0 : 3);
		}
		usleep(200000);
		kill(c, SIGKILL);
		int st;
		waitpid(c, &st, 0);
		int killed = WIFSIGNALED(st);
		int a = accept(l, NULL, NULL); /* room again */
		close(a);
		int r = conn(path);
		printf("%s%s\n", killed ? "" : "child-not-blocked:", ename(r));
	} else {
		return 2;
	}
	return 0;
}
