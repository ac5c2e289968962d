/* fuzz_policy.c: policy_parse on arbitrary bytes, in both formats (the
 * first byte picks a HOME so "~" expansion runs too).  Every input must
 * either load or be refused with a message; nothing may crash or leak. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "input/cli.h"
#include "input/policy.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct config c = { 0 };
	struct cordon_err e = { 0 };
	if (size > 0 && (data[0] & 1))
		(void)setenv("HOME", "/home/fuzz", 1);
	else
		(void)unsetenv("HOME");
	cli_defaults(&c);
	int r = policy_parse((const char *)data, size, "fuzz.json", "/base", "/run", &c, &e);
	if (r < 0 && (e.msg[0] == '\0' || r != -e.err))
		abort(); /* a refusal must say why */
	config_free(&c);
	return 0;
}
