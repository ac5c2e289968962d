/* test_protect_decide.c: what a run does about each protected name, from
 * fake facts (no filesystem): bind, share, create, adopt, pin, and the
 * refusal of a symbolic link. */
#include <criterion/criterion.h>

#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "plan/protect_decide.h"

/* Writable roots /ws (dev 7, ino 2) and /ro (read-only). */
static struct protect_root roots[] = {
	{ "/ws", 7, 2, 0 },
	{ "/ro", 7, 3, 1 },
};
static struct protect_name names[8];
static size_t nnames;
static struct protect_live live[8];
static size_t nlive;
static const char *swept[4];
static size_t nswept;
static struct protect_facts f;
static struct protect_decision d;
static struct cordon_err err;

static void init(void)
{
	memset(names, 0, sizeof(names));
	memset(live, 0, sizeof(live));
	memset(&d, 0, sizeof(d));
	memset(&err, 0, sizeof(err));
	nnames = nlive = nswept = 0;
	f = (struct protect_facts){ .roots = roots, .nroots = 2 };
}

static void fini(void)
{
	protect_decision_free(&d);
}

static void name_missing(size_t root, const char *path)
{
	names[nnames++] = (struct protect_name){ .root = root, .path = path, .fd = -1 };
}

static void name_dir(size_t root, const char *path, uint64_t ino, int fd)
{
	names[nnames++] = (struct protect_name){ .root = root, .path = path, .exists = 1,
						 .is_dir = 1, .dev = 7, .ino = ino, .fd = fd };
}

static void live_entry(const char *path, uint64_t ino, int fd)
{
	live[nlive++] = (struct protect_live){ path, 7, ino, fd };
}

static void decide(void)
{
	f.names = names;
	f.nnames = nnames;
	f.live = live;
	f.nlive = nlive;
	f.swept = swept;
	f.nswept = nswept;
	cr_assert_eq(protect_decide(&f, &d, &err), 0, "protect_decide: %s", err.msg);
}

static void expect(size_t i, enum protect_act act, const char *path, int bind_fd)
{
	cr_assert_lt(i, d.n, "only %zu actions", d.n);
	cr_assert_eq(d.v[i].act, act, "action %zu (%s): %d, want %d", i, d.v[i].path,
		     d.v[i].act, act);
	cr_assert_str_eq(d.v[i].path, path);
	cr_assert_eq(d.v[i].bind_fd, bind_fd, "action %zu (%s): bind_fd", i, path);
}

TestSuite(protect_decide, .init = init, .fini = fini);

Test(protect_decide, existing_name_is_bound_from_its_descriptor)
{
	name_dir(0, "/ws/.git", 40, 9);
	decide();
	cr_assert_eq(d.n, 1);
	expect(0, PROTECT_BIND, "/ws/.git", 9);
	cr_assert_eq(d.v[0].carve, 0);
}

Test(protect_decide, existing_file_is_bound_too)
{
	names[nnames++] = (struct protect_name){ .root = 0, .path = "/ws/.git", .exists = 1,
						 .dev = 7, .ino = 40, .fd = 9 };
	decide();
	expect(0, PROTECT_BIND, "/ws/.git", 9);
}

Test(protect_decide, symlink_is_refused_naming_it)
{
	names[nnames++] = (struct protect_name){ .root = 0, .path = "/ws/.codex", .exists = 1,
						 .is_symlink = 1, .dev = 7, .ino = 41, .fd = -1 };
	f.names = names;
	f.nnames = nnames;
	cr_assert_eq(protect_decide(&f, &d, &err), -EPERM);
	cr_assert(strstr(err.msg, "/ws/.codex"), "%s", err.msg);
	cr_assert(strstr(err.msg, "symbolic link"), "%s", err.msg);
	cr_assert(strstr(err.msg, "--unprotect .codex"), "%s", err.msg);
}

Test(protect_decide, missing_name_is_created_and_bound_by_path)
{
	name_missing(0, "/ws/.aws");
	decide();
	cr_assert_eq(d.n, 1);
	expect(0, PROTECT_CREATE, "/ws/.aws", -1);
	cr_assert_eq(d.v[0].src, 0);
}

Test(protect_decide, missing_name_in_a_read_only_root_gets_nothing)
{
	name_missing(1, "/ro/.git");
	decide();
	cr_assert_eq(d.n, 0, "nothing can create it there: %zu actions", d.n);
}

