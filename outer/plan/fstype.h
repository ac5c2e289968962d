/* fstype.h: is an opened object on a pseudo filesystem?
 *
 * Through proc, sysfs, cgroupfs, debugfs, efivarfs and their kind, a caller
 * acts on the kernel rather than on files: as root, a writable /proc or /sys
 * is core_pattern, power state and CPU hot-plug on the host.  The answer is
 * taken from the descriptor cordon binds (its filesystem's magic number), not
 * from its path, so no alias of /sys or bind mount of /proc passes.  autofs
 * is not among them: it only triggers mounts (an automounted /home must stay
 * writable under --full-write). */
#ifndef CORDON_FSTYPE_H
#define CORDON_FSTYPE_H

#include <stddef.h>

/* The pseudo filesystem fd lies on, by name ("proc", "devtmpfs"), or NULL
 * when it is an ordinary one (or fstatfs fails: *err gets -errno). */
const char *fstype_pseudo(int fd, int *err);

/* A pseudo filesystem mounted strictly beneath dir (a writable root's bind
 * carries its submounts): its type, and its mount point copied into point;
 * NULL when there is none. */
const char *fstype_pseudo_below(const char *dir, char *point, size_t len);

/* Call fn for every pseudo filesystem mounted strictly beneath dir, in
 * mountinfo order (parents before their submounts); stops at fn's first
 * nonzero return and returns it, or -errno if mountinfo is unreadable. */
int fstype_pseudo_each(const char *dir, int (*fn)(void *ctx, const char *point, const char *type),
		       void *ctx) __attribute__((warn_unused_result));

/* The same decision from facts: f_type from fstatfs, and whether the
 * filesystem is the devtmpfs instance (it reports tmpfs's magic). */
const char *fstype_pseudo_name(unsigned long f_type, int is_devtmpfs);

#endif
