/* test_landlock.c: the ABI-to-mask table, and the domain itself in a forked
 * child (Landlock cannot be undone, so the test process never applies it). */
#include <criterion/criterion.h>
#include <criterion/logging.h>

#include <dirent.h>
#include <ftw.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <seccomp.h>

#include "landlock.h"

/* The kernel's values, written out rather than taken from <linux/landlock.h>
 * so that the test checks the module against the ABI, not against itself. */
#define EXEC (1ULL << 0)
#define WRITE_FILE (1ULL << 1)
#define READ_FILE (1ULL << 2)
#define READ_DIR (1ULL << 3)
#define REMOVE_DIR (1ULL << 4)
#define REMOVE_FILE (1ULL << 5)
#define MAKE_CHAR (1ULL << 6)
#define MAKE_DIR (1ULL << 7)
#define MAKE_REG (1ULL << 8)
#define MAKE_SOCK (1ULL << 9)
#define MAKE_FIFO (1ULL << 10)
#define MAKE_BLOCK (1ULL << 11)
#define MAKE_SYM (1ULL << 12)
#define REFER (1ULL << 13)
#define TRUNCATE (1ULL << 14)
#define IOCTL_DEV (1ULL << 15)
#define SCOPE_ABSTRACT_UNIX (1ULL << 0)
#define SCOPE_SIGNAL (1ULL << 1)

#define READ_V1 (EXEC | READ_FILE | READ_DIR)
#define WRITE_V1 (WRITE_FILE | REMOVE_DIR | REMOVE_FILE | MAKE_CHAR | MAKE_DIR | \
		  MAKE_REG | MAKE_SOCK | MAKE_FIFO | MAKE_BLOCK | MAKE_SYM)

static struct landlock_masks masks(int abi, int scope)
{
	struct landlock_masks m;
	memset(&m, 0xa5, sizeof(m));
	landlock_masks_for_abi(abi, scope, &m);
	return m;
}

Test(landlock_masks, no_abi_is_all_zero)
{
	for (int abi = -1; abi <= 0; abi++) {
		struct landlock_masks m = masks(abi, 1);
		cr_assert_eq(m.handled_fs, 0, "abi %d", abi);
		cr_assert_eq(m.write_grant, 0, "abi %d", abi);
		cr_assert_eq(m.read_grant, 0, "abi %d", abi);
		cr_assert_eq(m.scoped, 0, "abi %d", abi);
	}
}

Test(landlock_masks, abi1)
{
	struct landlock_masks m = masks(1, 1);
	cr_assert_eq(m.read_grant, READ_V1);
	cr_assert_eq(m.write_grant, WRITE_V1);
	cr_assert_eq(m.handled_fs, READ_V1 | WRITE_V1);
	cr_assert_eq(m.handled_fs & REFER, 0, "ABI 1 has no REFER");
	cr_assert_eq(m.scoped, 0);
}

Test(landlock_masks, abi2_adds_refer_to_write)
{
	struct landlock_masks m = masks(2, 1);
	cr_assert_eq(m.write_grant, WRITE_V1 | REFER);
	cr_assert_eq(m.handled_fs, READ_V1 | WRITE_V1 | REFER);
	cr_assert_eq(m.handled_fs & TRUNCATE, 0);
}

Test(landlock_masks, abi3_handles_truncate)
{
	struct landlock_masks m = masks(3, 1);
	cr_assert_eq(m.write_grant, WRITE_V1 | REFER | TRUNCATE);
	cr_assert_eq(m.read_grant, READ_V1);
	cr_assert_eq(m.handled_fs, READ_V1 | WRITE_V1 | REFER | TRUNCATE);
}

Test(landlock_masks, abi4_handles_no_network_right)
{
	struct landlock_masks m3 = masks(3, 1), m4 = masks(4, 1);
	cr_assert_eq(m4.handled_fs, m3.handled_fs);
	cr_assert_eq(m4.write_grant, m3.write_grant);
	cr_assert_eq(m4.read_grant, m3.read_grant);
	cr_assert_eq(m4.scoped, 0);
}

