/* probe.c: a small static program the integration tests run inside the
 * sandbox to look at it from the inside (crun's tests/init.c idea).
 *   probe fds        print each open descriptor number, one per line
 *   probe procwrite  print every file under /proc (outside per-process
 *                    directories) that opens for writing; nothing if none
 *   probe sigfill D  queue real-time signals to itself until refused, write
 *                    the count to D/count, hold them until D/go is read
 *   probe mqfill D   the same with POSIX message queues (bytes to D/count)
 *   probe sigq       queue one real-time signal: 0 if the kernel took it
 *   probe mqone N    create (and remove) one queue named /N: 0 if it could
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <mqueue.h>
#include <signal.h>
#include <unistd.h>

static int fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	if (!d)
		return 2;
	int self = dirfd(d);
	struct dirent *de;
	while ((de = readdir(d)))
		if (de->d_name[0] != '.' && atoi(de->d_name) != self)
			printf("%s\n", de->d_name);
	closedir(d);
	return 0;
}

static int numeric(const char *s)
{
	for (; *s; s++)
		if (*s < '0' || *s > '9')
			return 0;
	return 1;
}

static void walk(const char *dir, int depth, int *found)
{
	if (depth > 6)
		return;
	DIR *d = opendir(dir);
	if (!d)
		return;
	struct dirent *de;
	while ((de = readdir(d))) {
		const char *n = de->d_name;
		if (!strcmp(n, ".") || !strcmp(n, ".."))
			continue;
		if (depth == 0 && (numeric(n) || !strcmp(n, "self") || !strcmp(n, "thread-self")))
			continue;
		char path[4096];
		snprintf(path, sizeof(path), "%s/%s", dir, n);
		struct stat st;
		if (lstat(path, &st) < 0)
			continue;
		if (S_ISDIR(st.st_mode)) {
			walk(path, depth + 1, found);
		} else if (S_ISREG(st.st_mode)) {
			int fd = open(path, O_WRONLY | O_NONBLOCK | O_CLOEXEC);
			if (fd >= 0) {
				printf("%s\n", path);
				(*found)++;
				close(fd);
			}
		}
	}
	closedir(d);
}

/* The count, published whole (rename), then held until the test says. */
static int report_and_hold(const char *dir, long n)
{
	char tmp[4096], fin[4096], go[4096];
	snprintf(tmp, sizeof(tmp), "%s/count.tmp", dir);
	snprintf(fin, sizeof(fin), "%s/count", dir);
	snprintf(go, sizeof(go), "%s/go", dir);
	FILE *f = fopen(tmp, "w");
	if (!f || fprintf(f, "%ld\n", n) < 0 || fclose(f) != 0 || rename(tmp, fin) < 0)
		return 2;
	char c;
	int fd = open(go, O_RDONLY);
	return fd < 0 || read(fd, &c, 1) < 0 ? 2 : 0;
}

static void block_rt(void)
{
	sigset_t s;
	sigemptyset(&s);
	sigaddset(&s, SIGRTMIN);
	sigprocmask(SIG_BLOCK, &s, NULL);
}

static long sigfill(void)
{
	union sigval v = { 0 };
	long n = 0;
	block_rt();
	while (n < 10000000 && sigqueue(getpid(), SIGRTMIN, v) == 0)
		n++;
	return n;
}

static const struct mq_attr mq_big = { .mq_maxmsg = 10, .mq_msgsize = 8192 };

/* Queues until the kernel refuses; the bytes they were charged (roughly:
 * the messages' room, what RLIMIT_MSGQUEUE counts). */
static long mqfill(void)
{
	long bytes = 0;
	char name[32];
	for (int i = 0; i < 4096; i++) {
		snprintf(name, sizeof(name), "/cordon-probe-%d", i);
		mqd_t q = mq_open(name, O_CREAT | O_EXCL | O_RDWR, 0600, &mq_big);
		if (q == (mqd_t)-1)
			break;
		bytes += mq_big.mq_maxmsg * mq_big.mq_msgsize;
	}
	return bytes;
}

static int mqone(const char *n)
{
	char name[64];
	snprintf(name, sizeof(name), "/%s", n);
	mqd_t q = mq_open(name, O_CREAT | O_EXCL | O_RDWR, 0600, &mq_big);
	if (q == (mqd_t)-1)
		return 1;
	mq_close(q);
	mq_unlink(name);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return 2;
	if (!strcmp(argv[1], "fds"))
		return fds();
	if (!strcmp(argv[1], "sigfill") && argc > 2)
		return report_and_hold(argv[2], sigfill());
	if (!strcmp(argv[1], "mqfill") && argc > 2)
		return report_and_hold(argv[2], mqfill());
	if (!strcmp(argv[1], "sigq")) {
		union sigval v = { 0 };
		block_rt();
		return sigqueue(getpid(), SIGRTMIN, v) == 0 ? 0 : 1;
	}
	if (!strcmp(argv[1], "mqone") && argc > 2)
		return mqone(argv[2]);
	if (!strcmp(argv[1], "procwrite")) {
		int found = 0;
		walk("/proc", 0, &found);
		return found ? 1 : 0;
	}
	return 2;
}
