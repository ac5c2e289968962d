/* record.h: one run's registry record, as data and as text.  Pure: no
 * filesystem access; registry.c stores and reads the text.
 *
 * A record says which run owns it (boot id, PID namespace, and the pid and
 * start time of cordon, of its guardian and of bwrap) and, per host path the
 * run materialized or uses, its kind and (dev, ino).  The text form is one
 * item per line, strictly in this order, ending with "end":
 *
 *   cordon-record 1
 *   boot 07f2a143-0e38-44de-947f-95d598ba40a9
 *   pidns 4026531836
 *   owner 4242 1234567
 *   guardian 4243 1234570          (optional)
 *   sandbox 4250 1234580           (optional)
 *   intent 0 0 /home/me/app/.aws   (about to be created: no inode yet)
 *   created 2049 1311 /home/me/app/.git
 *   referenced 2049 1312 /home/me/app/.codex
 *   end
 *
 * The path is the rest of the line after the two numbers; '%' and bytes below
 * 0x20 or equal to 0x7f are written as %XX.  The parser refuses anything else:
 * an unknown or misplaced line, a number out of range, a raw control byte, a
 * missing "end", a byte after it. */
#ifndef CORDON_RECORD_H
#define CORDON_RECORD_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define REC_BOOT_LEN 36            /* a boot id is a UUID: 36 characters */
#define REC_MAX_ENTRIES 1024
#define REC_MAX_BYTES (1u << 20)   /* a record file larger than this is refused */
#define REC_PATH_MAX 4096
#define REC_PID_MAX 4194304        /* PID_MAX_LIMIT */
#define REC_NAME_MAX 96            /* "run-" boot "-" pid "-" start, NUL included */

enum rec_kind { REC_INTENT, REC_CREATED, REC_REFERENCED };
enum rec_proc_id { REC_OWNER, REC_GUARDIAN, REC_SANDBOX, REC_NPROCS };

struct rec_proc {
	int32_t pid;       /* 0: none */
	uint64_t start;    /* field 22 of /proc/PID/stat */
};

struct rec_entry {
	enum rec_kind kind;
	uint64_t dev, ino; /* 0 0 for REC_INTENT */
	char *path;        /* absolute, owned */
};

struct record {
	char boot[REC_BOOT_LEN + 1];
	uint64_t pidns;    /* inode of /proc/self/ns/pid */
	struct rec_proc proc[REC_NPROCS];
	struct rec_entry *v;
	size_t n, cap;
};

/* Append an entry (path copied).  0, -ENOMEM, or -E2BIG past REC_MAX_ENTRIES,
 * -EINVAL for a relative or too long path. */
int record_add(struct record *r, enum rec_kind kind, uint64_t dev, uint64_t ino,
	       const char *path) __attribute__((warn_unused_result));

/* Remove entry i, keeping the order of the others. */
void record_remove(struct record *r, size_t i);

/* Frees the entries; *r is left empty and reusable. */
void record_free(struct record *r);

/* The text of *r in a malloc'd buffer (*out, *len).  0 or -ENOMEM/-EINVAL. */
int record_format(const struct record *r, char **out, size_t *len)
	__attribute__((warn_unused_result));

/* Parse len bytes.  0, or -EBADMSG with why[] naming the line and the fault
 * (*out is then empty).  -ENOMEM when out of memory. */
int record_parse(const char *buf, size_t len, struct record *out, char *why, size_t whylen)
	__attribute__((warn_unused_result));

/* The file name of a run's record: "run-BOOT-PID-START".  0 or -EINVAL. */
int record_name(char *out, size_t outlen, const char *boot, pid_t pid, uint64_t start);

/* Parse a name made by record_name.  0 or -EINVAL. */
int record_name_parse(const char *name, char boot[REC_BOOT_LEN + 1], pid_t *pid,
		      uint64_t *start);

/* 1 if s is a boot id: 36 characters of lowercase hex digits and dashes in
 * the UUID layout. */
int record_boot_valid(const char *s);

#endif
