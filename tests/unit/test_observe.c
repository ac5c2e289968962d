/* test_observe.c: the observers' table (every entry says what the guardian
 * redoes), the one list of findings, and the exit status computed from it. */
#include <criterion/criterion.h>
#include <criterion/redirect.h>
#include <errno.h>
#include <string.h>

#include "err.h"
#include "observe/findings.h"
#include "observe/observer.h"
#include "observe/status.h"

Test(observe, every_observer_has_four_entry_points)
{
	cr_assert_eq(observe_ntable, OBSERVE_N);
	for (size_t i = 0; i < observe_ntable; i++) {
		const struct observer *o = &observe_table[i];
		cr_assert(o->name && o->name[0], "entry %zu has no name", i);
		cr_assert(o->start, "%s: no start", o->name);
		cr_assert(o->event_fd, "%s: no event_fd", o->name);
		cr_assert(o->event, "%s: no event", o->name);
		cr_assert(o->settle, "%s: no settle", o->name);
	}
}

Test(observe, every_observer_says_what_the_guardian_redoes)
{
	for (size_t i = 0; i < observe_ntable; i++) {
		const struct observe_guardian *g = &observe_table[i].guardian;
		cr_assert((g->redo != NULL) != (g->none != NULL),
			  "%s: the guardian entry is OBSERVE_GUARDIAN(fn) or "
			  "OBSERVE_GUARDIAN_NONE(\"why\"), exactly one", observe_table[i].name);
		cr_assert(!g->none || strlen(g->none) > 10, "%s: say why", observe_table[i].name);
	}
}

Test(observe, the_git_end_is_redone_by_the_guardian)
{
	int git = 0;
	for (size_t i = 0; i < observe_ntable; i++)
		if (strcmp(observe_table[i].name, "git dirs") == 0)
			git = observe_table[i].guardian.redo != NULL;
	cr_assert(git, "the guardian redoes gitstate's end after a kill of cordon (issue 31)");
}

static void add(struct findings *f, enum finding_kind k, const char *say)
{
	struct finding x = { .kind = k, .say = (char *)say, .path = (char *)"/w/.git" };
	findings_add(f, &x);
}

Test(observe, status_is_the_commands_without_violations)
{
	struct findings f = FINDINGS_INIT;
	cr_assert_eq(observe_status(0, &f), 0);
	cr_assert_eq(observe_status(3, &f), 3);
	add(&f, FINDING_GIT_STATE, NULL);
	add(&f, FINDING_GIT_REF, NULL);
	add(&f, FINDING_NOTE, "cordon: x\n");
	add(&f, FINDING_NET_DECISION, NULL);
	cr_assert_eq(observe_status(0, &f), 0, "git state moved aside is the whole answer");
	cr_assert_eq(observe_status(EXIT_TIMEOUT, &f), EXIT_TIMEOUT);
	cr_assert(!observe_violated(&f));
	findings_free(&f);
}

Test(observe, a_name_or_a_moved_root_fails_a_clean_run)
{
	for (int k = FINDING_PROTECTED_NAME; k <= FINDING_ROOT_MOVED; k++) {
		struct findings f = FINDINGS_INIT;
		add(&f, (enum finding_kind)k, "cordon: found\n");
		cr_assert_eq(observe_status(0, &f), 1);
		cr_assert_eq(observe_status(2, &f), 2, "the command's own failure stands");
		cr_assert_eq(observe_status(137, &f), 137);
		cr_assert(observe_violated(&f));
		findings_free(&f);
	}
}

Test(observe, stopped_by_cordon_is_1_whatever_the_command_said)
{
	struct findings f = FINDINGS_INIT;
	add(&f, FINDING_PROTECTED_NAME, NULL);
	add(&f, FINDING_STOPPED, NULL);
	cr_assert_eq(observe_status(137, &f), 1);
	cr_assert_eq(observe_status(0, &f), 1);
	findings_free(&f);
}

Test(observe, unchecked_roots_fail_closed_but_never_as_125)
{
	struct findings f = FINDINGS_INIT;
	add(&f, FINDING_ROOTS_UNCHECKED, "cordon: cannot check\n");
	add(&f, FINDING_STOPPED, NULL);
	cr_assert_eq(observe_status(0, &f), 1);
	cr_assert_eq(observe_status(EXIT_CORDON_FAILED, &f), 1, "the command may have run");
	cr_assert_eq(observe_status(137, &f), 137, "before the stop: as the run did");
	cr_assert_eq(observe_status(4, &f), 4);
	findings_free(&f);
}

Test(observe, cordons_own_failure_stands)
{
	struct findings f = FINDINGS_INIT;
	add(&f, FINDING_PROTECTED_NAME, NULL);
	cr_assert_eq(observe_status(-EIO, &f), -EIO);
	findings_free(&f);
}

Test(observe, notes_for_a_failed_run_only)
{
	cr_assert(observe_status_failed(1));
	cr_assert(observe_status_failed(EXIT_TIMEOUT - 1));
	cr_assert(!observe_status_failed(0));
	cr_assert(!observe_status_failed(EXIT_TIMEOUT));
	cr_assert(!observe_status_failed(EXIT_CORDON_FAILED));
	cr_assert(!observe_status_failed(-EIO));
}

Test(observe, findings_copy_what_they_are_given)
{
	struct findings f = FINDINGS_INIT;
	char path[] = "/w/x";
	char line[] = "0123456789abcdefghijtail";
	struct finding x = { .kind = FINDING_ROOT_MOVED, .path = path, .detail = (char *)"d" };
	findings_add(&f, &x);
	struct finding n = { .kind = FINDING_NET_DECISION, .name = line, .len = 20 };
	findings_add(&f, &n);
	path[0] = 'X';
	cr_assert_str_eq(f.v[0].path, "/w/x");
	cr_assert_eq(memcmp(f.v[1].name, "0123456789abcdefghij", 20), 0, "a record is its bytes");
	for (int i = 0; i < 100; i++)
		add(&f, FINDING_NOTE, NULL);
	cr_assert_eq(f.n, 102);
	cr_assert_eq(f.lost, 0);
	findings_free(&f);
	cr_assert_eq(f.n, 0);
}

static void say_two(FILE *out, const void *arg)
{
	fprintf(out, "cordon: %s\ncordon: two\n", (const char *)arg);
}

Test(observe, compose_gives_the_text)
{
	char *t = findings_compose(say_two, "one");
	cr_assert_str_eq(t, "cordon: one\ncordon: two\n");
	free(t);
}

Test(observe, lines_held_for_the_status, .init = cr_redirect_stderr)
{
	struct findings f = FINDINGS_INIT;
	struct finding a = { .kind = FINDING_NOTE, .say = (char *)"cordon: now\n" };
	struct finding b = { .kind = FINDING_NOTE, .say = (char *)"cordon: if failed\n",
			     .say_if_failed = 1 };
	findings_add(&f, &a);
	findings_add(&f, &b);
	findings_say(&f, 0, 0);
	findings_say(&f, 0, 0);
	findings_say(&f, 1, 1);
	findings_say(&f, 1, 1);
	fflush(stderr);
	cr_assert_stderr_eq_str("cordon: now\ncordon: if failed\n", "each line once, in order");
	findings_free(&f);
}
