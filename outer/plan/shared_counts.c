/* shared_counts.c: see shared_counts.h. */
#include "plan/shared_counts.h"

const int shared_counts_resources[SHARED_COUNTS_N] = {
	RLIMIT_SIGPENDING, RLIMIT_MSGQUEUE, RLIMIT_MEMLOCK,
};

struct rlimit shared_counts_half(struct rlimit own)
{
	if (own.rlim_cur == RLIM_INFINITY)
		return own;
	rlim_t half = own.rlim_cur / 2;
	return (struct rlimit){ half, half };
}
