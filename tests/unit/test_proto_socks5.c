/* test_proto_socks5.c: greeting, request with each address type, refusals. */
#include <criterion/criterion.h>

#include <string.h>

#include "proto_socks5.h"

Test(socks5, greeting)
{
	size_t used = 0;
	static const unsigned char ok[] = { 5, 2, 2, 0 };
	cr_assert_eq(socks5_greeting(ok, 0, &used), SOCKS5_G_MORE);
	cr_assert_eq(socks5_greeting(ok, 1, &used), SOCKS5_G_MORE);
	cr_assert_eq(socks5_greeting(ok, 3, &used), SOCKS5_G_MORE);
	cr_assert_eq(socks5_greeting(ok, 4, &used), SOCKS5_G_NOAUTH);
	cr_assert_eq(used, 4);
	static const unsigned char auth_only[] = { 5, 1, 2 };
	cr_assert_eq(socks5_greeting(auth_only, 3, &used), SOCKS5_G_NO_METHOD);
	static const unsigned char v4[] = { 4, 1, 0 };
	cr_assert_eq(socks5_greeting(v4, 3, &used), SOCKS5_G_BAD);
	static const unsigned char none[] = { 5, 0 };
	cr_assert_eq(socks5_greeting(none, 2, &used), SOCKS5_G_BAD);
	static const unsigned char http[] = "GET";
	cr_assert_eq(socks5_greeting(http, 3, &used), SOCKS5_G_BAD);
}

Test(socks5, request_domain)
{
	unsigned char b[64] = { 5, 1, 0, 3, 12 };
	memcpy(b + 5, "Allowed.TEST", 12);
	b[17] = 0x1f;
	b[18] = 0x90;
	struct socks5_req r;
	for (size_t len = 0; len < 19; len++)
		cr_assert_eq(socks5_request(b, len, &r), 0, "len %zu", len);
	cr_assert_eq(socks5_request(b, 19, &r), 1);
	cr_assert_str_eq(r.host.text, "allowed.test");
	cr_assert_eq(r.port, 8080);
	cr_assert_eq(r.len, 19);
	/* A domain that spells an address is that address. */
	b[4] = 5;
	memcpy(b + 5, "127.1", 5);
	b[10] = 0;
	b[11] = 80;
	cr_assert_eq(socks5_request(b, 12, &r), 1);
	cr_assert_eq(r.host.kind, HOST_IPV4);
	cr_assert_str_eq(r.host.text, "127.0.0.1");
}

Test(socks5, request_addresses)
{
	struct socks5_req r;
	static const unsigned char v4[] = { 5, 1, 0, 1, 10, 0, 0, 1, 0, 22 };
	cr_assert_eq(socks5_request(v4, sizeof(v4), &r), 1);
	cr_assert_str_eq(r.host.text, "10.0.0.1");
	cr_assert_eq(r.port, 22);
	unsigned char v6[22] = { 5, 1, 0, 4 };
	v6[19] = 1;
	v6[21] = 80;
	cr_assert_eq(socks5_request(v6, sizeof(v6), &r), 1);
	cr_assert_eq(r.host.kind, HOST_IPV6);
	cr_assert_str_eq(r.host.text, "::1");
	v6[14] = v6[15] = 0xff;
	v6[16] = 127;
	cr_assert_eq(socks5_request(v6, sizeof(v6), &r), 1);
	cr_assert_eq(r.host.kind, HOST_IPV4);
}

Test(socks5, request_refusals)
{
	struct socks5_req r;
	static const unsigned char bind[] = { 5, 2, 0, 1, 1, 2, 3, 4, 0, 80 };
	cr_assert_eq(socks5_request(bind, sizeof(bind), &r), -SOCKS5_CMD_UNSUPPORTED);
	static const unsigned char udp[] = { 5, 3, 0, 1, 1, 2, 3, 4, 0, 80 };
	cr_assert_eq(socks5_request(udp, sizeof(udp), &r), -SOCKS5_CMD_UNSUPPORTED);
	static const unsigned char atyp[] = { 5, 1, 0, 9 };
	cr_assert_eq(socks5_request(atyp, sizeof(atyp), &r), -SOCKS5_ATYP_UNSUPPORTED);
	static const unsigned char ver[] = { 4 };
	cr_assert_eq(socks5_request(ver, 1, &r), -SOCKS5_GENERAL);
	static const unsigned char rsv[] = { 5, 1, 1 };
	cr_assert_eq(socks5_request(rsv, 3, &r), -SOCKS5_GENERAL);
	static const unsigned char empty[] = { 5, 1, 0, 3, 0, 0, 80 };
	cr_assert_eq(socks5_request(empty, sizeof(empty), &r), -SOCKS5_GENERAL);
	static const unsigned char port0[] = { 5, 1, 0, 1, 1, 2, 3, 4, 0, 0 };
	cr_assert_eq(socks5_request(port0, sizeof(port0), &r), -SOCKS5_GENERAL);
	static const unsigned char nul[] = { 5, 1, 0, 3, 3, 'a', 0, 'b', 0, 80 };
	cr_assert_eq(socks5_request(nul, sizeof(nul), &r), -SOCKS5_GENERAL);
	static const unsigned char crlf[] = { 5, 1, 0, 3, 3, 'a', '\r', '\n', 0, 80 };
	cr_assert_eq(socks5_request(crlf, sizeof(crlf), &r), -SOCKS5_GENERAL);
}

Test(socks5, reply)
{
	unsigned char out[SOCKS5_REPLY_LEN];
	socks5_reply(SOCKS5_NOT_ALLOWED, out);
	static const unsigned char want[] = { 5, 2, 0, 1, 0, 0, 0, 0, 0, 0 };
	cr_assert_eq(memcmp(out, want, sizeof(want)), 0);
}
