/* test_procstat.c: the fields of /proc/PID/stat that the registry, the
 * guardian and the user-namespace mapping read. */
#include <criterion/criterion.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdint.h>
#include <sys/wait.h>
#include <unistd.h>

#include "procstat.h"

static long long ppid_of(const char *stat)
{
	unsigned long long v;
	return procstat_field(stat, 4, &v) == 0 ? (long long)v : -1;
}

Test(procstat_field, parent_pid)
{
	cr_assert_eq(ppid_of("123 (bwrap) S 77 123 123 0 -1"), 77);
	/* A command name with spaces and parentheses. */
	cr_assert_eq(ppid_of("123 (a) b (c)) S 9 1 1 0"), 9);
	cr_assert_eq(ppid_of("123 (x) S"), -1);
	cr_assert_eq(ppid_of("123 (x) S notanumber 1"), -1);
	cr_assert_eq(ppid_of("garbage"), -1);
}

Test(procstat_field, start_time_and_state)
{
	static const char line[] = "42 (sh (x)) Z 1 42 42 0 -1 4194560 100 0 0 0 0 0 0 0 20 0 1 0 "
				   "987654 1000 10\n";
	unsigned long long v = 0;
	cr_assert_eq(procstat_field(line, 22, &v), 0);
	cr_assert_eq(v, 987654ULL);
	cr_assert_eq(procstat_state(line), 'Z');
	cr_assert_eq(procstat_field(line, 60, &v), -1, "past the last field");
	cr_assert_eq(procstat_field(line, 3, &v), -1, "the state is no number");
	cr_assert_eq(procstat_state("garbage"), 0);
}

Test(procstat_read, this_process_and_a_gone_one)
{
	char buf[1024];
	unsigned long long v;
	cr_assert_gt(procstat_read(-1, getpid(), buf, sizeof(buf)), 0);
	cr_assert_eq(procstat_field(buf, 4, &v), 0);
	cr_assert_eq((pid_t)v, getppid());
	int dir = open("/proc/self", O_PATH | O_DIRECTORY | O_CLOEXEC);
	cr_assert_geq(dir, 0);
	cr_assert_gt(procstat_read(dir, 0, buf, sizeof(buf)), 0, "through a /proc/PID directory");
	close(dir);
	pid_t c = fork();
	cr_assert_geq(c, 0);
	if (c == 0)
		_exit(0);
	waitpid(c, NULL, 0);
	cr_assert_eq(procstat_read(-1, c, buf, sizeof(buf)), -ESRCH);
	cr_assert_eq(procstat_read(-1, 0, buf, sizeof(buf)), -ESRCH);
}

Test(procstat_start, live_zombie_and_reaped)
{
	uint64_t a, b;
	cr_assert_eq(procstat_start(getpid(), &a), 0);
	cr_assert_eq(procstat_start(getpid(), &b), 0);
	cr_assert_eq(a, b);
	pid_t c = fork();
	if (c == 0)
		_exit(0);
	/* A zombie counts as gone, and so does a reaped pid. */
	for (int i = 0; i < 200; i++) {
		if (procstat_start(c, &a) == -ESRCH)
			break;
		usleep(5000);
	}
	cr_assert_eq(procstat_start(c, &a), -ESRCH);
	cr_assert_eq(waitpid(c, NULL, 0), c);
	cr_assert_eq(procstat_start(c, &a), -ESRCH);
	cr_assert_eq(procstat_start(0, &a), -ESRCH);
}

