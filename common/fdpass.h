/* fdpass.h: one datagram plus at most one descriptor over a SOCK_SEQPACKET
 * Unix socket (SCM_RIGHTS).  Framing and validation live in wire.h. */
#ifndef CORDON_FDPASS_H
#define CORDON_FDPASS_H

#include <stddef.h>
#include <sys/types.h>
#include "sys.h"

/* Send len bytes (len > 0) and, when fd >= 0, that descriptor. */
int fdpass_send(int sock, const void *buf, size_t len, int fd) WUR;

/* Receive one datagram into buf.  Returns its length, 0 on EOF, -errno, or
 * -EMSGSIZE when it was truncated.  *fd gets the received descriptor (made
 * O_CLOEXEC by MSG_CMSG_CLOEXEC) or -1; any extra descriptor is closed and
 * reported as -EBADMSG. */
ssize_t fdpass_recv(int sock, void *buf, size_t len, int *fd) WUR;

#endif
