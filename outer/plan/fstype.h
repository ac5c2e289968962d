/* fstype.h: is an opened object on a pseudo filesystem, or does a directory
 * hold one beneath it?
 *
 * Through proc, sysfs, cgroupfs, debugfs, efivarfs and their kind, a caller
 * acts on the kernel rather than on files: as root, a writable /proc or /sys
 * is core_pattern, power state and CPU hot-plug on the host.  The answer for
 * an object is taken from the descriptor cordon binds (its filesystem's magic
 * number), not from its path, so no alias of /sys or bind mount of /proc
 * passes.  autofs is not among them: it only triggers mounts (an automounted
 * /home must stay writable under --full-write). */
#ifndef CORDON_FSTYPE_H
#define CORDON_FSTYPE_H

#include <stddef.h>
#include <sys/types.h>

/* The pseudo filesystems mounted on this host, from one read of
 * /proc/self/mountinfo (a bind of a writable root carries its submounts, so
 * those below a root count too). */
struct fstype_mount {
	char *point;       /* mount point, unescaped, owned */
	const char *type;  /* static name */
	dev_t dev;
};
struct fstype_mounts {
	struct fstype_mount *v;
	size_t n, cap;
};

/* 0 or -errno (mountinfo unreadable: the caller cannot tell, so refuses). */
int fstype_mounts_load(struct fstype_mounts *m) __attribute__((warn_unused_result));
void fstype_mounts_free(struct fstype_mounts *m);

/* The pseudo filesystem fd lies on, by name ("proc", "devtmpfs"), or NULL
 * when it is an ordinary one (or fstatfs fails: *err gets -errno).  devtmpfs
 * reports tmpfs's magic: it is told by its device number in m. */
const char *fstype_pseudo(int fd, const struct fstype_mounts *m, int *err);

/* The first pseudo filesystem of m mounted strictly beneath dir: its type,
 * its mount point in *point; NULL when there is none. */
const char *fstype_pseudo_below(const struct fstype_mounts *m, const char *dir,
				const char **point);

/* The same decision as fstype_pseudo from facts: f_type from fstatfs, and
 * whether the filesystem is the devtmpfs instance. */
const char *fstype_pseudo_name(unsigned long f_type, int is_devtmpfs);

#endif
