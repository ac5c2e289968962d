/* fuzz_gitindex.c: libFuzzer harness for the index parser of --git commit
 * (outer/plan/gitdir.c: gitdir_index_gitlinks), whose bytes the sandboxed
 * command writes (.git/index, .git/sharedindex.*).  Every input must be
 * parsed or refused without reading out of bounds, and no name that
 * gitdir_index_name_ok refuses ("", ".", "..", "/..", ".git") may ever
 * reach the callback: cordon turns what it gets into paths.  Build (as
 * `make fuzz` does):
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined -D_GNU_SOURCE -Icommon -Iouter \
 *     tests/fuzz/fuzz_gitindex.c outer/plan/gitdir.c -o build/fuzz_gitindex */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "plan/gitdir.h"

static int check(void *ctx, const char *path, size_t len)
{
	(void)ctx;
	if (!gitdir_index_name_ok(path, len))
		abort();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* A copy of exactly size bytes: ASan sees any read past the input. */
	unsigned char *buf = malloc(size ? size : 1);
	if (!buf)
		return 0;
	memcpy(buf, data, size);
	for (int all = 0; all < 2; all++) {
		struct gitdir_index_walk w = { all, 0, 0 };
		(void)gitdir_index_gitlinks(buf, size, 20, &w, check, NULL);
		w = (struct gitdir_index_walk){ all, 0, 0 };
		(void)gitdir_index_gitlinks(buf, size, 32, &w, check, NULL);
	}
	free(buf);
	return 0;
}
