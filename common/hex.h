/* hex.h: the value of one hexadecimal digit, for every parser that reads
 * them (%XX escapes, 0x numbers, HTTP chunk sizes, /proc masks).  Header
 * only: the parsers on a hot path (the bridge's) keep it inlined. */
#ifndef CORDON_HEX_H
#define CORDON_HEX_H

/* 0-15 for '0'-'9', 'a'-'f' and 'A'-'F'; -1 for anything else (a negative
 * char included). */
static inline int hex_digit(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

#endif