Test(landlock_masks, abi5_grants_ioctl_dev_everywhere)
{
	struct landlock_masks m = masks(5, 1);
	cr_assert_eq(m.read_grant, READ_V1 | IOCTL_DEV);
	cr_assert_eq(m.write_grant & IOCTL_DEV, 0);
	cr_assert_eq(m.handled_fs, READ_V1 | WRITE_V1 | REFER | TRUNCATE | IOCTL_DEV);
	cr_assert_eq(m.scoped, 0, "scoping needs ABI 6");
}

Test(landlock_masks, abi6_scopes_only_when_asked)
{
	struct landlock_masks m = masks(6, 1);
	cr_assert_eq(m.scoped, SCOPE_ABSTRACT_UNIX | SCOPE_SIGNAL);
	cr_assert_eq(m.handled_fs, masks(5, 1).handled_fs);
	cr_assert_eq(masks(6, 0).scoped, 0);
}

Test(landlock_masks, newer_abis_get_the_newest_known_masks)
{
	struct landlock_masks m6 = masks(6, 1);
	for (int abi = 7; abi <= 12; abi++) {
		struct landlock_masks m = masks(abi, 1);
		cr_assert_eq(m.handled_fs, m6.handled_fs, "abi %d", abi);
		cr_assert_eq(m.write_grant, m6.write_grant, "abi %d", abi);
		cr_assert_eq(m.read_grant, m6.read_grant, "abi %d", abi);
		cr_assert_eq(m.scoped, m6.scoped, "abi %d", abi);
	}
}

Test(landlock_masks, grants_are_handled_and_disjoint)
{
	for (int abi = 1; abi <= 8; abi++) {
		struct landlock_masks m = masks(abi, 1);
		cr_assert_eq(m.handled_fs, m.read_grant | m.write_grant, "abi %d", abi);
		cr_assert_eq(m.read_grant & m.write_grant, 0, "abi %d", abi);
		cr_assert_eq(m.handled_fs & ~0xffffULL, 0, "abi %d: unknown bit", abi);
	}
}

/* ---- the domain, applied in a child ---- */

struct dirs {
	char allowed[64], other[64];
	char other_file[96], file_rule[96];
};

static void dirs_make(struct dirs *d)
{
	strcpy(d->allowed, "/tmp/cordon-ll-allowed-XXXXXX");
	strcpy(d->other, "/tmp/cordon-ll-other-XXXXXX");
	cr_assert_not_null(mkdtemp(d->allowed), "mkdtemp: %s", strerror(errno));
	cr_assert_not_null(mkdtemp(d->other), "mkdtemp: %s", strerror(errno));
	snprintf(d->other_file, sizeof(d->other_file), "%s/readme", d->other);
	snprintf(d->file_rule, sizeof(d->file_rule), "%s/writable", d->other);
	const char *files[] = { d->other_file, d->file_rule };
	for (size_t i = 0; i < 2; i++) {
		int fd = open(files[i], O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
		cr_assert_geq(fd, 0, "%s: %s", files[i], strerror(errno));
		cr_assert_eq(write(fd, "hello", 5), 5);
		cr_assert_eq(close(fd), 0);
	}
}

static int rm_entry(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)st;
	(void)type;
	(void)ftw;
	return remove(path) == 0 ? 0 : -1;
}

/* Remove what dirs_make and the children may have left. */
static void dirs_remove(const struct dirs *d)
{
	const char *dirs[] = { d->allowed, d->other };
	for (size_t i = 0; i < 2; i++)
		cr_assert_eq(nftw(dirs[i], rm_entry, 8, FTW_DEPTH | FTW_PHYS), 0,
			     "removing %s: %s", dirs[i], strerror(errno));
}

static int skip_without_landlock(void)
{
	int abi = landlock_abi();
	if (abi == 0) {
		cr_log_warn("landlock: kernel offers no Landlock (not built in, or not "
			    "in lsm=); the enforcement tests cannot run here");
		cr_skip_test("kernel offers no Landlock ABI");
	}
	return abi;
}

/* In the child: report the first failed check on stderr and exit non-zero. */
#define CHILD_CHECK(cond, ...)                                        \
	do {                                                          \
		if (!(cond)) {                                        \
			fprintf(stderr, "child: " __VA_ARGS__);       \
			fprintf(stderr, " (errno %d %s)\n", errno,    \
				strerror(errno));                     \
			_exit(1);                                     \
		}                                                     \
	} while (0)

