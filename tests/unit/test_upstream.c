/* test_upstream.c: the --proxy-upstream spec, the CONNECT head with the
 * attribution header, and the upstream's reply. */
#include <criterion/criterion.h>

#include <errno.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/un.h>

#include "upstream.h"

Test(upstream, parse)
{
	struct upstream u;
	struct cordon_err e;
	cr_assert_eq(upstream_parse("tcp:127.0.0.1:3129", "run-42", NULL, &u, &e), 0, "%s", e.msg);
	cr_assert_eq(u.sa.ss_family, AF_INET);
	cr_assert_eq(ntohs(((struct sockaddr_in *)&u.sa)->sin_port), 3129);
	cr_assert_str_eq(u.token, "run-42");
	cr_assert_eq(upstream_parse("tcp:[::1]:8080", NULL, NULL, &u, &e), 0, "%s", e.msg);
	cr_assert_eq(u.sa.ss_family, AF_INET6);
	cr_assert_eq(upstream_parse("unix:/run/proxy.sock", NULL, NULL, &u, &e), 0);
	cr_assert_str_eq(((struct sockaddr_un *)&u.sa)->sun_path, "/run/proxy.sock");
	cr_assert_lt(upstream_parse("unix:relative", NULL, NULL, &u, &e), 0);
	cr_assert_lt(upstream_parse("tcp:127.0.0.1", NULL, NULL, &u, &e), 0);
	cr_assert_lt(upstream_parse("tcp:127.0.0.1:0", NULL, NULL, &u, &e), 0);
	cr_assert_lt(upstream_parse("tcp:127.0.0.1:-1", NULL, NULL, &u, &e), 0);
	cr_assert_lt(upstream_parse("http://x:1", NULL, NULL, &u, &e), 0);
	cr_assert_lt(upstream_parse("tcp:127.0.0.1:1", "a b", NULL, &u, &e), 0, "a space would end the header");
	cr_assert_lt(upstream_parse("tcp:127.0.0.1:1", "a\r\nX-Evil: 1", NULL, &u, &e), 0);
}

Test(upstream, connect_head)
{
	struct upstream u;
	cr_assert_eq(upstream_parse("tcp:127.0.0.1:1", "tok", NULL, &u, NULL), 0);
	struct host h;
	cr_assert_eq(host_canon("A.test", 6, &h), 0);
	char out[256];
	ssize_t n = upstream_connect_head(&u, &h, 443, out, sizeof(out));
	cr_assert_gt(n, 0);
	out[n] = '\0';
	cr_assert_str_eq(out, "CONNECT a.test:443 HTTP/1.1\r\nHost: a.test:443\r\n"
			      "X-Cordon-Attribution: tok\r\n\r\n");
	cr_assert_eq(upstream_parse("tcp:127.0.0.1:1", NULL, NULL, &u, NULL), 0);
	cr_assert_eq(host_canon("[::1]", 5, &h), 0);
	n = upstream_connect_head(&u, &h, 22, out, sizeof(out));
	out[n] = '\0';
	cr_assert_str_eq(out, "CONNECT [::1]:22 HTTP/1.1\r\nHost: [::1]:22\r\n\r\n");
	cr_assert_eq(upstream_connect_head(&u, &h, 22, out, 10), -ENOSPC);
}

Test(upstream, reply)
{
	cr_assert_eq(upstream_reply("HTTP/1.1 200 OK\r\n", 17), 0);
	cr_assert_eq(upstream_reply("HTTP/1.1 200 OK\r\n\r\nrest", 23), 19);
	cr_assert_eq(upstream_reply("HTTP/1.0 200 Connection established\r\n\r\n", 39), 39);
	cr_assert_eq(upstream_reply("HTTP/1.1 403 Forbidden\r\n\r\n", 26), -403);
	cr_assert_eq(upstream_reply("HTTP/1.1 407 Auth\r\n\r\n", 21), -407);
	cr_assert_eq(upstream_reply("SSH-2.0-x\r\n\r\n", 13), -502);
	cr_assert_eq(upstream_reply("HTTP/1.1 2x0 OK\r\n\r\n", 19), -502);
}

Test(upstream, credentials)
{
	struct upstream u;
	struct cordon_err e;
	struct host h;
	char out[UPSTREAM_HEAD_MAX];
	cr_assert_eq(upstream_parse("tcp:127.0.0.1:1", "tok", "Aladdin:open sesame", &u, &e), 0,
		     "%s", e.msg);
	cr_assert_eq(host_canon("a.test", 6, &h), 0);
	ssize_t n = upstream_connect_head(&u, &h, 443, out, sizeof(out));
	cr_assert_gt(n, 0);
	out[n] = '\0';
	/* RFC 7617's own example. */
	cr_assert_str_eq(out, "CONNECT a.test:443 HTTP/1.1\r\nHost: a.test:443\r\n"
			      "X-Cordon-Attribution: tok\r\n"
			      "Proxy-Authorization: Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ==\r\n\r\n");
	cr_assert_eq(upstream_parse("unix:/run/p.sock", NULL, "u:p@ss:w", &u, &e), 0);
	cr_assert_str_eq(u.auth, "dTpwQHNzOnc=");
	cr_assert_eq(upstream_parse("unix:/run/p.sock", NULL, "ab:c", &u, &e), 0);
	cr_assert_str_eq(u.auth, "YWI6Yw==");
	cr_assert_lt(upstream_parse("tcp:127.0.0.1:1", NULL, "nopassword", &u, &e), 0);
	cr_assert_null(strstr(e.msg, "nopassword"), "the message never repeats the credentials");
	cr_assert_lt(upstream_parse("tcp:127.0.0.1:1", NULL, ":p", &u, &e), 0);
	cr_assert_lt(upstream_parse("tcp:127.0.0.1:1", NULL, "u:p\r\nX-Evil: 1", &u, &e), 0,
		     "no header injection through the password");
	char big[UPSTREAM_AUTH_MAX + 2];
	memset(big, 'a', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	big[1] = ':';
	cr_assert_lt(upstream_parse("tcp:127.0.0.1:1", NULL, big, &u, &e), 0);
	big[UPSTREAM_AUTH_MAX] = '\0';
	cr_assert_eq(upstream_parse("tcp:127.0.0.1:1", "t", big, &u, &e), 0);
	struct host longest;
	char name[254];
	for (int i = 0; i < 253; i++)
		name[i] = i % 64 == 63 ? '.' : 'a';
	name[253] = '\0';
	cr_assert_eq(host_canon(name, 253, &longest), 0);
	cr_assert_gt(upstream_connect_head(&u, &longest, 65535, out, sizeof(out)), 0,
		     "UPSTREAM_HEAD_MAX holds the longest head");
}
