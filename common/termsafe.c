/* termsafe.c: see termsafe.h. */
#include "termsafe.h"

#include <stdint.h>
#include <string.h>

/* The length of the well-formed UTF-8 sequence at s (at most n bytes) and
 * its code point, or 0 if there is none. */
static size_t utf8_seq(const unsigned char *s, size_t n, uint32_t *cp)
{
	size_t len;
	uint32_t c, min;
	if (s[0] >= 0xc2 && s[0] <= 0xdf) {
		len = 2, c = s[0] & 0x1f, min = 0x80;
	} else if (s[0] >= 0xe0 && s[0] <= 0xef) {
		len = 3, c = s[0] & 0x0f, min = 0x800;
	} else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		len = 4, c = s[0] & 0x07, min = 0x10000;
	} else {
		return 0;
	}
	if (len > n)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		c = c << 6 | (s[i] & 0x3f);
	}
	if (c < min || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
		return 0;
	*cp = c;
	return len;
}

/* Characters that act on the display although they print nothing. */
static int shown_as_is(uint32_t c)
{
	if (c >= 0x80 && c <= 0x9f)
		return 0;
	if (c == 0x061c || c == 0x200e || c == 0x200f || (c >= 0x202a && c <= 0x202e) ||
	    (c >= 0x2066 && c <= 0x2069))
		return 0;
	return 1;
}

/* The next piece of s's escaped form into piece (at most 5 bytes): its
 * length; *used the input bytes it stands for. */
static size_t next_piece(const unsigned char *s, size_t n, char piece[5], size_t *used)
{
	static const char hex[] = "0123456789abcdef";
	uint32_t cp;
	size_t len;
	*used = 1;
	if (s[0] == '\\') {
		piece[0] = piece[1] = '\\';
		return 2;
	}
	if (s[0] >= 0x20 && s[0] < 0x7f) {
		piece[0] = (char)s[0];
		return 1;
	}
	if (s[0] >= 0x80 && (len = utf8_seq(s, n, &cp)) > 0 && shown_as_is(cp)) {
		memcpy(piece, s, len);
		*used = len;
		return len;
	}
	piece[0] = '\\';
	piece[1] = 'x';
	piece[2] = hex[s[0] >> 4];
	piece[3] = hex[s[0] & 0xf];
	return 4;
}

size_t termsafe(char *out, size_t cap, const char *s, size_t n)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t need = 0, at = 0, used;
	int full = 0;
	char piece[5];
	for (size_t i = 0; i < n; i += used) {
		size_t len = next_piece(u + i, n - i, piece, &used);
		if (!full && at + len < cap) {
			memcpy(out + at, piece, len);
			at += len;
		} else {
			full = 1;
		}
		need += len;
	}
	if (cap)
		out[at] = '\0';
	return need;
}

void termsafe_fputs(FILE *f, const char *s)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t n = strlen(s), used;
	char piece[5];
	for (size_t i = 0; i < n; i += used) {
		size_t len = next_piece(u + i, n - i, piece, &used);
		(void)fwrite(piece, 1, len, f);
	}
}