static void child_apply(const char *const *paths, size_t n, int scope)
{
	CHILD_CHECK(prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0, "PR_SET_NO_NEW_PRIVS");
	struct landlock_plan p = { .write_paths = paths, .nwrite = n, .scope = scope };
	struct cordon_err e = { 0 };
	int r = landlock_apply(&p, 1, &e);
	CHILD_CHECK(r == 1, "landlock_apply returned %d: %s", r, e.msg);
}

static int try_create(const char *dir, const char *name)
{
	char path[160];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	ssize_t w = write(fd, "x", 1);
	int err = w == 1 ? 0 : -errno;
	close(fd);
	return err;
}

static void run_child(void (*fn)(const struct dirs *), const struct dirs *d)
{
	pid_t pid = fork();
	cr_assert_geq(pid, 0, "fork: %s", strerror(errno));
	if (pid == 0) {
		fn(d);
		_exit(0);
	}
	int st;
	pid_t w;
	do
		w = waitpid(pid, &st, 0);
	while (w < 0 && errno == EINTR);
	cr_assert_eq(w, pid);
	cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0,
		  "child failed (status 0x%x); see its message on stderr", st);
}

static void child_write_paths(const struct dirs *d)
{
	const char *paths[] = { d->allowed };
	child_apply(paths, 1, 0);

	CHILD_CHECK(try_create(d->allowed, "new") == 0, "create in allowed dir");
	char sub[128];
	snprintf(sub, sizeof(sub), "%s/sub", d->allowed);
	CHILD_CHECK(mkdir(sub, 0755) == 0, "mkdir in allowed dir");
	CHILD_CHECK(try_create(sub, "deeper") == 0, "create beneath allowed dir");

	int r = try_create(d->other, "new");
	CHILD_CHECK(r == -EACCES, "create in other dir gave %d, want -EACCES", r);
	errno = 0;
	CHILD_CHECK(open(d->other_file, O_WRONLY | O_CLOEXEC) < 0 && errno == EACCES,
		    "open for write in other dir not refused with EACCES");
	errno = 0;
	CHILD_CHECK(unlink(d->other_file) < 0 && errno == EACCES,
		    "unlink in other dir not refused with EACCES");

	int fd = open(d->other_file, O_RDONLY | O_CLOEXEC);
	CHILD_CHECK(fd >= 0, "read in other dir");
	char buf[8];
	CHILD_CHECK(read(fd, buf, sizeof(buf)) == 5 && memcmp(buf, "hello", 5) == 0,
		    "content in other dir");
	close(fd);
	DIR *root = opendir("/");
	CHILD_CHECK(root != NULL, "opendir /");
	CHILD_CHECK(readdir(root) != NULL, "readdir /");
	closedir(root);
	CHILD_CHECK(access("/bin/sh", X_OK) == 0, "/bin/sh executable");
}

Test(landlock_apply, writes_only_beneath_write_paths)
{
	skip_without_landlock();
	struct dirs d;
	dirs_make(&d);
	run_child(child_write_paths, &d);
	dirs_remove(&d);
}

/* A non-directory write path: only file rights may go into its rule (the
 * kernel refuses the directory ones with EINVAL). */
static void child_file_rule(const struct dirs *d)
{
	const char *paths[] = { d->file_rule, "/dev/null" };
	child_apply(paths, 2, 0);

	int fd = open(d->file_rule, O_WRONLY | O_TRUNC | O_CLOEXEC);
	CHILD_CHECK(fd >= 0, "write to file rule");
	CHILD_CHECK(write(fd, "y", 1) == 1, "write to file rule");
	close(fd);
	fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
	CHILD_CHECK(fd >= 0, "write to /dev/null");
	close(fd);
	int r = try_create(d->other, "sibling");
	CHILD_CHECK(r == -EACCES, "create next to file rule gave %d, want -EACCES", r);
}

Test(landlock_apply, regular_file_and_device_as_write_paths)
{
	skip_without_landlock();
	struct dirs d;
	dirs_make(&d);
	run_child(child_file_rule, &d);
	dirs_remove(&d);
}

static void child_scoped(const struct dirs *d)
{
	(void)d;
	child_apply(NULL, 0, 1);
	errno = 0;
	CHILD_CHECK(kill(getppid(), 0) < 0 && errno == EPERM,
		    "signal out of the scoped domain not refused");
	CHILD_CHECK(kill(getpid(), 0) == 0, "signal inside the domain");
}

