/* test_fdpass.c: one datagram plus at most one descriptor over SOCK_SEQPACKET. */
#include <criterion/criterion.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "unit_util.h"
#include "fdpass.h"


Test(fdpass, data_only)
{
	int sv[2];
	pair(sv);
	cr_assert_eq(fdpass_send(sv[0], "hello", 5, -1), 0);
	char buf[16];
	int fd = 123;
	cr_assert_eq(fdpass_recv(sv[1], buf, sizeof(buf), &fd), 5);
	cr_assert_eq(memcmp(buf, "hello", 5), 0);
	cr_assert_eq(fd, -1);
	close(sv[0]);
	close(sv[1]);
}

Test(fdpass, data_and_descriptor_cloexec)
{
	int sv[2];
	pair(sv);
	int dfd = open("/", O_PATH | O_CLOEXEC);
	cr_assert_geq(dfd, 0);
	cr_assert_eq(fdpass_send(sv[0], "x", 1, dfd), 0);
	char buf[4];
	int fd = -1;
	cr_assert_eq(fdpass_recv(sv[1], buf, sizeof(buf), &fd), 1);
	cr_assert_geq(fd, 0);
	cr_assert_neq(fd, dfd);
	struct stat a, b;
	cr_assert_eq(fstat(fd, &a), 0);
	cr_assert_eq(fstat(dfd, &b), 0);
	cr_assert(a.st_dev == b.st_dev && a.st_ino == b.st_ino, "a different object arrived");
	int fl = fcntl(fd, F_GETFD);
	cr_assert(fl >= 0 && (fl & FD_CLOEXEC));
	close(fd);
	close(dfd);
	close(sv[0]);
	close(sv[1]);
}

Test(fdpass, truncated_datagram_refused_and_descriptor_closed)
{
	int sv[2];
	pair(sv);
	int dfd = open("/", O_PATH | O_CLOEXEC);
	cr_assert_eq(fdpass_send(sv[0], "0123456789", 10, dfd), 0);
	close(dfd);
	int before = count_fds();
	char buf[4];
	int fd = 55;
	cr_assert_eq(fdpass_recv(sv[1], buf, sizeof(buf), &fd), -EMSGSIZE);
	cr_assert_eq(fd, -1);
	cr_assert_eq(count_fds(), before);
	close(sv[0]);
	close(sv[1]);
}

Test(fdpass, eof)
{
	int sv[2];
	pair(sv);
	close(sv[0]);
	char buf[4];
	int fd = 7;
	cr_assert_eq(fdpass_recv(sv[1], buf, sizeof(buf), &fd), 0);
	cr_assert_eq(fd, -1);
	close(sv[1]);
}

Test(fdpass, bad_socket)
{
	char buf[4];
	int fd;
	cr_assert_eq(fdpass_recv(-1, buf, sizeof(buf), &fd), -EBADF);
	cr_assert_eq(fdpass_send(-1, "a", 1, -1), -EBADF);
	int pp[2];
	cr_assert_eq(pipe(pp), 0);
	cr_assert_eq(fdpass_send(pp[1], "a", 1, -1), -ENOTSOCK);
	close(pp[0]);
	close(pp[1]);
}

Test(fdpass, sending_a_closed_descriptor_fails)
{
	int sv[2];
	pair(sv);
	cr_assert_eq(fdpass_send(sv[0], "a", 1, 999), -EBADF);
	close(sv[0]);
	close(sv[1]);
}
