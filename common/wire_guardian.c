/* wire_guardian.c: see wire_guardian.h. */
#include "wire_guardian.h"

#include <errno.h>
#include <string.h>

#define PID_MAX_LIMIT 4194304

static const struct wire_spec gwire_table[GWIRE_TYPE_END] = {
	[GWIRE_READY] = { "ready", GWIRE_TO_CORDON, 0, 0, WIRE_FD_NONE, 1 },
	[GWIRE_SANDBOX] = { "sandbox", GWIRE_TO_GUARDIAN, sizeof(struct gwire_sandbox),
			    sizeof(struct gwire_sandbox), WIRE_FD_MAY, 1 },
	[GWIRE_DONE] = { "done", GWIRE_TO_GUARDIAN, 0, 0, WIRE_FD_NONE, 1 },
};

const struct wire_proto gwire_proto = { gwire_table, GWIRE_TYPE_END };

int gwire_sandbox_parse(const void *data, size_t len, struct gwire_sandbox *out)
{
	if (len != sizeof(*out))
		return -EPROTO;
	memcpy(out, data, sizeof(*out));
	if (out->pid <= 0 || out->pid > PID_MAX_LIMIT || out->zero != 0)
		return -EPROTO;
	return 0;
}
