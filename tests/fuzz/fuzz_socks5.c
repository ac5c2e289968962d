/* fuzz_socks5.c: greeting then request on any bytes; an accepted request's
 * length is within what was given and its host is canonical. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "proto_socks5.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t used = 0;
	enum socks5_greeting g = socks5_greeting(data, size, &used);
	if (g != SOCKS5_G_NOAUTH)
		return 0;
	if (used > size)
		abort();
	struct socks5_req r;
	if (socks5_request(data + used, size - used, &r) == 1) {
		struct host again;
		if (r.len > size - used || r.port == 0 ||
		    host_canon(r.host.text, strlen(r.host.text), &again) != 0 ||
		    strcmp(again.text, r.host.text) != 0)
			abort();
	}
	return 0;
}
