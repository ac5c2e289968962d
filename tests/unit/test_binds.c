/* test_binds.c: binds_compare, and binds_receive_and_check fed over a real
 * SOCK_SEQPACKET socketpair as cordon would feed it. */
#include <criterion/criterion.h>

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "binds.h"
#include "wire.h"

/* ---- binds_compare -------------------------------------------------------- */

static struct stat st(dev_t dev, ino_t ino)
{
	struct stat s;
	memset(&s, 0, sizeof(s));
	s.st_dev = dev;
	s.st_ino = ino;
	return s;
}

Test(binds_compare, same_object)
{
	struct stat a = st(5, 77), b = st(5, 77);
	a.st_mode = 040755; /* other fields do not matter */
	struct cordon_err e;
	memset(&e, 0, sizeof(e));
	cr_assert_eq(binds_compare("/w", &a, &b, &e), 0);
	cr_assert_eq(e.err, 0);
}

Test(binds_compare, different_inode_or_device)
{
	struct stat a = st(5, 77), b = st(5, 78), c = st(6, 77);
	struct cordon_err e;
	memset(&e, 0, sizeof(e));
	cr_assert_eq(binds_compare("/home/u/src", &a, &b, &e), -EXDEV);
	cr_assert_eq(e.err, EXDEV);
	cr_assert_eq(e.exit_code, EXIT_CORDON_FAILED);
	cr_assert_eq(strncmp(e.msg, "/home/u/src ", 12), 0, "path not named first: %s", e.msg);
	cr_assert_not_null(strstr(e.msg, "5:77"), "%s", e.msg);
	cr_assert_not_null(strstr(e.msg, "5:78"), "%s", e.msg);
	memset(&e, 0, sizeof(e));
	cr_assert_eq(binds_compare("/x", &a, &c, &e), -EXDEV);
	cr_assert_not_null(strstr(e.msg, "/x"), "%s", e.msg);
}

/* ---- binds_receive_and_check --------------------------------------------- */

struct fixture {
	int sv[2];
	char a[64], b[64];
};

static void setup_fx(struct fixture *f)
{
	cr_assert_eq(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, f->sv), 0);
	snprintf(f->a, sizeof(f->a), "/tmp/cordon-binds-a-XXXXXX");
	snprintf(f->b, sizeof(f->b), "/tmp/cordon-binds-b-XXXXXX");
	cr_assert_not_null(mkdtemp(f->a));
	cr_assert_not_null(mkdtemp(f->b));
}

static void teardown_fx(struct fixture *f)
{
	close(f->sv[0]);
	close(f->sv[1]);
	rmdir(f->a);
	rmdir(f->b);
}

static void send_bind(struct fixture *f, const char *path, const char *fd_of)
{
	int fd = open(fd_of, O_PATH | O_CLOEXEC | O_DIRECTORY);
	cr_assert_geq(fd, 0, "open %s", fd_of);
	cr_assert_eq(wire_send(f->sv[0], WIRE_BIND_CHECK, path, strlen(path) + 1, fd), 0);
	close(fd);
}

static void send_end(struct fixture *f, uint32_t count)
{
	cr_assert_eq(wire_send(f->sv[0], WIRE_BINDS_END, &count, sizeof(count), -1), 0);
}

static int receive(struct fixture *f, struct binds *b, struct cordon_err *e)
{
	memset(b, 0, sizeof(*b));
	memset(e, 0, sizeof(*e));
	return binds_receive_and_check(f->sv[1], b, e);
}

static struct binds bs; /* large: keep it off the stack */

Test(binds_receive, good_pairs_recorded)
{
	struct fixture f;
	setup_fx(&f);
	send_bind(&f, f.a, f.a);
	send_bind(&f, f.b, f.b);
	send_end(&f, 2);
	struct cordon_err e;
	cr_assert_eq(receive(&f, &bs, &e), 0, "%s", e.msg);
	cr_assert_eq(bs.n, 2);
	cr_assert_str_eq(bs.paths[0], f.a);
	cr_assert_str_eq(bs.paths[1], f.b);
	binds_free(&bs);
	cr_assert_eq(bs.n, 0);
	teardown_fx(&f);
}

Test(binds_receive, no_roots_at_all)
{
	struct fixture f;
	setup_fx(&f);
	send_end(&f, 0);
	struct cordon_err e;
	cr_assert_eq(receive(&f, &bs, &e), 0, "%s", e.msg);
	cr_assert_eq(bs.n, 0);
	teardown_fx(&f);
}

Test(binds_receive, swapped_path_refused)
{
	struct fixture f;
	setup_fx(&f);
	send_bind(&f, f.a, f.b); /* path A, descriptor of B */
	send_end(&f, 1);
	struct cordon_err e;
	cr_assert_eq(receive(&f, &bs, &e), -EXDEV);
	cr_assert_eq(e.exit_code, EXIT_CORDON_FAILED);
	cr_assert_not_null(strstr(e.msg, f.a), "want %s in: %s", f.a, e.msg);
	binds_free(&bs);
	teardown_fx(&f);
}

Test(binds_receive, mismatch_after_a_good_one_refused)
{
	struct fixture f;
	setup_fx(&f);
	send_bind(&f, f.a, f.a);
	send_bind(&f, f.b, f.a);
	send_end(&f, 2);
	struct cordon_err e;
	cr_assert_eq(receive(&f, &bs, &e), -EXDEV);
	cr_assert_not_null(strstr(e.msg, f.b), "%s", e.msg);
	binds_free(&bs);
	teardown_fx(&f);
}