static void child_unscoped(const struct dirs *d)
{
	(void)d;
	child_apply(NULL, 0, 0);
	CHILD_CHECK(kill(getppid(), 0) == 0, "signal out of an unscoped domain");
}

Test(landlock_apply, scope_confines_signals)
{
	int abi = skip_without_landlock();
	if (abi < 6) {
		cr_log_warn("landlock: ABI %d < 6, no scoping to test", abi);
		cr_skip_test("Landlock ABI %d has no scoping", abi);
	}
	run_child(child_scoped, NULL);
	run_child(child_unscoped, NULL);
}

Test(landlock_apply, missing_write_path_is_named)
{
	skip_without_landlock();
	const char *paths[] = { "/nonexistent/cordon-test-path" };
	struct landlock_plan p = { .write_paths = paths, .nwrite = 1, .scope = 1 };
	struct cordon_err e = { 0 };
	/* Fails before landlock_restrict_self, so the test process stays free. */
	cr_assert_eq(landlock_apply(&p, 0, &e), -ENOENT);
	cr_assert_eq(e.err, ENOENT);
	cr_assert_not_null(strstr(e.msg, "/nonexistent/cordon-test-path"), "msg: %s", e.msg);
}

Test(landlock_apply, relative_write_path_is_refused)
{
	skip_without_landlock();
	const char *paths[] = { "tmp" };
	struct landlock_plan p = { .write_paths = paths, .nwrite = 1, .scope = 0 };
	struct cordon_err e = { 0 };
	cr_assert_eq(landlock_apply(&p, 0, &e), -EINVAL);
	cr_assert_not_null(strstr(e.msg, "tmp"), "msg: %s", e.msg);
}

/* A kernel without Landlock, simulated in a child with a seccomp filter that
 * answers landlock_create_ruleset as such a kernel would: ENOSYS when it is
 * not built in, EOPNOTSUPP when it is disabled at boot. */
static void child_no_landlock(const struct dirs *d)
{
	(void)d;
	const int errs[] = { ENOSYS, EOPNOTSUPP };
	CHILD_CHECK(prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0, "PR_SET_NO_NEW_PRIVS");
	for (size_t i = 0; i < 2; i++) {
		pid_t pid = fork();
		CHILD_CHECK(pid >= 0, "fork");
		if (pid > 0) {
			int st;
			CHILD_CHECK(waitpid(pid, &st, 0) == pid, "waitpid");
			CHILD_CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0,
				    "grandchild failed for errno %d", errs[i]);
			continue;
		}
		scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
		CHILD_CHECK(ctx != NULL, "seccomp_init");
		CHILD_CHECK(seccomp_rule_add(ctx, SCMP_ACT_ERRNO((unsigned)errs[i]),
					     SCMP_SYS(landlock_create_ruleset), 0) == 0,
			    "seccomp_rule_add");
		CHILD_CHECK(seccomp_load(ctx) == 0, "seccomp_load");
		seccomp_release(ctx);

		CHILD_CHECK(landlock_abi() == 0, "landlock_abi with errno %d", errs[i]);
		const char *paths[] = { "/tmp" };
		struct landlock_plan p = { .write_paths = paths, .nwrite = 1, .scope = 1 };
		struct cordon_err e = { 0 };
		int r = landlock_apply(&p, 0, &e);
		CHILD_CHECK(r == 0, "best effort gave %d: %s", r, e.msg);
		r = landlock_apply(&p, 1, &e);
		CHILD_CHECK(r == -EOPNOTSUPP && e.err == EOPNOTSUPP,
			    "required gave %d: %s", r, e.msg);
		CHILD_CHECK(strstr(e.msg, "--require-landlock") != NULL, "msg: %s", e.msg);
		r = landlock_apply(&p, LANDLOCK_ROOT, &e);
		CHILD_CHECK(r == -EOPNOTSUPP && strstr(e.msg, "--allow-no-landlock") != NULL &&
			    strstr(e.msg, "root") != NULL, "root gave %d: %s", r, e.msg);
		_exit(0);
	}
}

Test(landlock_apply, kernel_without_landlock)
{
	run_child(child_no_landlock, NULL);
}

Test(landlock_apply, null_plan_is_einval)
{
	struct cordon_err e = { 0 };
	cr_assert_eq(landlock_apply(NULL, 0, &e), -EINVAL);
}
