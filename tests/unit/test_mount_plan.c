/* test_mount_plan.c: the order of the mount plan is the policy (later mounts
 * win), so these tests pin it down entry by entry. */
#include <criterion/criterion.h>

#include <stdio.h>
#include <string.h>

#include "plan/mount_plan.h"
#include "plan/protect_decide.h"

static struct rpath rp(const char *path, int fd, int is_dir)
{
	struct rpath r;
	memset(&r, 0, sizeof(r));
	r.path = (char *)path;
	r.fd = fd;
	r.is_dir = is_dir;
	return r;
}

struct want {
	enum mount_kind kind;
	const char *dest;
	int fd;
};

static void build(const struct plan_input *in, struct mount_plan *p)
{
	struct cordon_err e;
	memset(&e, 0, sizeof(e));
	cr_assert_eq(mount_plan_build(in, p, &e), 0, "mount_plan_build: %s", e.msg);
}

static void expect_plan(const struct mount_plan *p, const struct want *w, size_t n)
{
	for (size_t i = 0; i < p->n && i < n; i++) {
		cr_assert_eq(p->ops[i].kind, w[i].kind, "op %zu (%s): kind %d, want %d", i,
			     p->ops[i].dest, p->ops[i].kind, w[i].kind);
		cr_assert_str_eq(p->ops[i].dest, w[i].dest, "op %zu", i);
		cr_assert_eq(p->ops[i].fd, w[i].fd, "op %zu (%s): fd", i, w[i].dest);
	}
	cr_assert_eq(p->n, n, "plan has %zu ops, want %zu", p->n, n);
}

Test(mount_plan, minimal_private_tmp)
{
	struct plan_input in = { .tmp_private = 1 };
	struct mount_plan p;
	build(&in, &p);
	const struct want w[] = {
		{ MOUNT_RO_BIND, "/", -1 },
		{ MOUNT_DEV, "/dev", -1 },
		{ MOUNT_TMPFS, "/dev/shm", -1 },
		{ MOUNT_PROC, "/proc", -1 },
		{ MOUNT_TMPFS, "/tmp", -1 },
		{ MOUNT_REMOUNT_RO, "/dev", -1 },
	};
	expect_plan(&p, w, sizeof(w) / sizeof(w[0]));
	cr_assert_str_eq(p.ops[0].src, "/");
	cr_assert_eq(p.ops[4].perms, 01777);
	cr_assert_eq(p.ops[2].perms, 01777, "/dev/shm");
	mount_plan_free(&p);
	cr_assert_null(p.ops);
	cr_assert_eq(p.n, 0);
}

Test(mount_plan, host_tmp_has_no_tmpfs)
{
	struct plan_input in = { .tmp_private = 0 };
	struct mount_plan p;
	build(&in, &p);
	const struct want w[] = {
		{ MOUNT_RO_BIND, "/", -1 },
		{ MOUNT_DEV, "/dev", -1 },
		{ MOUNT_TMPFS, "/dev/shm", -1 },
		{ MOUNT_PROC, "/proc", -1 },
		{ MOUNT_REMOUNT_RO, "/dev", -1 },
	};
	expect_plan(&p, w, sizeof(w) / sizeof(w[0]));
	mount_plan_free(&p);
}

Test(mount_plan, full_write_binds_root_writable)
{
	struct plan_input in = { .tmp_private = 1, .full_write = 1 };
	struct mount_plan p;
	build(&in, &p);
	cr_assert_eq(p.ops[0].kind, MOUNT_BIND);
	cr_assert_str_eq(p.ops[0].src, "/");
	cr_assert_str_eq(p.ops[0].dest, "/");
	for (size_t i = 1; i < p.n; i++)
		cr_assert_neq(p.ops[i].kind, MOUNT_RO_BIND);
	mount_plan_free(&p);
}