Test(protect_decide, name_the_sweep_removed_is_created_again)
{
	name_dir(0, "/ws/.git", 40, 9);
	swept[nswept++] = "/ws/.git";
	decide();
	cr_assert_eq(d.n, 1);
	expect(0, PROTECT_CREATE, "/ws/.git", -1);
}

Test(protect_decide, sweep_of_another_path_changes_nothing)
{
	name_dir(0, "/ws/.git", 40, 9);
	swept[nswept++] = "/other/.git";
	decide();
	expect(0, PROTECT_BIND, "/ws/.git", 9);
}

Test(protect_decide, live_runs_directory_is_shared)
{
	name_dir(0, "/ws/.git", 40, 9);
	live_entry("/ws/.git", 40, -1);
	decide();
	cr_assert_eq(d.n, 1);
	expect(0, PROTECT_SHARE, "/ws/.git", 9);
}

Test(protect_decide, same_path_other_object_is_bound_not_shared)
{
	/* The live run's directory is gone and something else is there now:
	 * no reference to it, and so no removal of it by the last run out. */
	name_dir(0, "/ws/.git", 40, 9);
	live_entry("/ws/.git", 99, -1);
	decide();
	cr_assert_eq(d.n, 1);
	expect(0, PROTECT_BIND, "/ws/.git", 9);
}

Test(protect_decide, a_file_is_never_shared)
{
	names[nnames++] = (struct protect_name){ .root = 0, .path = "/ws/.git", .exists = 1,
						 .dev = 7, .ino = 40, .fd = 9 };
	live_entry("/ws/.git", 40, -1);
	decide();
	expect(0, PROTECT_BIND, "/ws/.git", 9);
}

Test(protect_decide, missing_name_a_live_run_made_since_is_adopted)
{
	name_missing(0, "/ws/.git");
	live_entry("/ws/.git", 40, 11);
	cr_assert(protect_live_wanted(&(struct protect_facts){ .names = names, .nnames = 1,
				      .roots = roots, .nroots = 2, .live = live, .nlive = 1 }, 0));
	decide();
	cr_assert_eq(d.n, 1);
	expect(0, PROTECT_ADOPT, "/ws/.git", -1);
	cr_assert_eq(d.v[0].src, 0, "live index");
}

Test(protect_decide, missing_name_whose_live_object_is_gone_is_created)
{
	name_missing(0, "/ws/.git");
	live_entry("/ws/.git", 40, -1);
	decide();
	expect(0, PROTECT_CREATE, "/ws/.git", -1);
}

Test(protect_decide, other_runs_mount_point_beneath_a_root_is_pinned)
{
	live_entry("/ws/sub/.git", 50, 12);
	live_entry("/elsewhere/.git", 51, 13);
	f.names = names;
	f.live = live;
	f.nlive = nlive;
	cr_assert(protect_live_wanted(&f, 0));
	cr_assert_not(protect_live_wanted(&f, 1), "outside every root: never opened");
	decide();
	cr_assert_eq(d.n, 1);
	expect(0, PROTECT_PIN, "/ws/sub/.git", -1);
}

Test(protect_decide, mount_point_above_a_root_is_not_pinned)
{
	/* Binding /ws read-only would hide the writable root. */
	live_entry("/", 50, 12);
	live_entry("/ws", 51, 13);
	decide();
	cr_assert_eq(d.n, 0);
}

Test(protect_decide, full_write_pins_anywhere)
{
	live_entry("/elsewhere/.git", 51, 13);
	f.full_write = 1;
	f.live = live;
	f.nlive = nlive;
	cr_assert(protect_live_wanted(&f, 0));
	decide();
	expect(0, PROTECT_PIN, "/elsewhere/.git", -1);
}

Test(protect_decide, pin_not_opened_is_skipped)
{
	live_entry("/ws/sub/.git", 50, -1);
	decide();
	cr_assert_eq(d.n, 0);
}

Test(protect_decide, two_records_of_one_path_pin_it_once)
{
	live_entry("/ws/sub/.git", 50, 12);
	live_entry("/ws/sub/.git", 50, 14);
	decide();
	cr_assert_eq(d.n, 1);
}

