/* fdpass.c: see fdpass.h. */
#include "fdpass.h"

#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

int fdpass_send(int sock, const void *buf, size_t len, int fd)
{
	union {
		char raw[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} ctl;
	struct iovec iov = { .iov_base = (void *)buf, .iov_len = len };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };

	memset(&ctl, 0, sizeof(ctl));
	if (fd >= 0) {
		msg.msg_control = ctl.raw;
		msg.msg_controllen = sizeof(ctl.raw);
		struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(c), &fd, sizeof(int));
	}
	for (;;) {
		ssize_t n = sendmsg(sock, &msg, MSG_NOSIGNAL);
		if (n >= 0)
			return (size_t)n == len ? 0 : -EMSGSIZE;
		if (errno != EINTR)
			return -errno;
	}
}

ssize_t fdpass_recv(int sock, void *buf, size_t len, int *fd)
{
	union {
		char raw[CMSG_SPACE(4 * sizeof(int))];
		struct cmsghdr align;
	} ctl;
	struct iovec iov = { .iov_base = buf, .iov_len = len };
	struct msghdr msg = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = ctl.raw, .msg_controllen = sizeof(ctl.raw),
	};
	ssize_t n;

	*fd = -1;
	do
		n = recvmsg(sock, &msg, MSG_CMSG_CLOEXEC);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;

	int bad = 0;
	for (struct cmsghdr *c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c)) {
		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
			continue;
		size_t nfds = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		for (size_t i = 0; i < nfds; i++) {
			int got;
			memcpy(&got, CMSG_DATA(c) + i * sizeof(int), sizeof(int));
			if (*fd < 0) {
				*fd = got;
			} else {
				(void)close(got);
				bad = 1;
			}
		}
	}
	/* A truncated control buffer may have dropped descriptors we never saw:
	 * refuse rather than guess. */
	if (msg.msg_flags & MSG_CTRUNC)
		bad = 1;
	if (bad || (msg.msg_flags & MSG_TRUNC)) {
		sys_close(fd);
		return bad ? -EBADMSG : -EMSGSIZE;
	}
	return n;
}