Test(mount_plan, full_order)
{
	const struct rpath roots[] = { rp("/w/a", 10, 1), rp("/w/b", 11, 1) };
	const struct rpath carves[] = { rp("/w/a/vendor", 20, 1) };
	struct protect_action prot[] = {
		{ PROTECT_BIND, (char *)"/w/a/.git", 0, 30, 0, NULL, NULL },
		{ PROTECT_BIND, (char *)"/w/b/.git", 1, 31, 0, NULL, NULL },
	};
	const struct protect_decision d = { .v = prot, .n = 2 };
	const struct rpath masks[] = { rp("/w/a/.env", 40, 0), rp("/w/secrets", -1, 1) };
	struct plan_input in = {
		roots, 2, carves, 1, &d, masks, 2, 1, 0, "/w/a", NULL, 0, NULL, 0, 0, NULL, 0,
	};
	struct mount_plan p;
	build(&in, &p);
	const struct want w[] = {
		{ MOUNT_RO_BIND, "/", -1 },
		{ MOUNT_DEV, "/dev", -1 },
		{ MOUNT_TMPFS, "/dev/shm", -1 },
		{ MOUNT_PROC, "/proc", -1 },
		{ MOUNT_TMPFS, "/tmp", -1 },
		{ MOUNT_BIND_FD, "/w/a", 10 },
		{ MOUNT_BIND_FD, "/w/b", 11 },
		{ MOUNT_RO_BIND_FD, "/w/a/vendor", 20 },
		{ MOUNT_RO_BIND_FD, "/w/a/.git", 30 },
		{ MOUNT_RO_BIND_FD, "/w/b/.git", 31 },
		{ MOUNT_MASK_DIR, "/w/secrets", -1 },
		{ MOUNT_MASK_FILE, "/w/a/.env", 40 },
		{ MOUNT_REMOUNT_RO, "/dev", -1 },
		{ MOUNT_CHDIR, "/w/a", -1 },
	};
	expect_plan(&p, w, sizeof(w) / sizeof(w[0]));
	mount_plan_free(&p);
}

Test(mount_plan, nested_root_after_parent_whatever_the_input_order)
{
	const struct rpath roots[] = { rp("/a/b/c", 3, 1), rp("/a", 1, 1), rp("/a/b", 2, 1) };
	struct plan_input in = { .roots = roots, .nroots = 3 };
	struct mount_plan p;
	build(&in, &p);
	const struct want w[] = {
		{ MOUNT_RO_BIND, "/", -1 },
		{ MOUNT_DEV, "/dev", -1 },
		{ MOUNT_TMPFS, "/dev/shm", -1 },
		{ MOUNT_PROC, "/proc", -1 },
		{ MOUNT_BIND_FD, "/a", 1 },
		{ MOUNT_BIND_FD, "/a/b", 2 },
		{ MOUNT_BIND_FD, "/a/b/c", 3 },
		{ MOUNT_REMOUNT_RO, "/dev", -1 },
	};
	expect_plan(&p, w, sizeof(w) / sizeof(w[0]));
	mount_plan_free(&p);
}

Test(mount_plan, carve_out_after_its_root_whatever_the_input_order)
{
	/* A carve-out given before its root, and a root nested inside a
	 * carve-out: each is mounted after what contains it. */
	const struct rpath roots[] = { rp("/r/ro/w", 12, 1), rp("/r", 10, 1) };
	const struct rpath carves[] = { rp("/r/ro", 20, 1) };
	struct plan_input in = { .roots = roots, .nroots = 2, .carves = carves, .ncarves = 1 };
	struct mount_plan p;
	build(&in, &p);
	const struct want w[] = {
		{ MOUNT_RO_BIND, "/", -1 },
		{ MOUNT_DEV, "/dev", -1 },
		{ MOUNT_TMPFS, "/dev/shm", -1 },
		{ MOUNT_PROC, "/proc", -1 },
		{ MOUNT_BIND_FD, "/r", 10 },
		{ MOUNT_RO_BIND_FD, "/r/ro", 20 },
		{ MOUNT_BIND_FD, "/r/ro/w", 12 },
		{ MOUNT_REMOUNT_RO, "/dev", -1 },
	};
	expect_plan(&p, w, sizeof(w) / sizeof(w[0]));
	mount_plan_free(&p);
}

