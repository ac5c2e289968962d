/* test_hex.c: the hex-digit helper. */
#include <criterion/criterion.h>

#include "hex.h"

Test(hex, every_byte)
{
	for (int c = -128; c < 256; c++) {
		int want = -1;
		if (c >= '0' && c <= '9')
			want = c - '0';
		else if (c >= 'a' && c <= 'f')
			want = c - 'a' + 10;
		else if (c >= 'A' && c <= 'F')
			want = c - 'A' + 10;
		cr_assert_eq(hex_digit(c), want, "hex_digit(%d) = %d, want %d", c, hex_digit(c), want);
	}
}

Test(hex, edges)
{
	cr_assert_eq(hex_digit('0'), 0);
	cr_assert_eq(hex_digit('9'), 9);
	cr_assert_eq(hex_digit('a'), 10);
	cr_assert_eq(hex_digit('F'), 15);
	cr_assert_eq(hex_digit('g'), -1);
	cr_assert_eq(hex_digit('G'), -1);
	cr_assert_eq(hex_digit('/'), -1);
	cr_assert_eq(hex_digit(':'), -1);
	cr_assert_eq(hex_digit('@'), -1);
	cr_assert_eq(hex_digit('`'), -1);
	cr_assert_eq(hex_digit('\0'), -1);
	cr_assert_eq(hex_digit((char)0xe1), -1);
}
