/* test_usock.c: the pure parts of the Unix socket supervisor: the address
 * as the kernel reads it (usock_addr.c) and the set of sockets bound inside
 * (usock_set.c). */
#include <criterion/criterion.h>
#include <errno.h>
#include <stddef.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include "usock_addr.h"
#include "usock_set.h"

static socklen_t path_addr(struct sockaddr_un *sa, const char *p, int with_nul)
{
	memset(sa, 0, sizeof(*sa));
	sa->sun_family = AF_UNIX;
	memcpy(sa->sun_path, p, strlen(p));
	return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + strlen(p) + (with_nul ? 1 : 0));
}

Test(usock_addr, pathname_with_and_without_nul)
{
	struct sockaddr_un sa;
	struct usock_addr a;
	cr_assert_eq(usock_addr_parse(&sa, path_addr(&sa, "/tmp/x.sock", 1), &a), 0);
	cr_expect_eq(a.kind, USOCK_PATH);
	cr_expect_str_eq(a.path, "/tmp/x.sock");
	cr_assert_eq(usock_addr_parse(&sa, path_addr(&sa, "rel", 0), &a), 0);
	cr_expect_str_eq(a.path, "rel");
	/* The length cuts the path, whatever follows in the buffer. */
	path_addr(&sa, "abcdef", 1);
	cr_assert_eq(usock_addr_parse(&sa, offsetof(struct sockaddr_un, sun_path) + 3, &a), 0);
	cr_expect_str_eq(a.path, "abc");
	/* A NUL inside ends it. */
	path_addr(&sa, "ab", 0);
	sa.sun_path[3] = 'z';
	cr_assert_eq(usock_addr_parse(&sa, offsetof(struct sockaddr_un, sun_path) + 4, &a), 0);
	cr_expect_str_eq(a.path, "ab");
}

Test(usock_addr, full_length_path_is_terminated)
{
	struct sockaddr_un sa;
	struct usock_addr a;
	memset(&sa, 'p', sizeof(sa));
	sa.sun_family = AF_UNIX;
	cr_assert_eq(usock_addr_parse(&sa, sizeof(sa), &a), 0);
	cr_expect_eq(strlen(a.path), sizeof(sa.sun_path));
}

Test(usock_addr, abstract_and_unnamed)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct usock_addr a;
	cr_assert_eq(usock_addr_parse(&sa, offsetof(struct sockaddr_un, sun_path), &a), 0);
	cr_expect_eq(a.kind, USOCK_UNNAMED);
	memcpy(sa.sun_path, "\0name", 5);
	cr_assert_eq(usock_addr_parse(&sa, offsetof(struct sockaddr_un, sun_path) + 5, &a), 0);
	cr_expect_eq(a.kind, USOCK_ABSTRACT);
}

Test(usock_addr, what_the_kernel_refuses)
{
	struct sockaddr_un sa;
	struct usock_addr a;
	path_addr(&sa, "/x", 1);
	cr_expect_eq(usock_addr_parse(&sa, 1, &a), -EINVAL);
	cr_expect_eq(usock_addr_parse(&sa, 0, &a), -EINVAL);
	cr_expect_eq(usock_addr_parse(NULL, 10, &a), -EINVAL);
	cr_expect_eq(usock_addr_parse(&sa, sizeof(sa) + 1, &a), -EINVAL);
	sa.sun_family = AF_INET;
	cr_expect_eq(usock_addr_parse(&sa, 8, &a), -EINVAL);
}

Test(usock_addr, proc_self_is_the_caller)
{
	char out[160];
	cr_assert_eq(usock_addr_self("/proc/self/fd/5", 42, out, sizeof(out)), 0);
	cr_expect_str_eq(out, "/proc/42/fd/5");
	cr_assert_eq(usock_addr_self("/proc/thread-self/root/x", 7, out, sizeof(out)), 0);
	cr_expect_str_eq(out, "/proc/7/root/x");
	cr_assert_eq(usock_addr_self("/proc/self", 7, out, sizeof(out)), 0);
	cr_expect_str_eq(out, "/proc/7");
	/* Near misses stay as they are. */
	cr_assert_eq(usock_addr_self("/proc/selfish/x", 7, out, sizeof(out)), 0);
	cr_expect_str_eq(out, "/proc/selfish/x");
	cr_assert_eq(usock_addr_self("rel/proc/self/x", 7, out, sizeof(out)), 0);
	cr_expect_str_eq(out, "rel/proc/self/x");
	cr_expect_eq(usock_addr_self("/proc/self/fd/5", 42, out, 8), -ENAMETOOLONG);
	cr_expect_eq(usock_addr_self("/abcdefgh", 42, out, 8), -ENAMETOOLONG);
}

Test(usock_addr, umask_line)
{
	static const char st[] = "Name:\tx\nUmask:\t0027\nState:\tS\n";
	unsigned int m = 0;
	cr_assert_eq(usock_umask_parse(st, sizeof(st) - 1, &m), 0);
	cr_expect_eq(m, 027);
	cr_expect_eq(usock_umask_parse("Umask:\t0089\n", 12, &m), -1);
	cr_expect_eq(usock_umask_parse("XUmask:\t0022\n", 13, &m), -1);
	cr_expect_eq(usock_umask_parse("Umask:\t\n", 8, &m), -1);
	cr_expect_eq(usock_umask_parse("Umask:\t000000\n", 14, &m), -1);
}

static struct usock_set set; /* too big for the stack */

Test(usock_set, add_has_and_identity)
{
	usock_set_init(&set);
	struct usock_id a = { 254, 0, 1234, 1700000000, 5 };
	cr_expect(!usock_set_has(&set, &a));
	usock_set_add(&set, &a);
	cr_expect(usock_set_has(&set, &a));
	/* Same inode number, another birth: a reused inode is not ours. */
	struct usock_id reborn = a;
	reborn.btime_nsec = 6;
	cr_expect(!usock_set_has(&set, &reborn));
	struct usock_id other_dev = a;
	other_dev.dev_minor = 1;
	cr_expect(!usock_set_has(&set, &other_dev));
	usock_set_add(&set, &a);
	cr_expect_eq(set.n, 1, "a duplicate takes no second slot");
}

Test(usock_set, full_ring_forgets_the_oldest_only)
{
	usock_set_init(&set);
	for (uint64_t i = 0; i < USOCK_SET_MAX + 10; i++) {
		struct usock_id id = { 1, 2, i, 0, 0 };
		usock_set_add(&set, &id);
	}
	cr_expect_eq(set.n, USOCK_SET_MAX);
	for (uint64_t i = 0; i < 10; i++) {
		struct usock_id id = { 1, 2, i, 0, 0 };
		cr_expect(!usock_set_has(&set, &id), "%llu still there", (unsigned long long)i);
	}
	for (uint64_t i = 10; i < USOCK_SET_MAX + 10; i++) {
		struct usock_id id = { 1, 2, i, 0, 0 };
		cr_expect(usock_set_has(&set, &id));
	}
}