Test(mount_plan, root_before_carve_out_at_equal_depth)
{
	/* --read-only on the very path of a writable root: read-only wins. */
	const struct rpath roots[] = { rp("/x/y", 5, 1) };
	const struct rpath carves[] = { rp("/x/y", 6, 1), rp("/x/z", 7, 1) };
	struct plan_input in = { .roots = roots, .nroots = 1, .carves = carves, .ncarves = 2 };
	struct mount_plan p;
	build(&in, &p);
	const struct want w[] = {
		{ MOUNT_RO_BIND, "/", -1 },
		{ MOUNT_DEV, "/dev", -1 },
		{ MOUNT_TMPFS, "/dev/shm", -1 },
		{ MOUNT_PROC, "/proc", -1 },
		{ MOUNT_BIND_FD, "/x/y", 5 },
		{ MOUNT_RO_BIND_FD, "/x/y", 6 },
		{ MOUNT_RO_BIND_FD, "/x/z", 7 },
		{ MOUNT_REMOUNT_RO, "/dev", -1 },
	};
	expect_plan(&p, w, sizeof(w) / sizeof(w[0]));
	mount_plan_free(&p);

	/* Same with the carve-outs listed first in the input. */
	const struct rpath carves2[] = { rp("/x/z", 7, 1), rp("/x/y", 6, 1) };
	const struct rpath roots2[] = { rp("/x/q", 8, 1), rp("/x/y", 5, 1) };
	struct plan_input in2 = { .roots = roots2, .nroots = 2, .carves = carves2, .ncarves = 2 };
	build(&in2, &p);
	const struct want w2[] = {
		{ MOUNT_RO_BIND, "/", -1 },
		{ MOUNT_DEV, "/dev", -1 },
		{ MOUNT_TMPFS, "/dev/shm", -1 },
		{ MOUNT_PROC, "/proc", -1 },
		{ MOUNT_BIND_FD, "/x/q", 8 },
		{ MOUNT_BIND_FD, "/x/y", 5 },
		{ MOUNT_RO_BIND_FD, "/x/z", 7 },
		{ MOUNT_RO_BIND_FD, "/x/y", 6 },
		{ MOUNT_REMOUNT_RO, "/dev", -1 },
	};
	expect_plan(&p, w2, sizeof(w2) / sizeof(w2[0]));
	mount_plan_free(&p);
}

Test(mount_plan, protected_names_after_every_root)
{
	/* A deep root must not re-expose a shallower root's protected name, so
	 * every protected name comes after every root, however deep. */
	const struct rpath roots[] = { rp("/p", 1, 1), rp("/p/.git/deep/er/root", 2, 1) };
	struct protect_action prot[] = { { PROTECT_BIND, (char *)"/p/.git", 0, 3, 0, NULL, NULL } };
	const struct protect_decision d = { .v = prot, .n = 1 };
	const struct rpath carves[] = { rp("/p/a/b/c/d/e", 4, 1) };
	struct plan_input in = {
		.roots = roots, .nroots = 2, .carves = carves, .ncarves = 1, .protect = &d,
	};
	struct mount_plan p;
	build(&in, &p);
	cr_assert_eq(p.n, 9);
	cr_assert_eq(p.ops[7].kind, MOUNT_RO_BIND_FD);
	cr_assert_str_eq(p.ops[7].dest, "/p/.git");
	cr_assert_eq(p.ops[7].fd, 3);
	mount_plan_free(&p);
}

