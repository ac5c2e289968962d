/* usock_set.h: the socket files bound inside this sandbox, by identity.
 * Pure (a fixed ring in the caller's struct), unit-tested.
 *
 * An identity is (device, inode, birth time): the inode number alone could
 * be freed with a socket the command removed and reused by the filesystem for
 * one a host process binds later in a writable root; the birth time of that
 * new file differs.  Where the filesystem has no birth time it is 0 and the
 * pair alone is compared.
 *
 * The ring holds USOCK_SET_MAX entries; when full, the oldest is forgotten:
 * a command that binds more sockets than that loses the right to connect to
 * its oldest ones (refused, never widened), and a flood of binds costs
 * cordon-inner no memory. */
#ifndef CORDON_USOCK_SET_H
#define CORDON_USOCK_SET_H

#include <stddef.h>
#include <stdint.h>

#define USOCK_SET_MAX 4096

struct usock_id {
	uint64_t dev_major, dev_minor, ino;
	int64_t btime_sec;
	uint32_t btime_nsec;
};

struct usock_set {
	struct usock_id ids[USOCK_SET_MAX];
	size_t n;    /* entries in use, <= USOCK_SET_MAX */
	size_t next; /* where the next one goes */
};

void usock_set_init(struct usock_set *s);

/* Record id (again: an identity already there is not duplicated). */
void usock_set_add(struct usock_set *s, const struct usock_id *id);

/* 1 if id was recorded and not yet forgotten, else 0. */
int usock_set_has(const struct usock_set *s, const struct usock_id *id);

#endif
