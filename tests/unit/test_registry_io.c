/* test_registry_io.c: record files written under the lock and read back. */
#include "registry_scratch.h"
#include "hostpaths/registry_sweep.h"
#include <time.h>

TestSuite(registry, .init = scratch_init, .fini = scratch_fini);

static struct record sample(void)
{
	struct record r;
	memset(&r, 0, sizeof(r));
	memcpy(r.boot, BOOT, sizeof(BOOT));
	r.pidns = PIDNS;
	r.proc[REC_OWNER] = (struct rec_proc){ 4242, 1234567 };
	cr_assert_eq(record_add(&r, REC_CREATED, 2049, 1311, "/home/me/app/.git"), 0);
	return r;
}

Test(registry, writes_need_the_lock)
{
	struct registry reg = REGISTRY_INIT;
	struct cordon_err e = { 0 };
	cr_assert_eq(registry_open(&reg, &e), 0, "%s", e.msg);
	struct record r = sample();
	cr_assert_eq(registry_write(&reg, "run-x", &r, &e), -EINVAL);
	cr_assert_eq(registry_sweep(&reg, NULL, NULL, NULL, &e), -EINVAL);
	record_free(&r);
	registry_close(&reg);
}


Test(registry, read_back_with_its_write_time)
{
	struct registry reg = REGISTRY_INIT;
	struct cordon_err e = { 0 };
	cr_assert_eq(registry_open(&reg, &e), 0, "%s", e.msg);
	struct record r = sample(), back;
	char name[REC_NAME_MAX], why[128];
	cr_assert_eq(record_name(name, sizeof(name), r.boot, 4242, 1234567), 0);
	cr_assert_eq(registry_lock(&reg, &e), 0);
	struct timespec before;
	cr_assert_eq(clock_gettime(CLOCK_REALTIME_COARSE, &before), 0);
	cr_assert_eq(registry_write(&reg, name, &r, &e), 0, "%s", e.msg);
	struct rec_time t;
	cr_assert_eq(registry_read(&reg, name, &back, &t, why, sizeof(why)), 0, "%s", why);
	cr_assert_eq(back.n, 1);
	cr_assert_str_eq(back.v[0].path, "/home/me/app/.git");
	cr_assert(t.sec >= before.tv_sec, "mtime %lld before the write", (long long)t.sec);
	record_free(&back);
	/* The name says whose record it is: a copy under another name lies. */
	cr_assert_eq(registry_write(&reg, "run-" BOOT "-4243-1234567", &r, &e), 0);
	cr_assert_eq(registry_read(&reg, "run-" BOOT "-4243-1234567", &back, &t, why, sizeof(why)),
		     -EBADMSG);
	cr_assert(strstr(why, "name does not match"), "%s", why);
	registry_unlock(&reg);
	record_free(&r);
	registry_close(&reg);
}