Test(mount_plan, masks_after_protected_names)
{
	const struct rpath roots[] = { rp("/m", 1, 1) };
	struct protect_action prot[] = { { PROTECT_BIND, (char *)"/m/a/b/c/.git", 0, 2, 0, NULL, NULL } };
	const struct protect_decision d = { .v = prot, .n = 1 };
	const struct rpath masks[] = { rp("/m/.env", 3, 0) };
	struct plan_input in = {
		.roots = roots, .nroots = 1, .protect = &d,
		.masks = masks, .nmasks = 1, .cwd = "/m",
	};
	struct mount_plan p;
	build(&in, &p);
	const struct want w[] = {
		{ MOUNT_RO_BIND, "/", -1 },
		{ MOUNT_DEV, "/dev", -1 },
		{ MOUNT_TMPFS, "/dev/shm", -1 },
		{ MOUNT_PROC, "/proc", -1 },
		{ MOUNT_BIND_FD, "/m", 1 },
		{ MOUNT_RO_BIND_FD, "/m/a/b/c/.git", 2 },
		{ MOUNT_MASK_FILE, "/m/.env", 3 },
		{ MOUNT_REMOUNT_RO, "/dev", -1 },
		{ MOUNT_CHDIR, "/m", -1 },
	};
	expect_plan(&p, w, sizeof(w) / sizeof(w[0]));
	mount_plan_free(&p);
}

Test(mount_plan, mask_kinds)
{
	const struct rpath masks[] = {
		rp("/h/file", 7, 0), rp("/h/dir", 8, 1), rp("/h/other", 9, 0),
	};
	struct plan_input in = { .masks = masks, .nmasks = 3 };
	struct mount_plan p;
	build(&in, &p);
	cr_assert_eq(p.n, 8);
	cr_assert_eq(p.ops[4].kind, MOUNT_MASK_FILE);
	cr_assert_str_eq(p.ops[4].dest, "/h/file");
	cr_assert_eq(p.ops[4].fd, 7, "a file mask keeps its data descriptor");
	cr_assert_eq(p.ops[5].kind, MOUNT_MASK_DIR);
	cr_assert_str_eq(p.ops[5].dest, "/h/dir");
	cr_assert_eq(p.ops[5].fd, -1, "a directory mask is a tmpfs, no descriptor");
	cr_assert_eq(p.ops[6].kind, MOUNT_MASK_FILE);
	cr_assert_eq(p.ops[6].fd, 9);
	mount_plan_free(&p);
}

Test(mount_plan, chdir_last_and_only_when_given)
{
	const struct rpath roots[] = { rp("/c", 4, 1) };
	const struct rpath masks[] = { rp("/c/k", 5, 0) };
	struct plan_input in = { .roots = roots, .nroots = 1, .masks = masks, .nmasks = 1,
				 .tmp_private = 1, .cwd = "/c/sub" };
	struct mount_plan p;
	build(&in, &p);
	cr_assert_eq(p.ops[p.n - 1].kind, MOUNT_CHDIR);
	cr_assert_str_eq(p.ops[p.n - 1].dest, "/c/sub");
	mount_plan_free(&p);
	in.cwd = NULL;
	build(&in, &p);
	for (size_t i = 0; i < p.n; i++)
		cr_assert_neq(p.ops[i].kind, MOUNT_CHDIR);
	mount_plan_free(&p);
}

Test(mount_plan, dest_borrowed_from_input)
{
	const struct rpath roots[] = { rp("/b", 4, 1) };
	struct plan_input in = { .roots = roots, .nroots = 1 };
	struct mount_plan p;
	build(&in, &p);
	cr_assert_eq(p.ops[4].dest, roots[0].path);
	mount_plan_free(&p);
}