Test(protect_decide, names_in_order_then_pins)
{
	name_dir(0, "/ws/.git", 40, 9);
	name_missing(0, "/ws/.codex");
	name_missing(1, "/ro/.agents");
	live_entry("/ws/deep/.aws", 60, 15);
	decide();
	cr_assert_eq(d.n, 3);
	expect(0, PROTECT_BIND, "/ws/.git", 9);
	expect(1, PROTECT_CREATE, "/ws/.codex", -1);
	expect(2, PROTECT_PIN, "/ws/deep/.aws", -1);
}

Test(protect_decide, watch_mode_leaves_a_missing_name_absent_and_watched)
{
	name_missing(0, "/ws/.git");
	name_dir(0, "/ws/.codex", 41, 9);
	f.watch = 1;
	decide();
	cr_assert_eq(d.n, 2);
	expect(0, PROTECT_WATCH, "/ws/.git", -1);
	expect(1, PROTECT_BIND, "/ws/.codex", 9);
}

Test(protect_decide, watch_mode_watches_a_name_the_sweep_removed)
{
	name_dir(0, "/ws/.git", 40, 9);
	swept[nswept++] = "/ws/.git";
	f.watch = 1;
	decide();
	expect(0, PROTECT_WATCH, "/ws/.git", -1);
}

Test(protect_decide, watch_mode_still_adopts_a_live_mount_point)
{
	/* A mount-mode run made it meanwhile: it exists, so it is bound. */
	name_missing(0, "/ws/.git");
	live_entry("/ws/.git", 40, 11);
	f.watch = 1;
	decide();
	expect(0, PROTECT_ADOPT, "/ws/.git", -1);
}

Test(protect_decide, watch_mode_ignores_a_read_only_root)
{
	name_missing(1, "/ro/.git");
	f.watch = 1;
	decide();
	cr_assert_eq(d.n, 0);
}

Test(protect_decide, a_missing_dotfile_is_watched_in_mount_mode_too)
{
	names[nnames++] = (struct protect_name){ .root = 0, .path = "/ws/.bashrc", .fd = -1,
						 .watch_only = 1 };
	name_missing(0, "/ws/.git");
	decide();
	cr_assert_eq(d.n, 2);
	expect(0, PROTECT_WATCH, "/ws/.bashrc", -1);
	expect(1, PROTECT_CREATE, "/ws/.git", -1);
}

/* No inotify to be had (protect_watch.h): every missing name, dotfiles too, gets a
 * placeholder; what exists is bound as always. */
Test(protect_decide, without_a_watch_every_missing_name_gets_a_placeholder)
{
	names[nnames++] = (struct protect_name){ .root = 0, .path = "/ws/.bashrc", .fd = -1,
						 .watch_only = 1 };
	name_missing(0, "/ws/.git");
	name_dir(0, "/ws/.codex", 41, 9);
	f.watch = 1;
	f.watch_lost = 1;
	decide();
	cr_assert_eq(d.n, 3);
	expect(0, PROTECT_CREATE, "/ws/.bashrc", -1);
	expect(1, PROTECT_CREATE, "/ws/.git", -1);
	expect(2, PROTECT_BIND, "/ws/.codex", 9);
}

Test(protect_decide, an_existing_dotfile_is_bound_read_only)
{
	names[nnames++] = (struct protect_name){ .root = 0, .path = "/ws/.bashrc", .exists = 1,
						 .dev = 7, .ino = 50, .fd = 12, .watch_only = 1 };
	decide();
	expect(0, PROTECT_BIND, "/ws/.bashrc", 12);
}

/* --tmp host: another user's link at a protected name in a directory others
 * can write (issue 19, item 8) is left as it is and watched, in either
 * mode; nothing is bound. */
Test(protect_decide, another_users_link_is_watched_not_refused)
{
	names[nnames++] = (struct protect_name){ .root = 0, .path = "/ws/.codex", .exists = 1,
						 .is_symlink = 1, .link = LINK_FOREIGN, .dev = 7,
						 .ino = 41, .fd = -1 };
	decide();
	cr_assert_eq(d.n, 1);
	expect(0, PROTECT_WATCH_LINK, "/ws/.codex", -1);
	cr_assert(protect_act_watched(d.v[0].act));
	protect_decision_free(&d);
	f.watch = 1;
	decide();
	expect(0, PROTECT_WATCH_LINK, "/ws/.codex", -1);
	protect_decision_free(&d);
	names[0].root = 1;
	decide();
	cr_assert_eq(d.n, 0, "a read-only root: nothing can be made there");
}

