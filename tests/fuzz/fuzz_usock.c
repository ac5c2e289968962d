/* fuzz_usock.c: libFuzzer harness for the Unix socket supervisor's parsers
 * (inner/usock_addr.c): the address the command hands connect() or bind(),
 * the /proc/self rewriting of its path, and the Umask line of
 * /proc/TID/status.  Every input must be parsed or refused without reading
 * or writing out of bounds; a parsed path is NUL-terminated and fits.
 * Build alone:
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined -D_GNU_SOURCE -Iinner \
 *     tests/fuzz/fuzz_usock.c inner/usock_addr.c -o build/fuzz_usock */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "usock_addr.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* A copy of exactly size bytes: ASan sees any read past the input. */
	char *buf = malloc(size ? size : 1);
	if (!buf)
		return 0;
	memcpy(buf, data, size);
	struct usock_addr a;
	if (usock_addr_parse(buf, size, &a) == 0 && a.kind == USOCK_PATH) {
		if (memchr(a.path, '\0', sizeof(a.path)) == NULL || a.path[0] == '\0')
			abort();
		char out[sizeof(a.path) + 32];
		if (usock_addr_self(a.path, 123456, out, sizeof(out)) == 0 &&
		    memchr(out, '\0', sizeof(out)) == NULL)
			abort();
	}
	unsigned int m;
	if (usock_umask_parse(buf, size, &m) == 0 && m > 07777)
		abort();
	free(buf);
	return 0;
}
