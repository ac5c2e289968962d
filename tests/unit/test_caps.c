/* test_caps.c: caps_check_empty refuses any non-empty set and names it. */
#include <criterion/criterion.h>

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "caps.h"

Test(caps_check_empty, all_zero_passes)
{
	struct cap_sets s;
	memset(&s, 0, sizeof(s));
	struct cordon_err e;
	memset(&e, 0, sizeof(e));
	cr_assert_eq(caps_check_empty(&s, &e), 0);
	cr_assert_eq(e.err, 0, "error record touched on success");
	cr_assert_eq(caps_check_empty(&s, NULL), 0);
}

Test(caps_check_empty, each_set_refused_by_name)
{
	static const struct {
		size_t off;
		const char *name;
	} sets[] = {
		{ offsetof(struct cap_sets, effective), "effective set" },
		{ offsetof(struct cap_sets, permitted), "permitted set" },
		{ offsetof(struct cap_sets, inheritable), "inheritable set" },
		{ offsetof(struct cap_sets, ambient), "ambient set" },
		{ offsetof(struct cap_sets, bounding), "bounding set" },
	};
	static const uint64_t bits[] = { 1, 1ull << 21, 1ull << 40, 1ull << 63 };
	for (size_t i = 0; i < sizeof(sets) / sizeof(sets[0]); i++) {
		for (size_t b = 0; b < sizeof(bits) / sizeof(bits[0]); b++) {
			struct cap_sets s;
			memset(&s, 0, sizeof(s));
			memcpy((char *)&s + sets[i].off, &bits[b], sizeof(uint64_t));
			struct cordon_err e;
			memset(&e, 0, sizeof(e));
			cr_assert_eq(caps_check_empty(&s, &e), -EPERM, "%s bit %zu passed",
				     sets[i].name, b);
			cr_assert_eq(e.err, EPERM);
			cr_assert_eq(e.exit_code, EXIT_CORDON_FAILED);
			cr_assert_not_null(strstr(e.msg, sets[i].name), "want '%s' in: %s",
					   sets[i].name, e.msg);
			char hex[32];
			snprintf(hex, sizeof(hex), "0x%llx", (unsigned long long)bits[b]);
			cr_assert_not_null(strstr(e.msg, hex), "want %s in: %s", hex, e.msg);
		}
	}
}

Test(caps_check_empty, first_non_empty_set_named)
{
	struct cap_sets s = { 0, 4, 0, 0, 8 };
	struct cordon_err e;
	memset(&e, 0, sizeof(e));
	cr_assert_eq(caps_check_empty(&s, &e), -EPERM);
	cr_assert_not_null(strstr(e.msg, "permitted set 0x4"), "%s", e.msg);
}

Test(caps_read, reads_this_process)
{
	/* Whatever this process holds, caps_read must agree with the kernel's
	 * own view in /proc/self/status. */
	struct cap_sets s;
	struct cordon_err e;
	memset(&e, 0, sizeof(e));
	cr_assert_eq(caps_read(&s, &e), 0, "%s", e.msg);
	FILE *f = fopen("/proc/self/status", "re");
	cr_assert_not_null(f);
	char line[256];
	int seen = 0;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long v;
		if (sscanf(line, "CapEff: %llx", &v) == 1)
			{ cr_assert_eq(s.effective, v); seen++; }
		else if (sscanf(line, "CapPrm: %llx", &v) == 1)
			{ cr_assert_eq(s.permitted, v); seen++; }
		else if (sscanf(line, "CapInh: %llx", &v) == 1)
			{ cr_assert_eq(s.inheritable, v); seen++; }
		else if (sscanf(line, "CapBnd: %llx", &v) == 1)
			{ cr_assert_eq(s.bounding, v); seen++; }
		else if (sscanf(line, "CapAmb: %llx", &v) == 1)
			{ cr_assert_eq(s.ambient, v); seen++; }
	}
	fclose(f);
	cr_assert_eq(seen, 5);
}
