/* fuzz_gitmeta.c: libFuzzer harness for the parsers of a .git file and of a
 * git config's core.hooksPath (outer/plan/gitmeta.c), whose bytes lie in a
 * writable root an earlier run could have written.  Every input must be
 * parsed or refused without reading or writing out of bounds; a result is a
 * NUL-terminated string that fits its buffer.  Build (as `make fuzz` does):
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined -D_GNU_SOURCE -Icommon -Iouter \
 *     tests/fuzz/fuzz_gitmeta.c outer/plan/gitmeta.c common/path.c common/sys.c \
 *     -o build/fuzz_gitmeta */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "plan/gitmeta.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char out[64];
	/* A copy of exactly size bytes: ASan sees any read past the input. */
	char *buf = malloc(size ? size : 1);
	if (!buf)
		return 0;
	memcpy(buf, data, size);
	memset(out, 'x', sizeof(out));
	if (gitmeta_parse_gitfile(buf, size, out, sizeof(out)) == 0 &&
	    (memchr(out, '\0', sizeof(out)) == NULL || out[0] == '\0'))
		abort();
	memset(out, 'x', sizeof(out));
	int r = gitmeta_parse_hookspath(buf, size, out, sizeof(out));
	if (r == 1 && (memchr(out, '\0', sizeof(out)) == NULL || out[0] == '\0'))
		abort();
	if (r != 0 && r != 1 && r != -ENAMETOOLONG)
		abort();
	char joined[128];
	if (r == 1)
		(void)gitmeta_join("/w/root", out, "/home/me", joined, sizeof(joined));
	free(buf);
	return 0;
}
