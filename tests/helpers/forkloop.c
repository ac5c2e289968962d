/* forkloop.c: a bounded fork loop for the process-count tests.
 *   forkloop N   fork up to N children that each wait in pause(); stop at the
 *                first failure; print "forked K" and, if a fork failed,
 *                "failed ERRNO-NAME"; then kill and reap every child.
 * Exits 0 when all N forks worked, 1 when one failed. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	if (argc != 2)
		return 2;
	long n = strtol(argv[1], NULL, 10);
	if (n <= 0 || n > 100000)
		return 2;
	pid_t *kids = calloc((size_t)n, sizeof(*kids));
	if (!kids)
		return 2;
	long k = 0;
	int err = 0;
	for (; k < n; k++) {
		pid_t p = fork();
		if (p < 0) {
			err = errno;
			break;
		}
		if (p == 0) {
			pause();
			_exit(0);
		}
		kids[k] = p;
	}
	printf("forked %ld\n", k);
	if (err)
		printf("failed %s\n", err == EAGAIN ? "EAGAIN" : strerror(err));
	(void)fflush(stdout);
	for (long i = 0; i < k; i++)
		(void)kill(kids[i], SIGKILL);
	for (long i = 0; i < k; i++)
		(void)waitpid(kids[i], NULL, 0);
	free(kids);
	return err ? 1 : 0;
}