Test(mount_plan, many_entries_fit)
{
	enum { N = 200 };
	static struct rpath roots[N], carves[N], masks[N];
	static struct protect_action prot[N];
	static char names[4][N][32];
	for (int i = 0; i < N; i++) {
		snprintf(names[0][i], 32, "/r%d", i);
		snprintf(names[1][i], 32, "/r%d/ro", i);
		snprintf(names[2][i], 32, "/r%d/.git", i);
		snprintf(names[3][i], 32, "/r%d/.env", i);
		roots[i] = rp(names[0][i], 1000 + i, 1);
		carves[i] = rp(names[1][i], 2000 + i, 1);
		prot[i] = (struct protect_action){ PROTECT_BIND, names[2][i], (size_t)i, 3000 + i, 0, NULL, NULL };
		masks[i] = rp(names[3][i], 4000 + i, 0);
	}
	const struct protect_decision d = { .v = prot, .n = N };
	struct plan_input in = { roots, N, carves, N, &d, masks, N, 1, 0, "/r0", NULL, 0, NULL, 0, 0,
				 NULL, 0 };
	struct mount_plan p;
	build(&in, &p);
	cr_assert_eq(p.n, 7 + 4 * N);
	for (int i = 0; i < N; i++) {
		cr_assert_eq(p.ops[5 + i].kind, MOUNT_BIND_FD);
		cr_assert_eq(p.ops[5 + i].fd, 1000 + i);
		cr_assert_eq(p.ops[5 + N + i].kind, MOUNT_RO_BIND_FD);
		cr_assert_eq(p.ops[5 + N + i].fd, 2000 + i, "carve-outs keep input order");
		cr_assert_eq(p.ops[5 + 2 * N + i].fd, 3000 + i);
		cr_assert_eq(p.ops[5 + 3 * N + i].kind, MOUNT_MASK_FILE);
		cr_assert_eq(p.ops[5 + 3 * N + i].fd, 4000 + i);
	}
	cr_assert_eq(p.ops[p.n - 1].kind, MOUNT_CHDIR);
	mount_plan_free(&p);
}

Test(mount_plan, watched_names_are_not_mounted)
{
	const struct rpath roots[] = { rp("/w", 1, 1) };
	struct protect_action prot[] = {
		{ PROTECT_WATCH, (char *)"/w/.git", 0, -1, 0, NULL, NULL },
		{ PROTECT_CREATE, (char *)"/w/.aws", 1, -1, 0, NULL, NULL },
		{ PROTECT_CARVE, (char *)"/w/reg", 0, -1, 1, NULL, NULL },
		{ PROTECT_KEEP, (char *)"/w/st", 0, -1, 1, NULL, NULL },
	};
	const struct protect_decision d = { .v = prot, .n = 4 };
	struct plan_input in = { .roots = roots, .nroots = 1, .protect = &d };
	struct mount_plan p;
	build(&in, &p);
	const struct want w[] = {
		{ MOUNT_RO_BIND, "/", -1 },
		{ MOUNT_DEV, "/dev", -1 },
		{ MOUNT_TMPFS, "/dev/shm", -1 },
		{ MOUNT_PROC, "/proc", -1 },
		{ MOUNT_BIND_FD, "/w", 1 },
		{ MOUNT_RO_BIND_PATH, "/w/reg", -1 },
		{ MOUNT_BIND, "/w/st", -1 },
		{ MOUNT_RO_BIND_PATH, "/w/.aws", -1 },
		{ MOUNT_REMOUNT_RO, "/dev", -1 },
	};
	expect_plan(&p, w, 9);
	cr_assert_str_eq(p.ops[6].src, "/w/st", "a keep binds the path onto itself");
	mount_plan_free(&p);
}

Test(mount_plan, proc_tunables_read_only_and_kernel_state_masked)
{
	unsigned char kinds[MOUNT_PLAN_NPROC];
	memset(kinds, PROC_ABSENT, sizeof(kinds));
	size_t sys = MOUNT_PLAN_NPROC, kcore = MOUNT_PLAN_NPROC, acpi = MOUNT_PLAN_NPROC;
	for (size_t i = 0; i < MOUNT_PLAN_NPROC; i++) {
		if (strcmp(mount_plan_proc_rules[i].path, "/proc/sys") == 0)
			sys = i;
		if (strcmp(mount_plan_proc_rules[i].path, "/proc/kcore") == 0)
			kcore = i;
		if (strcmp(mount_plan_proc_rules[i].path, "/proc/acpi") == 0)
			acpi = i;
	}
	cr_assert_lt(sys, MOUNT_PLAN_NPROC);
	cr_assert_lt(kcore, MOUNT_PLAN_NPROC);
	cr_assert_lt(acpi, MOUNT_PLAN_NPROC);
	kinds[sys] = PROC_DIR;
	kinds[kcore] = PROC_FILE;
	kinds[acpi] = PROC_DIR;
	struct plan_input in = { .proc = kinds };
	struct mount_plan p;
	build(&in, &p);
	/* Right after /proc, so nothing later can re-expose them; an absent
	 * entry gets no mount (bwrap cannot create one in procfs). */
	cr_assert_eq(p.ops[3].kind, MOUNT_PROC);
	size_t at = 4;
	for (size_t i = 0; i < MOUNT_PLAN_NPROC; i++) {
		if (i != sys && i != kcore && i != acpi)
			continue;
		const struct mount_op *o = &p.ops[at++];
		cr_assert_str_eq(o->dest, mount_plan_proc_rules[i].path);
		if (i == sys) {
			cr_assert_eq(o->kind, MOUNT_RO_BIND);
			cr_assert_str_eq(o->src, "/proc/sys");
		} else if (i == kcore) {
			cr_assert_eq(o->kind, MOUNT_RO_BIND);
			cr_assert_str_eq(o->src, "/dev/null");
		} else {
			cr_assert_eq(o->kind, MOUNT_MASK_DIR);
		}
	}
	cr_assert_eq(p.n, at + 1);
	cr_assert_eq(p.ops[at].kind, MOUNT_REMOUNT_RO);
	mount_plan_free(&p);
}

