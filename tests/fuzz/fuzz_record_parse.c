/* fuzz_record_parse.c: libFuzzer harness for record_parse, the parser of
 * registry records, which are read back from a directory a sandboxed
 * command with a writable home could have written.  Every input must be
 * refused cleanly or parsed into a record that formats and parses back to
 * the same record.  Build (the Makefile's `make fuzz` does the same):
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined -D_GNU_SOURCE -Icommon -Iouter \
 *     tests/fuzz/fuzz_record_parse.c outer/hostpaths/record.c -o build/fuzz_record_parse */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "hostpaths/record.h"

static void same(const struct record *a, const struct record *b)
{
	if (strcmp(a->boot, b->boot) != 0 || a->pidns != b->pidns || a->n != b->n ||
	    memcmp(a->proc, b->proc, sizeof(a->proc)) != 0)
		abort();
	for (size_t i = 0; i < a->n; i++)
		if (a->v[i].kind != b->v[i].kind || a->v[i].dev != b->v[i].dev ||
		    a->v[i].ino != b->v[i].ino || strcmp(a->v[i].path, b->v[i].path) != 0)
			abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct record r, back;
	char why[128];
	if (record_parse((const char *)data, size, &r, why, sizeof(why)) < 0) {
		/* Refused: nothing may be left allocated, and why is a string. */
		if (r.v || r.n || !memchr(why, '\0', sizeof(why)))
			abort();
		return 0;
	}
	char *text = NULL;
	size_t len = 0;
	if (record_format(&r, &text, &len) < 0)
		abort();
	if (record_parse(text, len, &back, why, sizeof(why)) < 0)
		abort();
	same(&r, &back);
	free(text);
	record_free(&r);
	record_free(&back);
	return 0;
}
