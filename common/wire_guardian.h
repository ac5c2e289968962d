/* wire_guardian.h: the records cordon and its guardian (outer/hostpaths/
 * guardian.h) exchange over their SOCK_SEQPACKET socketpair, framed and
 * checked as wire.h's (one datagram: a 32-bit type, a payload, at most one
 * descriptor), against this protocol's own table: direction, payload size,
 * descriptor, once-only.  A record that breaks the table is a protocol
 * error: the guardian stops listening and cleans up as if cordon were gone.
 *
 * Room is left for the types still to come (the table has 32 slots). */
#ifndef CORDON_WIRE_GUARDIAN_H
#define CORDON_WIRE_GUARDIAN_H

#include <stdint.h>
#include <termios.h>
#include "wire.h"

/* The guardian plays wire.h's "inner" end: records to it are WIRE_TO_INNER. */
#define GWIRE_TO_GUARDIAN WIRE_TO_INNER
#define GWIRE_TO_CORDON WIRE_TO_OUTER

enum gwire_type {
	GWIRE_READY = 1,  /* guardian->cordon, once: it runs on its own; no payload */
	GWIRE_SANDBOX,    /* cordon->guardian, once: struct gwire_sandbox, + pidfd of
			     bwrap when the kernel has pidfd_open */
	GWIRE_DONE,       /* cordon->guardian, once: cordon cleaned up; exit now */
	GWIRE_WATCH,      /* cordon->guardian, per watched writable root: struct
			     gwire_watch (no descriptor: the guardian holds none of
			     the workspace) */
	GWIRE_TERMINAL,   /* cordon->guardian, once: struct gwire_terminal + the user's
			     terminal, which cordon made raw */
	GWIRE_GITDIR,     /* cordon->guardian, per git dir of --git commit: struct
			     gwire_gitdir + the git dir (O_PATH): if cordon dies, the
			     guardian redoes the end of hostpaths/gitstate.h */
	GWIRE_GITLINKS,   /* cordon->guardian, after a GWIRE_GITDIR of a repository:
			     no payload + a sealed memfd of its submodule entries
			     at the start (hostpaths/gitstate.c) */
	GWIRE_TYPE_END,
};

/* The user's terminal's mode before cordon made it raw, and the raw mode as
 * the kernel holds it: if cordon dies (SIGKILL) and the terminal is still
 * in that raw mode, the guardian puts the saved one back.  A terminal in any
 * other mode (cordon restored it, or the shell set its own) is left alone.
 * Both ends are the same binary: struct termios as is. */
struct gwire_terminal {
	struct termios saved, raw;
};

/* The bwrap the guardian waits for before it cleans up. */
struct gwire_sandbox {
	int32_t pid;
	uint32_t zero;    /* must be 0 */
	uint64_t start;   /* field 22 of /proc/PID/stat */
};

/* The protected names watched in one writable root (--protect-missing
 * watch): if cordon dies, the guardian looks at each once the sandbox is
 * gone and moves aside what was born since `since` (CLOCK_REALTIME).  The
 * root is named by its path and identity: the guardian opens it then, and
 * leaves it alone if it is not (dev, ino) any more. */
#define GWIRE_TEXT_MAX 4048
struct gwire_watch {
	int64_t since_sec;
	uint32_t since_nsec;
	int32_t owner;    /* cordon's pid */
	uint64_t dev, ino;
	int64_t born_sec;  /* the root's birth time (protect_quarantine_time): a root */
	uint32_t born_nsec;/* removed and made again at the same inode number */
	uint32_t zero;     /* is another directory; must be 0 */
	char text[GWIRE_TEXT_MAX]; /* the root's absolute path, NUL, then the
				      "/"-separated file names, NUL */
};

/* A git dir of --git commit (hostpaths/gitstate.h: gitstate_spec), sent
 * before the command starts, with its descriptor.  `since` is the moment
 * after which a ctime means "the run's doing". */
#define GWIRE_GITDIR_MAX 256  /* records the guardian keeps; cordon sends no more */
#define GWIRE_GITDIR_TOP 1u
#define GWIRE_GITDIR_REPO 2u
struct gwire_gitdir {
	int64_t since_sec;
	uint32_t since_nsec;
	uint32_t flags;     /* GWIRE_GITDIR_*, no other bit */
	uint64_t root_dev, root_ino; /* the checkout root's identity (0: no checkout) */
	char text[GWIRE_TEXT_MAX]; /* the git dir's absolute path, NUL, the
				      checkout root's absolute path or "", NUL */
};

extern const struct wire_proto gwire_proto;

/* Pure: a GWIRE_SANDBOX payload as received (len bytes, checked by the
 * table) into *out.  0, or -EPROTO for a pid out of range or a non-zero pad. */
int gwire_sandbox_parse(const void *data, size_t len, struct gwire_sandbox *out) WUR;

/* Pure: a GWIRE_WATCH payload into *out; *root and *names point into it.
 * 0, or -EPROTO for an owner or nanoseconds out of range, a root that is
 * not absolute, no names, an empty name, "." or "..". */
int gwire_watch_parse(const void *data, size_t len, struct gwire_watch *out, const char **root,
		      const char **names) WUR;

/* Pure: a GWIRE_GITDIR payload into *out; *path and *checkout point into
 * it (*checkout NULL when there is none).  0, or -EPROTO for nanoseconds
 * out of range, an unknown flag, a path that is not absolute, or a
 * checkout without its identity. */
int gwire_gitdir_parse(const void *data, size_t len, struct gwire_gitdir *out, const char **path,
		       const char **checkout) WUR;

#endif