Test(mount_plan, every_writable_tmpfs_capped_and_dev_read_only)
{
	const struct rpath masks[] = { rp("/h/dir", -1, 1) };
	struct plan_input in = { .tmp_private = 1, .tmpfs_size = 12345, .masks = masks, .nmasks = 1,
				 .cwd = "/" };
	struct mount_plan p;
	build(&in, &p);
	size_t capped = 0;
	for (size_t i = 0; i < p.n; i++)
		if (p.ops[i].kind == MOUNT_TMPFS) {
			cr_assert_eq(p.ops[i].size, 12345, "%s", p.ops[i].dest);
			capped++;
		}
	cr_assert_eq(capped, 2, "/tmp and /dev/shm");
	cr_assert_eq(p.ops[p.n - 2].kind, MOUNT_REMOUNT_RO, "after every mount point under /dev");
	cr_assert_str_eq(p.ops[p.n - 2].dest, "/dev");
	mount_plan_free(&p);
}

Test(mount_plan, full_write_keeps_kernel_filesystems_read_only)
{
	const char *const kro[] = { "/sys", "/run/fuse-ctl" };
	struct plan_input in = { .full_write = 1, .kernel_ro = kro, .nkernel_ro = 2 };
	struct mount_plan p;
	build(&in, &p);
	cr_assert_eq(p.ops[0].kind, MOUNT_BIND);
	cr_assert_eq(p.ops[1].kind, MOUNT_RO_BIND);
	cr_assert_str_eq(p.ops[1].src, "/sys");
	cr_assert_str_eq(p.ops[1].dest, "/sys");
	cr_assert_eq(p.ops[2].kind, MOUNT_RO_BIND);
	cr_assert_str_eq(p.ops[2].dest, "/run/fuse-ctl");
	mount_plan_free(&p);
	in.full_write = 0;
	build(&in, &p);
	for (size_t i = 1; i < p.n; i++)
		cr_assert_neq(p.ops[i].kind, MOUNT_RO_BIND, "the read-only / covers them already");
	mount_plan_free(&p);
}

