/* host.c: see host.h. */
#include "host.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include "hex.h"

static int hc_is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* One inet_aton part: decimal, 0-octal or 0x-hex, at most 0xffffffff.
 * Unlike glibc's inet_aton, nothing may follow it (glibc accepts "127.1 x"). */
static int hc_aton_part(const char *s, size_t len, uint32_t *v)
{
	unsigned base = 10;
	uint64_t acc = 0;
	size_t i = 0;
	if (len == 0)
		return -1;
	if (len >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		i = 2;
		if (len == 2)
			return -1;
	} else if (len >= 2 && s[0] == '0') {
		base = 8;
		i = 1;
	}
	for (; i < len; i++) {
		int d = base == 16 ? hex_digit(s[i]) : hc_is_digit(s[i]) ? s[i] - '0' : -1;
		if (d < 0 || (unsigned)d >= base)
			return -1;
		acc = acc * base + (unsigned)d;
		if (acc > 0xffffffffu)
			return -1;
	}
	*v = (uint32_t)acc;
	return 0;
}

/* The inet_aton grammar: a, a.b (b 24 bits), a.b.c (c 16 bits), a.b.c.d. */
static int hc_aton(const char *s, size_t len, unsigned char out[4])
{
	uint32_t part[4];
	size_t n = 0, start = 0;
	for (size_t i = 0; i <= len; i++) {
		if (i < len && s[i] != '.')
			continue;
		if (n == 4 || hc_aton_part(s + start, i - start, &part[n]) < 0)
			return -1;
		n++;
		start = i + 1;
	}
	uint32_t v = 0;
	for (size_t i = 0; i + 1 < n; i++) {
		if (part[i] > 0xff)
			return -1;
		v |= part[i] << (24 - 8 * i);
	}
	uint32_t last_max = n == 1 ? 0xffffffffu : 0xffffffffu >> (8 * (n - 1));
	if (part[n - 1] > last_max)
		return -1;
	v |= part[n - 1];
	out[0] = (unsigned char)(v >> 24);
	out[1] = (unsigned char)(v >> 16);
	out[2] = (unsigned char)(v >> 8);
	out[3] = (unsigned char)v;
	return 0;
}

static void hc_set_v4(struct host *h, const unsigned char a[4])
{
	h->kind = HOST_IPV4;
	memset(h->addr, 0, sizeof(h->addr));
	memcpy(h->addr, a, 4);
	(void)snprintf(h->text, sizeof(h->text), "%u.%u.%u.%u", a[0], a[1], a[2], a[3]);
}

static int hc_ipv6(const char *s, size_t len, struct host *h)
{
	static const unsigned char mapped[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };
	char buf[INET6_ADDRSTRLEN];
	unsigned char a[16];
	if (len == 0 || len >= sizeof(buf))
		return -EINVAL;
	for (size_t i = 0; i < len; i++)
		if (!(hex_digit(s[i]) >= 0 || s[i] == ':' || s[i] == '.'))
			return -EINVAL; /* a zone index (%eth0) among others */
	memcpy(buf, s, len);
	buf[len] = '\0';
	if (inet_pton(AF_INET6, buf, a) != 1)
		return -EINVAL;
	if (memcmp(a, mapped, sizeof(mapped)) == 0) {
		hc_set_v4(h, a + 12);
		return 0;
	}
	h->kind = HOST_IPV6;
	memcpy(h->addr, a, 16);
	if (!inet_ntop(AF_INET6, a, h->text, sizeof(h->text)))
		return -EINVAL;
	return 0;
}

static int hc_name_char(char c)
{
	return (c >= 'a' && c <= 'z') || hc_is_digit(c) || c == '-' || c == '_';
}

/* A last label of digits only, or 0x and hex digits: every resolver that
 * falls back to inet_aton reads such a name as an address. */
static int hc_numeric_label(const char *s, size_t len)
{
	if (len >= 2 && s[0] == '0' && s[1] == 'x') {
		for (size_t i = 2; i < len; i++)
			if (hex_digit(s[i]) < 0)
				return 0;
		return 1;
	}
	for (size_t i = 0; i < len; i++)
		if (!hc_is_digit(s[i]))
			return 0;
	return 1;
}

static int hc_name(const char *in, size_t len, struct host *h)
{
	char buf[HOST_NAME_MAX_LEN + 1];
	if (len > 0 && in[len - 1] == '.')
		len--;
	if (len == 0 || len > HOST_NAME_MAX_LEN)
		return -EINVAL;
	size_t label = 0, last_start = 0;
	for (size_t i = 0; i < len; i++) {
		char c = in[i];
		if (c >= 'A' && c <= 'Z')
			c = (char)(c - 'A' + 'a');
		buf[i] = c;
		if (c == '.') {
			if (label == 0)
				return -EINVAL;
			label = 0;
			last_start = i + 1;
			continue;
		}
		if (!hc_name_char(c) || ++label > 63)
			return -EINVAL;
	}
	if (label == 0)
		return -EINVAL;
	buf[len] = '\0';
	unsigned char a[4];
	if (hc_aton(buf, len, a) == 0) {
		hc_set_v4(h, a);
		return 0;
	}
	if (hc_numeric_label(buf + last_start, len - last_start))
		return -EINVAL;
	h->kind = HOST_NAME;
	memset(h->addr, 0, sizeof(h->addr));
	memcpy(h->text, buf, len + 1);
	return 0;
}

int host_canon(const char *in, size_t len, struct host *h)
{
	struct host tmp;
	int r;
	if (!in || len == 0 || len > HOST_NAME_MAX_LEN + 2)
		return -EINVAL;
	if (in[0] == '[') {
		if (len < 3 || in[len - 1] != ']')
			return -EINVAL;
		r = hc_ipv6(in + 1, len - 2, &tmp);
	} else if (memchr(in, ':', len)) {
		r = hc_ipv6(in, len, &tmp);
	} else {
		r = hc_name(in, len, &tmp);
	}
	if (r < 0)
		return -EINVAL;
	*h = tmp;
	return 0;
}
