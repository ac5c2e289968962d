/* status.c: see status.h. */
#include "observe/status.h"

#include "err.h"

int observe_status(int cmd, const struct findings *f)
{
	int unchecked = 0, stopped = 0, violated = f->lost > 0;
	if (cmd < 0)
		return cmd;
	for (size_t i = 0; i < f->n; i++) {
		enum finding_kind k = f->v[i].kind;
		unchecked |= k == FINDING_ROOTS_UNCHECKED;
		stopped |= k == FINDING_STOPPED;
		violated |= findings_is_violation(k);
	}
	if (unchecked)
		return cmd == 0 || cmd == EXIT_CORDON_FAILED ? 1 : cmd;
	if (stopped)
		return 1;
	if (violated)
		return cmd == 0 ? 1 : cmd;
	return cmd;
}

int observe_violated(const struct findings *f)
{
	return observe_status(0, f) != 0;
}

int observe_status_failed(int status)
{
	return status > 0 && status < EXIT_TIMEOUT;
}