/* What of the link's way the command could change (plan/linkwalk.h): a
 * missing name watched (in mount mode too), an entry on the way watched as
 * found, the end bound; each action says which link it stands for. */
Test(protect_decide, the_way_of_another_users_link_is_watched_or_bound)
{
	names[nnames++] = (struct protect_name){ .root = 0, .path = "/ws/.codex", .exists = 1,
						 .is_symlink = 1, .link = LINK_FOREIGN, .dev = 7,
						 .ino = 41, .fd = -1 };
	names[nnames++] = (struct protect_name){ .root = 0, .path = "/ws/a", .exists = 1,
						 .dev = 7, .ino = 42, .fd = -1, .via = "/ws/.codex",
						 .as_found = 1, .watch_only = 1 };
	names[nnames++] = (struct protect_name){ .root = 0, .path = "/ws/x", .fd = -1,
						 .via = "/ws/.codex", .watch_only = 1 };
	names[nnames++] = (struct protect_name){ .root = 0, .path = "/ws/d/t", .exists = 1,
						 .is_dir = 1, .dev = 7, .ino = 43, .fd = 14,
						 .via = "/ws/.codex", .watch_only = 1 };
	decide();
	cr_assert_eq(d.n, 4);
	expect(0, PROTECT_WATCH_LINK, "/ws/.codex", -1);
	cr_assert_null(d.v[0].via);
	expect(1, PROTECT_WATCH_LINK, "/ws/a", -1);
	expect(2, PROTECT_WATCH, "/ws/x", -1);
	expect(3, PROTECT_BIND, "/ws/d/t", 14);
	for (size_t i = 1; i < 4; i++)
		cr_assert_str_eq(d.v[i].via, "/ws/.codex");
}

/* Without inotify a missing name on the way cannot be held: refused, and
 * the message names the link.  What is bound needs no watch. */
Test(protect_decide, the_way_of_another_users_link_without_inotify_is_refused)
{
	names[nnames++] = (struct protect_name){ .root = 0, .path = "/ws/d/t", .exists = 1,
						 .is_dir = 1, .dev = 7, .ino = 43, .fd = 14,
						 .via = "/ws/.codex", .watch_only = 1 };
	f.watch_lost = 1;
	decide();
	expect(0, PROTECT_BIND, "/ws/d/t", 14);
	protect_decision_free(&d);
	names[nnames++] = (struct protect_name){ .root = 0, .path = "/ws/x", .fd = -1,
						 .via = "/ws/.codex", .watch_only = 1 };
	f.nnames = nnames;
	cr_assert_eq(protect_decide(&f, &d, &err), -EAGAIN);
	cr_assert(strstr(err.msg, "/ws/.codex"), "%s", err.msg);
	cr_assert(strstr(err.msg, "inotify"), "%s", err.msg);
}

Test(protect_decide, another_users_link_is_watched_with_full_write_too)
{
	names[nnames++] = (struct protect_name){ .root = 0, .path = "/ws/.codex", .exists = 1,
						 .is_symlink = 1, .link = LINK_FOREIGN, .dev = 7,
						 .ino = 41, .fd = -1 };
	f.full_write = 1;
	decide();
	expect(0, PROTECT_WATCH_LINK, "/ws/.codex", -1);
}

Test(protect_decide, the_callers_own_link_is_still_refused_in_watch_mode)
{
	names[nnames++] = (struct protect_name){ .root = 0, .path = "/ws/.git", .exists = 1,
						 .is_symlink = 1, .dev = 7, .ino = 41, .fd = -1 };
	f.watch = 1;
	f.names = names;
	f.nnames = nnames;
	cr_assert_eq(protect_decide(&f, &d, &err), -EPERM);
}

/* --git commit (plan/gitdir.h): a pinned git dir is bound writable onto
 * itself by path (KEEP, not a carve-out), a read-only entry from its
 * descriptor, a missing one watched in mount mode too; the rule's note
 * reaches the action. */