Test(mount_plan, pins_are_writable_self_binds_by_path_between_root_and_carve)
{
	/* The registry's ancestors under a writable root: each bound onto
	 * itself (a mount point cannot be renamed), writable, after the root
	 * and before the registry's read-only carve-out below them.  They come
	 * from registry_carve through protect's decision. */
	const struct rpath roots[] = { rp("/h", 10, 1) };
	struct protect_action carves[] = {
		{ PROTECT_CARVE, (char *)"/h/s/c/reg", 0, -1, 1, NULL, NULL },
		{ PROTECT_KEEP, (char *)"/h/s/c", 0, -1, 1, NULL, NULL },
		{ PROTECT_KEEP, (char *)"/h/s", 0, -1, 1, NULL, NULL },
	};
	const struct protect_decision d = { .v = carves, .n = 3 };
	struct plan_input in = { .roots = roots, .nroots = 1, .protect = &d };
	struct mount_plan p;
	build(&in, &p);
	const struct want w[] = {
		{ MOUNT_RO_BIND, "/", -1 },
		{ MOUNT_DEV, "/dev", -1 },
		{ MOUNT_TMPFS, "/dev/shm", -1 },
		{ MOUNT_PROC, "/proc", -1 },
		{ MOUNT_BIND_FD, "/h", 10 },
		{ MOUNT_BIND, "/h/s", -1 },
		{ MOUNT_BIND, "/h/s/c", -1 },
		{ MOUNT_RO_BIND_PATH, "/h/s/c/reg", -1 },
		{ MOUNT_REMOUNT_RO, "/dev", -1 },
	};
	expect_plan(&p, w, sizeof(w) / sizeof(w[0]));
	cr_assert_str_eq(p.ops[5].src, "/h/s");
	mount_plan_free(&p);
}

/* --git commit: a pinned git dir (a KEEP that is not a carve-out) is a
 * writable bind of its own path, mounted before the read-only entries in
 * it whatever the input order: the other way round it would hide them. */
Test(mount_plan, git_pin_before_the_read_only_entries_in_it)
{
	const struct rpath roots[] = { rp("/w/a", 10, 1) };
	struct protect_action prot[] = {
		{ PROTECT_BIND, (char *)"/w/a/.git/objects/info/alternates", 0, 33, 0, NULL, NULL },
		{ PROTECT_BIND, (char *)"/w/a/.git/config", 0, 30, 0, NULL, NULL },
		{ PROTECT_KEEP, (char *)"/w/a/.git/objects/info", 0, -1, 0, NULL, NULL },
		{ PROTECT_KEEP, (char *)"/w/a/.git", 0, -1, 0, NULL, NULL },
		{ PROTECT_WATCH, (char *)"/w/a/.git/config.worktree", 0, -1, 0, NULL, NULL },
	};
	const struct protect_decision d = { .v = prot, .n = 5 };
	struct plan_input in = { .roots = roots, .nroots = 1, .protect = &d };
	struct mount_plan p;
	build(&in, &p);
	const struct want w[] = {
		{ MOUNT_RO_BIND, "/", -1 },
		{ MOUNT_DEV, "/dev", -1 },
		{ MOUNT_TMPFS, "/dev/shm", -1 },
		{ MOUNT_PROC, "/proc", -1 },
		{ MOUNT_BIND_FD, "/w/a", 10 },
		{ MOUNT_BIND, "/w/a/.git", -1 },
		{ MOUNT_RO_BIND_FD, "/w/a/.git/config", 30 },
		{ MOUNT_BIND, "/w/a/.git/objects/info", -1 },
		{ MOUNT_RO_BIND_FD, "/w/a/.git/objects/info/alternates", 33 },
		{ MOUNT_REMOUNT_RO, "/dev", -1 },
	};
	expect_plan(&p, w, sizeof(w) / sizeof(w[0]));
	cr_assert_str_eq(p.ops[5].src, "/w/a/.git", "bound onto itself");
	cr_assert_str_eq(p.ops[7].src, "/w/a/.git/objects/info");
	mount_plan_free(&p);
}

Test(mount_plan, host_proc_is_bound_read_only)
{
	struct plan_input in = { .tmp_private = 1, .host_proc = 1 };
	struct mount_plan p;
	build(&in, &p);
	const struct want w[] = {
		{ MOUNT_RO_BIND, "/", -1 },
		{ MOUNT_DEV, "/dev", -1 },
		{ MOUNT_TMPFS, "/dev/shm", -1 },
		{ MOUNT_RO_BIND, "/proc", -1 },
		{ MOUNT_TMPFS, "/tmp", -1 },
		{ MOUNT_REMOUNT_RO, "/dev", -1 },
	};
	expect_plan(&p, w, sizeof(w) / sizeof(w[0]));
	cr_assert_str_eq(p.ops[3].src, "/proc", "the host's, masks included");
	mount_plan_free(&p);
}
