/* proto_socks5.c: see proto_socks5.h. */
#include "proto_socks5.h"

#include <arpa/inet.h>
#include <string.h>

enum socks5_greeting socks5_greeting(const unsigned char *b, size_t len, size_t *used)
{
	if (len < 1)
		return SOCKS5_G_MORE;
	if (b[0] != 5)
		return SOCKS5_G_BAD;
	if (len < 2)
		return SOCKS5_G_MORE;
	size_t n = b[1];
	if (n == 0)
		return SOCKS5_G_BAD;
	if (len < 2 + n)
		return SOCKS5_G_MORE;
	*used = 2 + n;
	return memchr(b + 2, 0x00, n) ? SOCKS5_G_NOAUTH : SOCKS5_G_NO_METHOD;
}

int socks5_request(const unsigned char *b, size_t len, struct socks5_req *r)
{
	struct socks5_req out;
	size_t need = 4;
	memset(&out, 0, sizeof(out));
	if (len >= 1 && b[0] != 5)
		return -SOCKS5_GENERAL;
	if (len >= 3 && b[2] != 0)
		return -SOCKS5_GENERAL;
	if (len < 4)
		return 0;
	if (b[1] != 1)
		return -SOCKS5_CMD_UNSUPPORTED; /* BIND and UDP ASSOCIATE: never */
	switch (b[3]) {
	case 1:
		need += 4;
		break;
	case 4:
		need += 16;
		break;
	case 3:
		if (len < 5)
			return 0;
		if (b[4] == 0)
			return -SOCKS5_GENERAL;
		need += 1 + (size_t)b[4];
		break;
	default:
		return -SOCKS5_ATYP_UNSUPPORTED;
	}
	need += 2;
	if (len < need)
		return 0;
	int ok;
	if (b[3] == 1) {
		char text[INET_ADDRSTRLEN];
		ok = inet_ntop(AF_INET, b + 4, text, sizeof(text)) &&
		     host_canon(text, strlen(text), &out.host) == 0;
	} else if (b[3] == 4) {
		char text[INET6_ADDRSTRLEN];
		ok = inet_ntop(AF_INET6, b + 4, text, sizeof(text)) &&
		     host_canon(text, strlen(text), &out.host) == 0;
	} else {
		ok = host_canon((const char *)b + 5, b[4], &out.host) == 0;
	}
	if (!ok)
		return -SOCKS5_GENERAL;
	out.port = (uint16_t)((b[need - 2] << 8) | b[need - 1]);
	if (out.port == 0)
		return -SOCKS5_GENERAL;
	out.len = need;
	*r = out;
	return 1;
}

void socks5_reply(unsigned char code, unsigned char out[SOCKS5_REPLY_LEN])
{
	memset(out, 0, SOCKS5_REPLY_LEN);
	out[0] = 5;
	out[1] = code;
	out[3] = 1;
}
