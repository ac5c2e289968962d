/* wire_guardian.h: the records cordon and its guardian (outer/hostpaths/
 * guardian.h) exchange over their SOCK_SEQPACKET socketpair, framed and
 * checked as wire.h's (one datagram: a 32-bit type, a payload, at most one
 * descriptor), against this protocol's own table: direction, payload size,
 * descriptor, once-only.  A record that breaks the table is a protocol
 * error: the guardian stops listening and cleans up as if cordon were gone.
 *
 * Room is left for the types still to come (the table has 32 slots):
 * protect's watch mode will name, per protected name it watches, a path and
 * a descriptor for the guardian to recheck if cordon dies. */
#ifndef CORDON_WIRE_GUARDIAN_H
#define CORDON_WIRE_GUARDIAN_H

#include <stdint.h>
#include "wire.h"

/* The guardian plays wire.h's "inner" end: records to it are WIRE_TO_INNER. */
#define GWIRE_TO_GUARDIAN WIRE_TO_INNER
#define GWIRE_TO_CORDON WIRE_TO_OUTER

enum gwire_type {
	GWIRE_READY = 1,  /* guardian->cordon, once: it runs on its own; no payload */
	GWIRE_SANDBOX,    /* cordon->guardian, once: struct gwire_sandbox, + pidfd of
			     bwrap when the kernel has pidfd_open */
	GWIRE_DONE,       /* cordon->guardian, once: cordon cleaned up; exit now */
	GWIRE_TYPE_END,
};

/* The bwrap the guardian waits for before it cleans up. */
struct gwire_sandbox {
	int32_t pid;
	uint32_t zero;    /* must be 0 */
	uint64_t start;   /* field 22 of /proc/PID/stat */
};

extern const struct wire_proto gwire_proto;

/* Pure: a GWIRE_SANDBOX payload as received (len bytes, checked by the
 * table) into *out.  0, or -EPROTO for a pid out of range or a non-zero pad. */
int gwire_sandbox_parse(const void *data, size_t len, struct gwire_sandbox *out) WUR;

#endif
