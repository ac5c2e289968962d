/* fuzz_host.c: host_canon on any bytes; an accepted host's canonical text is
 * itself accepted unchanged (one form per host), and a pattern built from any
 * bytes never crashes the matcher. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "allow.h"
#include "host.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct host h, again;
	if (host_canon((const char *)data, size, &h) == 0) {
		if (host_canon(h.text, strlen(h.text), &again) != 0 || again.kind != h.kind ||
		    strcmp(again.text, h.text) != 0 || memcmp(again.addr, h.addr, 16) != 0)
			abort();
		for (const char *p = h.text; *p; p++)
			if ((*p >= 'A' && *p <= 'Z') || *p == '%' || *p == ' ')
				abort();
	}
	char pat[300];
	if (size < sizeof(pat)) {
		memcpy(pat, data, size);
		pat[size] = '\0';
		struct allow_rule r;
		if (allow_rule_parse(pat, "--allow-domain", 1, &r, NULL) == 0 &&
		    host_canon((const char *)data, size, &h) == 0)
			(void)allow_rule_matches(&r, &h, 443);
	}
	return 0;
}
