/* usock_addr.h: a Unix socket address as the supervisor (unixsup.c) reads
 * it from the command's memory.  Pure: no system call, unit-tested.
 *
 * The rules are the kernel's (net/unix/af_unix.c, unix_validate_addr and
 * unix_mkname_bsd): the length covers at least sun_family and at most a
 * struct sockaddr_un; the family is AF_UNIX; a length of just the family is
 * an unnamed address (autobind); sun_path starting with NUL is an abstract
 * name of the remaining bytes; otherwise the path ends at the first NUL or at
 * the given length. */
#ifndef CORDON_USOCK_ADDR_H
#define CORDON_USOCK_ADDR_H

#include <stddef.h>
#include <sys/un.h>

enum usock_kind { USOCK_UNNAMED, USOCK_PATH, USOCK_ABSTRACT };

struct usock_addr {
	enum usock_kind kind;
	char path[sizeof(((struct sockaddr_un *)0)->sun_path) + 1]; /* USOCK_PATH:
								     NUL-terminated */
};

/* 0, or -EINVAL for what the kernel refuses with EINVAL. */
int usock_addr_parse(const void *buf, size_t len, struct usock_addr *out);

/* A path the command wrote is resolved by cordon-inner, for whom
 * /proc/self and /proc/thread-self are itself: rewrite either prefix to
 * /proc/TID so that the command's own descriptors (an O_PATH one through
 * /proc/self/fd/N) are the ones followed.  Copies path unchanged otherwise.
 * -ENAMETOOLONG if the result does not fit out_len. */
int usock_addr_self(const char *path, int tid, char *out, size_t out_len);

/* The "Umask:" line of /proc/TID/status (octal).  -1 if missing or bad. */
int usock_umask_parse(const char *status, size_t len, unsigned int *umask);

#endif
