/* nolandlock.c: run a program as on a host whose Landlock calls fail.
 *   nolandlock PROGRAM [ARG...]
 * Sets no_new_privs, loads a seccomp filter under which
 * landlock_create_ruleset, landlock_add_rule and landlock_restrict_self
 * answer ENOSYS (what an outer container's seccomp profile does, and what a
 * kernel built without Landlock answers), then execs PROGRAM.  The filter is
 * inherited by everything PROGRAM starts: cordon, bwrap, cordon-inner and the
 * command.  The integration suite's no-Landlock pass runs cordon under it, so
 * the release binary carries no switch of its own for this. */
#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#define NR_LANDLOCK_CREATE_RULESET 444
#define NR_LANDLOCK_ADD_RULE 445
#define NR_LANDLOCK_RESTRICT_SELF 446

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: nolandlock PROGRAM [ARG...]\n");
		return 2;
	}
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, NR_LANDLOCK_CREATE_RULESET, 0, 2),
		BPF_JUMP(BPF_JMP | BPF_JGT | BPF_K, NR_LANDLOCK_RESTRICT_SELF, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOSYS),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { sizeof(f) / sizeof(f[0]), f };
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0) {
		perror("nolandlock: PR_SET_NO_NEW_PRIVS");
		return 125;
	}
	if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0) < 0) {
		perror("nolandlock: PR_SET_SECCOMP");
		return 125;
	}
	execvp(argv[1], argv + 1);
	fprintf(stderr, "nolandlock: %s: %s\n", argv[1], strerror(errno));
	return 127;
}
