/* proto_socks5.h: SOCKS5 (RFC 1928) as the bridge speaks it: the no-auth
 * method only, the CONNECT command only, with a domain name, IPv4 or IPv6
 * address.  The client sends a greeting, waits for the method reply, then
 * sends one request.
 *
 * Belongs here: the bounded parsers and the reply bytes.  Pure. */
#ifndef CORDON_BRIDGE_PROTO_SOCKS5_H
#define CORDON_BRIDGE_PROTO_SOCKS5_H

#include <stddef.h>
#include <stdint.h>

#include "host.h"

/* Reply codes (RFC 1928 section 6). */
enum {
	SOCKS5_OK = 0x00,
	SOCKS5_GENERAL = 0x01,
	SOCKS5_NOT_ALLOWED = 0x02,
	SOCKS5_NET_UNREACHABLE = 0x03,
	SOCKS5_HOST_UNREACHABLE = 0x04,
	SOCKS5_REFUSED = 0x05,
	SOCKS5_TTL = 0x06,
	SOCKS5_CMD_UNSUPPORTED = 0x07,
	SOCKS5_ATYP_UNSUPPORTED = 0x08,
};

#define SOCKS5_GREETING_MAX 257  /* VER NMETHODS METHODS[255] */
#define SOCKS5_REQUEST_MAX 262   /* VER CMD RSV ATYP LEN NAME[255] PORT[2] */
#define SOCKS5_REPLY_LEN 10

enum socks5_greeting {
	SOCKS5_G_MORE = 0,      /* need more bytes */
	SOCKS5_G_NOAUTH = 1,    /* no-auth offered: reply 05 00 */
	SOCKS5_G_NO_METHOD = -1,/* valid, but no-auth not offered: reply 05 FF, close */
	SOCKS5_G_BAD = -2,      /* not SOCKS5: close */
};

/* The greeting in b[0..len); *used gets its length when complete. */
enum socks5_greeting socks5_greeting(const unsigned char *b, size_t len, size_t *used);

struct socks5_req {
	struct host host;
	uint16_t port;
	size_t len;        /* bytes of the request */
};

/* The request in b[0..len): 0 need more; 1 *r filled; <0 -code to reply
 * with before closing (SOCKS5_GENERAL for garbage or a name host_canon
 * refuses, SOCKS5_CMD_UNSUPPORTED, SOCKS5_ATYP_UNSUPPORTED). */
int socks5_request(const unsigned char *b, size_t len, struct socks5_req *r);

/* The reply with code and an all-zero IPv4 bound address, into out. */
void socks5_reply(unsigned char code, unsigned char out[SOCKS5_REPLY_LEN]);

#endif
