/* chunked.c: see chunked.h. */
#include "chunked.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>
#include "hex.h"

enum {
	CK_SIZE = 0, /* zeroed state: the first size line */
	CK_BWS,      /* whitespace after the size: only ';' or CR may follow */
	CK_EXT,      /* chunk extensions, dropped */
	CK_SIZE_LF,
	CK_DATA,
	CK_DATA_CR,
	CK_DATA_LF,
	CK_TRAILER_START,
	CK_TRAILER,
	CK_TRAILER_LF,
	CK_END_LF,
	CK_DONE,
	CK_BAD,
};

void chunked_init(struct chunked *k)
{
	memset(k, 0, sizeof(*k));
}

static int ck_tchar(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       (c && strchr("!#$%&'*+-.^_`|~", c) != NULL);
}

/* Framing fields in a trailer would let it redefine the message it ends. */
static int ck_forbidden_trailer(const char *name, size_t len)
{
	static const char *const bad[] = { "content-length", "transfer-encoding", "host" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (len == strlen(bad[i]) && strncasecmp(name, bad[i], len) == 0)
			return 1;
	return 0;
}

/* One byte of a trailer line (CR excluded): 0 or -1. */
static int ck_trailer_byte(struct chunked *k, unsigned char c)
{
	if (++k->line > CHUNKED_TRAILER_LINE_MAX || ++k->trailers > CHUNKED_TRAILERS_MAX)
		return -1;
	if (!k->digits) { /* the name, before the colon */
		if (c == ':') {
			if (k->line == 1 || (k->line - 1 < sizeof(k->name) &&
					     ck_forbidden_trailer(k->name, k->line - 1)))
				return -1;
			k->digits = 1;
			return 0;
		}
		if (!ck_tchar(c))
			return -1;
		if (k->line - 1 < sizeof(k->name))
			k->name[k->line - 1] = (char)c;
		return 0;
	}
	return (c < 0x20 && c != '\t') || c == 0x7f ? -1 : 0;
}

enum chunked_result chunked_feed(struct chunked *k, const char *in, size_t len, size_t *used,
				 char *out, size_t *outlen)
{
	size_t i = 0, o = 0;
	while (i < len && k->st != CK_DONE && k->st != CK_BAD) {
		unsigned char c = (unsigned char)in[i];
		int h, size_line = k->st <= CK_SIZE_LF;
		switch (k->st) {
		case CK_SIZE:
			if ((h = hex_digit(c)) >= 0 && k->digits < CHUNKED_SIZE_DIGITS) {
				k->size = k->size << 4 | (uint64_t)h;
				k->digits++;
			} else if (k->digits && (c == ' ' || c == '\t')) {
				k->st = CK_BWS;
			} else if (k->digits && c == ';') {
				k->st = CK_EXT;
			} else if (k->digits && c == '\r') {
				k->st = CK_SIZE_LF;
			} else {
				k->st = CK_BAD;
			}
			break;
		case CK_BWS:
			if (c == ';')
				k->st = CK_EXT;
			else if (c == '\r')
				k->st = CK_SIZE_LF;
			else if (c != ' ' && c != '\t')
				k->st = CK_BAD;
			break;
		case CK_EXT:
			if (c == '\r')
				k->st = CK_SIZE_LF;
			else if ((c < 0x20 && c != '\t') || c == 0x7f)
				k->st = CK_BAD;
			break;
		case CK_SIZE_LF:
			if (c != '\n') {
				k->st = CK_BAD;
				break;
			}
			o += (size_t)snprintf(out + o, CHUNKED_SLACK, "%llx\r\n", (unsigned long long)k->size);
			k->st = k->size ? CK_DATA : CK_TRAILER_START;
			k->line = 0;
			k->digits = 0;
			break;
		case CK_DATA: {
			size_t n = len - i < k->size ? len - i : (size_t)k->size;
			memcpy(out + o, in + i, n);
			o += n;
			i += n;
			k->size -= n;
			if (!k->size)
				k->st = CK_DATA_CR;
			continue;
		}
		case CK_DATA_CR:
			k->st = c == '\r' ? CK_DATA_LF : CK_BAD;
			break;
		case CK_DATA_LF:
			if (c != '\n') {
				k->st = CK_BAD;
				break;
			}
			out[o++] = '\r';
			out[o++] = '\n';
			k->st = CK_SIZE;
			k->size = 0;
			k->line = 0;
			break;
		case CK_TRAILER_START:
			if (c == '\r') {
				k->st = CK_END_LF;
				break;
			}
			k->line = 0;
			k->digits = 0;
			k->st = CK_TRAILER;
			continue; /* the same byte, as the line's first */
		case CK_TRAILER:
			if (c == '\r') {
				k->st = k->digits ? CK_TRAILER_LF : CK_BAD;
				break;
			}
			if (ck_trailer_byte(k, c) < 0) {
				k->st = CK_BAD;
				break;
			}
			out[o++] = (char)c;
			break;
		case CK_TRAILER_LF:
		case CK_END_LF:
			if (c != '\n' || ++k->trailers > CHUNKED_TRAILERS_MAX) {
				k->st = CK_BAD;
				break;
			}
			out[o++] = '\r';
			out[o++] = '\n';
			k->st = k->st == CK_END_LF ? CK_DONE : CK_TRAILER_START;
			break;
		default:
			k->st = CK_BAD;
			break;
		}
		if (size_line && ++k->line > CHUNKED_LINE_MAX)
			k->st = CK_BAD;
		i++;
	}
	*used = i;
	*outlen = o;
	return k->st == CK_DONE ? CHUNKED_DONE : k->st == CK_BAD ? CHUNKED_BAD : CHUNKED_MORE;
}
