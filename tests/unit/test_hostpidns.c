/* test_hostpidns.c: the filter cordon-inner loads where the sandbox shares
 * the caller's PID namespace: the nice value, CPU affinity, scheduling and
 * I/O priority and resource limits of another process are refused, the
 * caller's own are not.
 * Each test runs in a process of its own (criterion forks), which loads it. */
#include <criterion/criterion.h>

#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "hostpidns.h"

static pid_t other;

static void setup(void)
{
	other = fork();
	cr_assert_geq(other, 0);
	if (other == 0) {
		pause();
		_exit(0);
	}
	struct cordon_err e;
	cr_assert_eq(prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), 0);
	cr_assert_eq(hostpidns_filter_load(&e), 0, "%s", e.msg);
}

static void teardown(void)
{
	(void)kill(other, SIGKILL);
	(void)waitpid(other, NULL, 0);
}

TestSuite(hostpidns, .init = setup, .fini = teardown);

Test(hostpidns, nice)
{
	errno = 0;
	cr_assert_eq(setpriority(PRIO_PROCESS, (id_t)other, 5), -1, "another process");
	cr_assert_eq(errno, EPERM);
	cr_assert_eq(setpriority(PRIO_USER, getuid(), 5), -1, "every process of the uid");
	cr_assert_eq(errno, EPERM);
	cr_assert_eq(setpriority(PRIO_PGRP, 0, 5), -1, "the process group");
	cr_assert_eq(setpriority(PRIO_PROCESS, 0, 1), 0, "control: itself");
}

Test(hostpidns, affinity_and_scheduling)
{
	cpu_set_t s;
	CPU_ZERO(&s);
	CPU_SET(0, &s);
	cr_assert_eq(sched_setaffinity(other, sizeof(s), &s), -1);
	cr_assert_eq(errno, EPERM);
	struct sched_param sp = { 0 };
	cr_assert_eq(sched_setscheduler(other, SCHED_BATCH, &sp), -1);
	cr_assert_eq(errno, EPERM);
	cr_assert_eq(sched_setparam(other, &sp), -1);
	cr_assert_eq(errno, EPERM);
	cr_assert_eq(sched_setaffinity(0, sizeof(s), &s), 0, "control: itself");
	cr_assert_eq(sched_setscheduler(0, SCHED_BATCH, &sp), 0, "control: itself");
}

Test(hostpidns, io_priority)
{
	/* IOPRIO_WHO_PROCESS 1, IOPRIO_WHO_USER 3; class BE (2) level 4 */
	long prio = (2L << 13) | 4;
	cr_assert_eq(syscall(SYS_ioprio_set, 1, (int)other, prio), -1);
	cr_assert_eq(errno, EPERM);
	cr_assert_eq(syscall(SYS_ioprio_set, 3, (int)getuid(), prio), -1);
	cr_assert_eq(errno, EPERM);
	cr_assert_eq(syscall(SYS_ioprio_set, 1, 0, prio), 0, "control: itself");
}

Test(hostpidns, resource_limits)
{
	struct rlimit one = { 1, 1 }, got;
	cr_assert_eq(prlimit(other, RLIMIT_CPU, &one, NULL), -1, "another process's");
	cr_assert_eq(errno, EPERM);
	cr_assert_eq(prlimit(other, RLIMIT_NOFILE, &one, &got), -1, "set and read");
	cr_assert_eq(errno, EPERM);
	cr_assert_eq(prlimit(other, RLIMIT_NOFILE, NULL, &got), 0, "control: reading it");
	cr_assert_eq(prlimit(0, RLIMIT_NOFILE, NULL, &got), 0, "control: its own");
	cr_assert_eq(prlimit(0, RLIMIT_NOFILE, &got, NULL), 0, "control: setting its own");
	cr_assert_eq(setrlimit(RLIMIT_NOFILE, &got), 0, "control: setrlimit");
}

Test(hostpidns, pages_of_another)
{
	unsigned long mask = 1;
	cr_assert_eq(syscall(SYS_migrate_pages, (int)other, 8 * sizeof(mask), &mask, &mask), -1);
	cr_assert_eq(errno, EPERM);
}
