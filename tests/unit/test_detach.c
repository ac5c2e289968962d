/* test_detach.c: the processes launch/ forks to run cordon's own code:
 * detach_child (the guardian's settling) and forkcall_start. */
#include <criterion/criterion.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "launch/detach.h"
#include "launch/forkcall.h"

/* What the detached child saw of itself, written to the kept pipe. */
struct seen {
	int own_session;     /* getsid(0) == getpid() */
	int stray_open;      /* the descriptor not kept is still open */
	int stdin_is_null;   /* 0 is /dev/null */
	int term_ignored;    /* SIGTERM (listed) is SIG_IGN */
	int usr1_default;    /* SIGUSR1 (not listed) as the parent had it */
	int blocked;         /* anything in the signal mask */
	int cwd_root;
};

struct probe {
	int out;
	int stray;
};

static void probe(void *ctx)
{
	const struct probe *p = ctx;
	struct seen s;
	memset(&s, 0, sizeof(s));
	s.own_session = getsid(0) == getpid();
	s.stray_open = fcntl(p->stray, F_GETFD) >= 0;
	struct stat a, b;
	s.stdin_is_null = fstat(0, &a) == 0 && stat("/dev/null", &b) == 0 && a.st_rdev == b.st_rdev;
	struct sigaction sa;
	s.term_ignored = sigaction(SIGTERM, NULL, &sa) == 0 && sa.sa_handler == SIG_IGN;
	s.usr1_default = sigaction(SIGUSR1, NULL, &sa) == 0 && sa.sa_handler == SIG_DFL;
	sigset_t m;
	s.blocked = sigprocmask(SIG_SETMASK, NULL, &m) == 0 && sigismember(&m, SIGTERM);
	char cwd[8];
	s.cwd_root = getcwd(cwd, sizeof(cwd)) && strcmp(cwd, "/") == 0;
	if (write(p->out, &s, sizeof(s)) != (ssize_t)sizeof(s))
		_exit(3);
	/* detach_child _exits with 0 once this returns. */
}

Test(detach_child, settled_as_the_guardian_needs)
{
	int out[2];
	cr_assert_eq(pipe2(out, O_CLOEXEC), 0);
	int stray = open("/dev/null", O_RDONLY); /* no O_CLOEXEC, and not kept */
	cr_assert_geq(stray, 0);
	sigset_t block, old;
	sigemptyset(&block);
	sigaddset(&block, SIGTERM);
	cr_assert_eq(sigprocmask(SIG_BLOCK, &block, &old), 0);
	static const int ignore[] = { SIGTERM, SIGHUP };
	struct probe p = { out[1], stray };
	pid_t pid = detach_child(&out[1], 1, ignore, 2, probe, &p);
	cr_assert_gt(pid, 0, "%s", strerror((int)-pid));
	cr_assert_eq(sigprocmask(SIG_SETMASK, &old, NULL), 0);
	close(out[1]);
	struct seen s;
	cr_assert_eq(read(out[0], &s, sizeof(s)), (ssize_t)sizeof(s));
	int st;
	cr_assert_eq(waitpid(pid, &st, 0), pid, "it stays the caller's child");
	cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "status %#x", st);
	cr_assert(s.own_session, "a session of its own");
	cr_assert_not(s.stray_open, "a descriptor not kept was left open");
	cr_assert(s.stdin_is_null);
	cr_assert(s.term_ignored);
	cr_assert(s.usr1_default);
	cr_assert_not(s.blocked, "the signal mask is emptied");
	cr_assert(s.cwd_root);
	close(out[0]);
	close(stray);
}

static int returns_seven(void *ctx)
{
	*(int *)ctx = 1; /* the child's copy only */
	return 7;
}

Test(forkcall, the_child_exits_with_what_fn_returns)
{
	int touched = 0;
	pid_t pid = forkcall_start(returns_seven, &touched);
	cr_assert_gt(pid, 0);
	int st;
	cr_assert_eq(waitpid(pid, &st, 0), pid);
	cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 7, "status %#x", st);
	cr_assert_eq(touched, 0, "fn ran in a copy, not in the caller");
}
