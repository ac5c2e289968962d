/* fuzz_wire.c: the receiving end of the cordon <-> cordon-inner channel
 * (common/wire.c) fed arbitrary datagrams, with and without a descriptor,
 * in either direction.  Whatever arrives, wire_recv must either return a
 * record that keeps the table's promises (a known type, a length in range,
 * a NUL-terminated payload, a descriptor exactly when the type carries one,
 * once-only types once) or an error that leaks no descriptor.
 *
 * Input: a sequence of chunks, each one byte of flags (bit 0: attach a
 * descriptor; bit 1: the receiver accepts records to cordon-inner rather
 * than to cordon, taken from the first chunk only) and a two-byte length
 * (little-endian, at most 8 KiB: past WIRE_DATA_MAX), then that many bytes
 * sent as one datagram and received at once. */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include "fdpass.h"
#include "wire.h"

static int sock[2] = { -1, -1 };
static int devnull = -1;

static void setup(void)
{
	if (sock[0] >= 0)
		return;
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC | SOCK_NONBLOCK, 0, sock) < 0)
		abort();
	devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (devnull < 0)
		abort();
}

/* Everything fdpass_send refuses to send (an empty datagram) goes raw. */
static void send_chunk(const uint8_t *d, size_t len, int with_fd)
{
	if (len > 0 && fdpass_send(sock[0], d, len, with_fd ? devnull : -1) == 0)
		return;
	if (send(sock[0], d, len, MSG_NOSIGNAL) < 0 && errno != EAGAIN)
		abort();
}

static void check(const struct wire_peer *p, const struct wire_rec *r)
{
	struct cordon_err e;
	if (r->type == 0 || r->type >= WIRE_TYPE_END || r->len > WIRE_DATA_MAX)
		abort();
	if (r->data[r->len] != '\0')
		abort();
	if (wire_check(&(struct wire_peer){ p->accept, 0 }, r->type, r->len, r->fd >= 0, &e) != 0)
		abort();
	if (r->fd >= 0 && fcntl(r->fd, F_GETFD) != FD_CLOEXEC)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	setup();
	struct wire_peer peer = { (size && (data[0] & 2)) ? WIRE_TO_INNER : WIRE_TO_OUTER, 0 };
	size_t i = 0;
	while (i + 3 <= size) {
		int with_fd = data[i] & 1;
		size_t len = (size_t)data[i + 1] | (size_t)(data[i + 2] & 0x1f) << 8;
		i += 3;
		if (len > size - i)
			len = size - i;
		send_chunk(data + i, len, with_fd);
		i += len;

		static struct wire_rec rec;
		struct cordon_err e;
		e.msg[0] = '\0';
		int r = wire_recv(sock[1], &peer, &rec, &e);
		if (r == 1) {
			check(&peer, &rec);
			sys_close(&rec.fd);
		} else if (r < 0 && r != -EAGAIN && e.msg[0] == '\0') {
			abort(); /* an error without a message */
		}
	}
	/* Nothing may stay queued for the next input. */
	char buf[WIRE_DATA_MAX + 8];
	while (recv(sock[1], buf, sizeof(buf), MSG_DONTWAIT) >= 0)
		;
	return 0;
}