Test(binds_receive, count_mismatch_refused)
{
	struct fixture f;
	setup_fx(&f);
	send_bind(&f, f.a, f.a);
	send_end(&f, 2);
	struct cordon_err e;
	cr_assert_eq(receive(&f, &bs, &e), -EPROTO);
	cr_assert_not_null(strstr(e.msg, "announced 2 mounts to check, 1 arrived"), "%s", e.msg);
	binds_free(&bs);
	teardown_fx(&f);

	setup_fx(&f);
	send_bind(&f, f.a, f.a);
	send_bind(&f, f.b, f.b);
	send_end(&f, 1);
	cr_assert_eq(receive(&f, &bs, &e), -EPROTO);
	binds_free(&bs);
	teardown_fx(&f);
}

Test(binds_receive, eof_before_end_refused)
{
	struct fixture f;
	setup_fx(&f);
	send_bind(&f, f.a, f.a);
	close(f.sv[0]);
	f.sv[0] = -1;
	struct cordon_err e;
	int r = receive(&f, &bs, &e);
	cr_assert_lt(r, 0, "EOF before BINDS_END accepted");
	cr_assert_eq(r, -EPROTO);
	cr_assert_not_null(strstr(e.msg, "closed the control socket"), "%s", e.msg);
	binds_free(&bs);
	teardown_fx(&f);
}

Test(binds_receive, missing_path_refused)
{
	struct fixture f;
	setup_fx(&f);
	char missing[96];
	snprintf(missing, sizeof(missing), "%s/not-there", f.a);
	send_bind(&f, missing, f.a);
	send_end(&f, 1);
	struct cordon_err e;
	cr_assert_eq(receive(&f, &bs, &e), -ENOENT);
	cr_assert_not_null(strstr(e.msg, missing), "%s", e.msg);
	binds_free(&bs);
	teardown_fx(&f);
}

Test(binds_receive, bind_check_without_descriptor_refused)
{
	struct fixture f;
	setup_fx(&f);
	cr_assert_eq(wire_send(f.sv[0], WIRE_BIND_CHECK, f.a, strlen(f.a) + 1, -1), 0);
	send_end(&f, 1);
	struct cordon_err e;
	cr_assert_eq(receive(&f, &bs, &e), -EPROTO);
	cr_assert_not_null(strstr(e.msg, "lacks a descriptor"), "%s", e.msg);
	teardown_fx(&f);
}

Test(binds_receive, record_of_the_other_direction_refused)
{
	struct fixture f;
	setup_fx(&f);
	int32_t pid = 2;
	cr_assert_eq(wire_send(f.sv[0], WIRE_STARTED, &pid, sizeof(pid), -1), 0);
	struct cordon_err e;
	cr_assert_eq(receive(&f, &bs, &e), -EPROTO);
	cr_assert_not_null(strstr(e.msg, "wrong way"), "%s", e.msg);
	teardown_fx(&f);
}

Test(binds_receive, descriptors_not_kept_open)
{
	struct fixture f;
	setup_fx(&f);
	for (int i = 0; i < 50; i++)
		send_bind(&f, f.a, f.a);
	send_end(&f, 50);
	int probe = dup(0);
	cr_assert_geq(probe, 0);
	close(probe);
	struct cordon_err e;
	cr_assert_eq(receive(&f, &bs, &e), 0, "%s", e.msg);
	cr_assert_eq(bs.n, 50);
	/* The lowest free descriptor is the same as before: nothing leaked. */
	int after = dup(0);
	cr_assert_eq(after, probe);
	close(after);
	binds_free(&bs);
	teardown_fx(&f);
}

/* A read-only mount bound by path is checked like a root but is not a root:
 * Landlock must not grant writes beneath it. */
Test(binds_receive, ro_check_verified_but_not_writable)
{
	char dir[] = "/tmp/cordon-binds-ro.XXXXXX";
	cr_assert_not_null(mkdtemp(dir));
	int sv[2];
	cr_assert_eq(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv), 0);
	int fd = open(dir, O_PATH | O_CLOEXEC);
	cr_assert_geq(fd, 0);
	cr_assert_eq(wire_send(sv[0], WIRE_RO_CHECK, dir, strlen(dir), fd), 0);
	uint32_t one = 1;
	cr_assert_eq(wire_send(sv[0], WIRE_BINDS_END, &one, sizeof(one), -1), 0);
	struct binds b = { .n = 0 };
	struct cordon_err e;
	cr_assert_eq(binds_receive_and_check(sv[1], &b, &e), 0, "%s", e.msg);
	cr_assert_eq(b.n, 0, "a read-only check became a writable root");
	cr_assert_eq(b.checked, 1);
	binds_free(&b);

	/* The refusal: the same record with another object's descriptor. */
	int other = open("/", O_PATH | O_CLOEXEC);
	cr_assert_eq(wire_send(sv[0], WIRE_RO_CHECK, dir, strlen(dir), other), 0);
	cr_assert_eq(wire_send(sv[0], WIRE_BINDS_END, &one, sizeof(one), -1), 0);
	cr_assert_eq(binds_receive_and_check(sv[1], &b, &e), -EXDEV);
	cr_assert_not_null(strstr(e.msg, dir), "%s", e.msg);
	binds_free(&b);
	close(fd);
	close(other);
	close(sv[0]);
	close(sv[1]);
	rmdir(dir);
}
