/* fuzz_decisions.c: cordon's reading of the bridge's decisions memfd
 * (common/wire_bridge.c) on any bytes.  Whatever the memfd holds, each
 * record wire_bridge_decision_next returns keeps the table's promises (a
 * known verdict, zero padding, every string NUL-terminated inside its
 * field), the position only moves forward and stays inside the input, and
 * a refusal ends the reading. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "wire_bridge.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct wire_bridge_decision d;
	struct cordon_err e;
	size_t at = 0;
	for (;;) {
		size_t was = at;
		int r = wire_bridge_decision_next(data, size, &at, &d, &e);
		if (r <= 0) {
			if (at != was || (r < 0 && !e.msg[0]))
				abort();
			break;
		}
		if (at <= was || at > size || d.verdict < WIRE_BRIDGE_ALLOW ||
		    d.verdict > WIRE_BRIDGE_FAILED || d.zero ||
		    !memchr(d.reason, '\0', sizeof(d.reason)) ||
		    !memchr(d.address, '\0', sizeof(d.address)) || !memchr(d.host, '\0', sizeof(d.host)))
			abort();
	}
	return 0;
}
