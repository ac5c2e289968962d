/* test_json_out.c: the writer's output, escaping, bounds and misuse. */
#include <criterion/criterion.h>

#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "json_out.h"

Test(json_out, nested_values)
{
	struct json_out j;
	json_out_init(&j, 4096);
	json_out_object(&j, NULL);
	json_out_str(&j, "s", "a\"b\\c\n\x01");
	json_out_int(&j, "i", -3);
	json_out_uint(&j, "u", 18446744073709551615ULL);
	json_out_bool(&j, "t", 1);
	json_out_null(&j, "n");
	json_out_str(&j, "z", NULL);
	json_out_array(&j, "a");
	json_out_int(&j, NULL, 1);
	json_out_object(&j, NULL);
	json_out_end(&j);
	json_out_array(&j, NULL);
	json_out_end(&j);
	json_out_end(&j);
	json_out_double(&j, "d", 1.5);
	json_out_end(&j);
	cr_assert_eq(json_out_finish(&j), 0);
	cr_assert_str_eq(j.buf, "{\"s\":\"a\\\"b\\\\c\\n\\u0001\",\"i\":-3,"
			 "\"u\":18446744073709551615,\"t\":true,\"n\":null,\"z\":null,"
			 "\"a\":[1,{},[]],\"d\":1.500000}");
	json_out_free(&j);
}

Test(json_out, nonzero_and_string_arrays)
{
	const char *argv[] = { "sh", "-c", NULL, "never" };
	const char *two[] = { "a", "b", "c" };
	struct json_out j;
	json_out_init(&j, 4096);
	json_out_object(&j, NULL);
	json_out_nonzero(&j, "zero", 0);
	json_out_nonzero(&j, "some", 15);
	json_out_strs(&j, "argv", argv, SIZE_MAX);
	json_out_strs(&j, "two", two, 2);
	json_out_strs(&j, "none", NULL, SIZE_MAX);
	json_out_end(&j);
	cr_assert_eq(json_out_finish(&j), 0);
	cr_assert_str_eq(j.buf, "{\"zero\":null,\"some\":15,\"argv\":[\"sh\",\"-c\"],"
			 "\"two\":[\"a\",\"b\"],\"none\":[]}");
	json_out_free(&j);
}

Test(json_out, utf8_passes_and_other_bytes_are_escaped)
{
	struct json_out j;
	json_out_init(&j, 4096);
	json_out_array(&j, NULL);
	json_out_str(&j, NULL, "\xc3\xa9\xe2\x82\xac");       /* é € */
	json_out_str(&j, NULL, "\xff\xc3(\xed\xa0\x80\xc0\xaf"); /* not UTF-8 */
	json_out_end(&j);
	cr_assert_eq(json_out_finish(&j), 0);
	cr_assert_str_eq(j.buf, "[\"\xc3\xa9\xe2\x82\xac\","
			 "\"\\u00ff\\u00c3(\\u00ed\\u00a0\\u0080\\u00c0\\u00af\"]");
	json_out_free(&j);
}

Test(json_out, cap_stops_writing)
{
	struct json_out j;
	json_out_init(&j, 16);
	json_out_array(&j, NULL);
	for (int i = 0; i < 100; i++)
		json_out_str(&j, NULL, "xxxxxxxx");
	json_out_end(&j);
	cr_assert_eq(json_out_finish(&j), -ENOSPC);
	cr_assert_lt(j.len, 16);
	json_out_free(&j);
}

Test(json_out, unbalanced_is_an_error)
{
	struct json_out j;
	json_out_init(&j, 64);
	json_out_object(&j, NULL);
	cr_assert_eq(json_out_finish(&j), -EINVAL);
	json_out_free(&j);
	json_out_init(&j, 64);
	json_out_end(&j);
	cr_assert_eq(json_out_finish(&j), -EINVAL);
	json_out_free(&j);
	json_out_init(&j, 64);
	cr_assert_eq(json_out_finish(&j), 0);
	cr_assert_str_eq(j.buf, "");
	json_out_free(&j);
}
