/* test_termsafe.c: names from the sandbox shown on a terminal (issue 30,
 * item 8): every byte that could act on a terminal is escaped, printable
 * text and UTF-8 are kept, distinct names stay distinct. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "termsafe.h"

static const char *esc(const char *s, size_t n)
{
	static char out[256];
	size_t need = termsafe(out, sizeof(out), s, n);
	cr_assert_eq(need, strlen(out));
	return out;
}

#define ESC(lit) esc(lit, sizeof(lit) - 1)

Test(termsafe, printable_ascii_as_is)
{
	cr_assert_str_eq(ESC("refs/heads/main-1.2_x"), "refs/heads/main-1.2_x");
}

Test(termsafe, controls_esc_and_del_escaped)
{
	cr_assert_str_eq(ESC("a\x1b[2Kb"), "a\\x1b[2Kb");
	cr_assert_str_eq(ESC("x\ry\n\t\b\x7f"), "x\\x0dy\\x0a\\x09\\x08\\x7f");
	cr_assert_str_eq(esc("a\0b", 3), "a\\x00b");
}

Test(termsafe, backslash_doubled_so_names_stay_distinct)
{
	cr_assert_str_eq(ESC("a\\x1b"), "a\\\\x1b");
	cr_assert_str_eq(ESC("a\x1b"), "a\\x1b", "the escape of ESC differs from the text \\x1b");
}

Test(termsafe, utf8_kept_c1_bidi_and_malformed_escaped)
{
	cr_assert_str_eq(ESC("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80"),
			 "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80");
	cr_assert_str_eq(ESC("\xc2\x9b" "2J"), "\\xc2\\x9b2J", "C1 CSI");
	cr_assert_str_eq(ESC("a\xe2\x80\xae" "b"), "a\\xe2\\x80\\xaeb", "right-to-left override");
	cr_assert_str_eq(ESC("\xff\xfe"), "\\xff\\xfe");
	cr_assert_str_eq(ESC("\xc0\xaf"), "\\xc0\\xaf", "overlong");
	cr_assert_str_eq(ESC("\xed\xa0\x80"), "\\xed\\xa0\\x80", "surrogate");
	cr_assert_str_eq(ESC("\xe2\x82"), "\\xe2\\x82", "truncated");
}

Test(termsafe, cut_short_at_a_whole_escape)
{
	char out[6];
	cr_assert_eq(termsafe(out, sizeof(out), "ab\x1b" "cd", 5), 8);
	cr_assert_str_eq(out, "ab");
}

Test(termsafe, fputs_matches)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	cr_assert_not_null(f);
	termsafe_fputs(f, "x\x1b]0;t\x07\xc3\xa9");
	cr_assert_eq(fclose(f), 0);
	cr_assert_str_eq(buf, "x\\x1b]0;t\\x07\xc3\xa9");
	free(buf);
}