Test(protect_decide, git_entries_pinned_read_only_and_watched)
{
	name_dir(0, "/ws/.git", 10, 40);
	names[0].pin = 1;
	names[0].why = "pin";
	name_dir(0, "/ws/.git/hooks", 11, 41);
	names[1].why = "hooks";
	names[1].watch_only = 1;
	name_missing(0, "/ws/.git/config.worktree");
	names[2].why = "cw";
	names[2].watch_only = 1;
	decide();
	cr_assert_eq(d.n, 3);
	expect(0, PROTECT_KEEP, "/ws/.git", -1);
	cr_expect_eq(d.v[0].carve, 0);
	cr_expect_str_eq(d.v[0].why, "pin");
	expect(1, PROTECT_BIND, "/ws/.git/hooks", 41);
	cr_expect_str_eq(d.v[1].why, "hooks");
	expect(2, PROTECT_WATCH, "/ws/.git/config.worktree", -1);
}

/* The registry's carve-outs (protect_decide_carves), from fake ancestors:
 * /home/u/.local/state/cordon, each directory with ino = its depth. */
static const char regpath[] = "/home/u/.local/state/cordon";
static const struct protect_anc reganc[] = {
	{ 1, 10, 0 }, { 1, 11, 5 }, { 1, 12, 7 }, { 1, 13, 14 }, { 1, 14, 20 }, { 1, 15, 27 },
};
static const struct protect_regview regview = { regpath, reganc, 6 };

static const struct protect_carve *carve_at(const struct protect_carve *v, size_t n,
					    const char *path)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(v[i].path, path) == 0)
			return &v[i];
	return NULL;
}

Test(carves, a_root_above_the_registry_carves_it_and_pins_what_is_between)
{
	const struct protect_root r[] = { { "/home/u", 1, 12, 0 }, { "/srv", 2, 5, 0 } };
	struct protect_carve *v = NULL;
	size_t n = 0, cap = 0;
	cr_assert_eq(protect_decide_carves(r, 2, 0, &regview, NULL, 0, &v, &n, &cap, &err), 0);
	cr_assert_eq(n, 3, "the registry and .local, .local/state; nothing for /srv");
	const struct protect_carve *c = carve_at(v, n, regpath);
	cr_assert(c && !c->pin && c->root == 0 && c->anc == 6);
	c = carve_at(v, n, "/home/u/.local");
	cr_assert(c && c->pin && c->top == 2 && c->anc == 3);
	c = carve_at(v, n, "/home/u/.local/state");
	cr_assert(c && c->pin && c->anc == 4);
	cr_assert_null(carve_at(v, n, "/home/u"), "the root itself is not pinned");
	protect_carves_free(v, n);
}

Test(carves, a_bind_mount_of_an_ancestor_counts_at_its_own_path)
{
	const struct protect_root r[] = { { "/mnt/home", 1, 11, 0 } };
	struct protect_carve *v = NULL;
	size_t n = 0, cap = 0;
	cr_assert_eq(protect_decide_carves(r, 1, 0, &regview, NULL, 0, &v, &n, &cap, &err), 0);
	cr_assert_not_null(carve_at(v, n, "/mnt/home/u/.local/state/cordon"));
	cr_assert_not_null(carve_at(v, n, "/mnt/home/u"));
	cr_assert_eq(n, 4);
	protect_carves_free(v, n);
}

Test(carves, full_write_carves_under_slash)
{
	struct protect_carve *v = NULL;
	size_t n = 0, cap = 0;
	cr_assert_eq(protect_decide_carves(NULL, 0, 1, &regview, NULL, 0, &v, &n, &cap, &err), 0);
	cr_assert_eq(n, 5, "the registry and /home, /home/u, .local, .local/state");
	cr_assert_not_null(carve_at(v, n, "/home"));
	cr_assert_null(carve_at(v, n, "/"));
	protect_carves_free(v, n);
}

Test(carves, nothing_is_pinned_inside_a_read_only_carve_out_or_twice)
{
	const struct protect_root r[] = { { "/home/u", 1, 12, 0 }, { "/home/u", 1, 12, 0 } };
	const struct protect_carved have[] = { { "/home/u/.local", 0 } };
	struct protect_carve *v = NULL;
	size_t n = 0, cap = 0;
	cr_assert_eq(protect_decide_carves(r, 2, 0, &regview, have, 1, &v, &n, &cap, &err), 0);
	cr_assert_eq(n, 1, "only the registry itself: .local is read-only already");
	cr_assert_not(v[0].pin);
	protect_carves_free(v, n);
}
