/* record.c: see record.h.  A record is written by cordon for itself, but it
 * is read back by later runs that may act on it (rmdir), so the parser trusts
 * nothing: every line is matched against the one form allowed at its place. */
#include "hostpaths/record.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "hex.h"
#include "grow.h"

static const char *const kind_names[] = {
	[REC_INTENT] = "intent", [REC_CREATED] = "created", [REC_REFERENCED] = "referenced",
};
static const char *const proc_names[REC_NPROCS] = {
	[REC_OWNER] = "owner", [REC_GUARDIAN] = "guardian", [REC_SANDBOX] = "sandbox",
};
#define HEADER "cordon-record 1"

int record_add(struct record *r, enum rec_kind kind, uint64_t dev, uint64_t ino,
	       const char *path)
{
	size_t len = strlen(path);
	if (path[0] != '/' || len >= REC_PATH_MAX)
		return -EINVAL;
	if (r->n >= REC_MAX_ENTRIES)
		return -E2BIG;
	if (grow_reserve(&r->v, &r->cap, r->n + 1, sizeof(*r->v)) < 0)
		return -ENOMEM;
	char *p = strdup(path);
	if (!p)
		return -ENOMEM;
	struct rec_entry *en = &r->v[r->n++];
	en->kind = kind;
	en->dev = dev;
	en->ino = ino;
	en->path = p;
	return 0;
}

void record_remove(struct record *r, size_t i)
{
	if (i >= r->n)
		return;
	free(r->v[i].path);
	memmove(&r->v[i], &r->v[i + 1], (r->n - i - 1) * sizeof(r->v[0]));
	r->n--;
}

void record_free(struct record *r)
{
	for (size_t i = 0; i < r->n; i++)
		free(r->v[i].path);
	free(r->v);
	memset(r, 0, sizeof(*r));
}

static int needs_escape(unsigned char c)
{
	return c < 0x20 || c == 0x7f || c == '%';
}

int record_format(const struct record *r, char **out, size_t *len)
{
	*out = NULL;
	*len = 0;
	if (!record_boot_valid(r->boot) || r->proc[REC_OWNER].pid <= 0)
		return -EINVAL;
	/* Fixed lines fit in 256 bytes; a path line in 64 + 3 bytes per byte. */
	size_t cap = 256 + REC_NPROCS * 64;
	for (size_t i = 0; i < r->n; i++)
		cap += 64 + 3 * strlen(r->v[i].path);
	char *buf = malloc(cap);
	if (!buf)
		return -ENOMEM;
	size_t o = 0;
	o += (size_t)snprintf(buf + o, cap - o, HEADER "\nboot %s\npidns %llu\n", r->boot,
			      (unsigned long long)r->pidns);
	for (int p = 0; p < REC_NPROCS; p++)
		if (r->proc[p].pid > 0)
			o += (size_t)snprintf(buf + o, cap - o, "%s %d %llu\n", proc_names[p],
					      (int)r->proc[p].pid,
					      (unsigned long long)r->proc[p].start);
	for (size_t i = 0; i < r->n; i++) {
		const struct rec_entry *en = &r->v[i];
		o += (size_t)snprintf(buf + o, cap - o, "%s %llu %llu ", kind_names[en->kind],
				      (unsigned long long)en->dev, (unsigned long long)en->ino);
		for (const unsigned char *s = (const unsigned char *)en->path; *s; s++) {
			if (needs_escape(*s))
				o += (size_t)snprintf(buf + o, cap - o, "%%%02X", *s);
			else
				buf[o++] = (char)*s;
		}
		buf[o++] = '\n';
	}
	o += (size_t)snprintf(buf + o, cap - o, "end\n");
	*out = buf;
	*len = o;
	return 0;
}

/* Strict unsigned decimal: no sign, no leading zero (but "0"), at most max. */
static int parse_u64(const char **p, const char *end, uint64_t max, uint64_t *out)
{
	const char *s = *p;
	uint64_t v = 0;
	if (s >= end || *s < '0' || *s > '9')
		return -1;
	if (*s == '0' && s + 1 < end && s[1] >= '0' && s[1] <= '9')
		return -1;
	for (; s < end && *s >= '0' && *s <= '9'; s++) {
		unsigned d = (unsigned)(*s - '0');
		if (v > (max - d) / 10)
			return -1;
		v = v * 10 + d;
	}
	*p = s;
	*out = v;
	return 0;
}

/* Decode an escaped path (s..end) into out[REC_PATH_MAX]. */
static int parse_path(const char *s, const char *end, char *out)
{
	size_t o = 0;
	if (s >= end || *s != '/')
		return -1;
	while (s < end) {
		unsigned char c = (unsigned char)*s;
		if (c < 0x20 || c == 0x7f)
			return -1;
		if (c == '%') {
			if (end - s < 3 || hex_digit(s[1]) < 0 || hex_digit(s[2]) < 0)
				return -1;
			c = (unsigned char)(hex_digit(s[1]) * 16 + hex_digit(s[2]));
			if (c == 0)
				return -1;
			s += 3;
		} else {
			s++;
		}
		if (o + 1 >= REC_PATH_MAX)
			return -1;
		out[o++] = (char)c;
	}
	out[o] = '\0';
	return 0;
}

/* "word " at the start of line: returns the rest, or NULL. */
static const char *keyword(const char *line, const char *end, const char *word)
{
	size_t n = strlen(word);
	if ((size_t)(end - line) <= n || memcmp(line, word, n) != 0 || line[n] != ' ')
		return NULL;
	return line + n + 1;
}

static int parse_proc(const char *s, const char *end, struct rec_proc *p)
{
	uint64_t pid, start;
	if (parse_u64(&s, end, REC_PID_MAX, &pid) < 0 || pid == 0 || s >= end || *s++ != ' ' ||
	    parse_u64(&s, end, UINT64_MAX, &start) < 0 || s != end)
		return -1;
	p->pid = (int32_t)pid;
	p->start = start;
	return 0;
}

static int parse_entry(struct record *r, const char *s, const char *end, char *path)
{
	for (int k = REC_INTENT; k <= REC_REFERENCED; k++) {
		const char *rest = keyword(s, end, kind_names[k]);
		if (!rest)
			continue;
		uint64_t dev, ino;
		if (parse_u64(&rest, end, UINT64_MAX, &dev) < 0 || rest >= end || *rest++ != ' ' ||
		    parse_u64(&rest, end, UINT64_MAX, &ino) < 0 || rest >= end || *rest++ != ' ' ||
		    parse_path(rest, end, path) < 0)
			return -EBADMSG;
		/* An intent has no inode yet; anything else must have one. */
		if ((k == REC_INTENT) != (dev == 0 && ino == 0))
			return -EBADMSG;
		int rc = record_add(r, (enum rec_kind)k, dev, ino, path);
		return rc == -E2BIG || rc == -EINVAL ? -EBADMSG : rc;
	}
	return -EBADMSG;
}

int record_parse(const char *buf, size_t len, struct record *out, char *why, size_t whylen)
{
	enum { S_HEADER, S_BOOT, S_PIDNS, S_OWNER, S_GUARDIAN, S_SANDBOX, S_ENTRIES, S_DONE } st = S_HEADER;
	const char *p = buf, *bufend = buf + len;
	size_t lineno = 0;
	char *path = NULL;
	int rc = 0;

	memset(out, 0, sizeof(*out));
	(void)snprintf(why, whylen, "ok");
	if (len > REC_MAX_BYTES) {
		(void)snprintf(why, whylen, "larger than %u bytes", REC_MAX_BYTES);
		return -EBADMSG;
	}
	path = malloc(REC_PATH_MAX);
	if (!path)
		return -ENOMEM;
	while (p < bufend) {
		const char *nl = memchr(p, '\n', (size_t)(bufend - p));
		lineno++;
		if (!nl || st == S_DONE) {
			(void)snprintf(why, whylen, "line %zu: %s", lineno,
				       st == S_DONE ? "data after end" : "truncated (no newline)");
			rc = -EBADMSG;
			goto out;
		}
		const char *end = nl, *rest;
		int ok = 0;
		switch (st) {
		case S_HEADER:
			ok = (size_t)(end - p) == strlen(HEADER) && memcmp(p, HEADER, strlen(HEADER)) == 0;
			st = S_BOOT;
			break;
		case S_BOOT:
			rest = keyword(p, end, "boot");
			if (rest && end - rest == REC_BOOT_LEN) {
				memcpy(out->boot, rest, REC_BOOT_LEN);
				out->boot[REC_BOOT_LEN] = '\0';
				ok = record_boot_valid(out->boot);
			}
			st = S_PIDNS;
			break;
		case S_PIDNS:
			rest = keyword(p, end, "pidns");
			ok = rest && parse_u64(&rest, end, UINT64_MAX, &out->pidns) == 0 && rest == end;
			st = S_OWNER;
			break;
		case S_OWNER:
			rest = keyword(p, end, "owner");
			ok = rest && parse_proc(rest, end, &out->proc[REC_OWNER]) == 0;
			st = S_GUARDIAN;
			break;
		case S_GUARDIAN:
		case S_SANDBOX:
		case S_ENTRIES:
			if (st == S_GUARDIAN && (rest = keyword(p, end, "guardian"))) {
				ok = parse_proc(rest, end, &out->proc[REC_GUARDIAN]) == 0;
				st = S_SANDBOX;
			} else if (st != S_ENTRIES && (rest = keyword(p, end, "sandbox"))) {
				ok = parse_proc(rest, end, &out->proc[REC_SANDBOX]) == 0;
				st = S_ENTRIES;
			} else if (end - p == 3 && memcmp(p, "end", 3) == 0) {
				ok = 1;
				st = S_DONE;
			} else {
				int r = parse_entry(out, p, end, path);
				if (r == -ENOMEM) {
					rc = r;
					goto out;
				}
				ok = r == 0;
				st = S_ENTRIES;
			}
			break;
		case S_DONE:
			break;
		}
		if (!ok) {
			(void)snprintf(why, whylen, "line %zu: malformed or out of place", lineno);
			rc = -EBADMSG;
			goto out;
		}
		p = nl + 1;
	}
	if (st != S_DONE) {
		(void)snprintf(why, whylen, "truncated (no end line)");
		rc = -EBADMSG;
	}
out:
	free(path);
	if (rc < 0)
		record_free(out);
	return rc;
}

int record_boot_valid(const char *s)
{
	for (int i = 0; i < REC_BOOT_LEN; i++) {
		char c = s[i];
		if (i == 8 || i == 13 || i == 18 || i == 23) {
			if (c != '-')
				return 0;
		} else if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) {
			return 0;
		}
	}
	return s[REC_BOOT_LEN] == '\0';
}

int record_name(char *out, size_t outlen, const char *boot, pid_t pid, uint64_t start)
{
	if (!record_boot_valid(boot) || pid <= 0)
		return -EINVAL;
	int n = snprintf(out, outlen, "run-%s-%d-%llu", boot, (int)pid, (unsigned long long)start);
	return n < 0 || (size_t)n >= outlen ? -EINVAL : 0;
}

int record_name_parse(const char *name, char boot[REC_BOOT_LEN + 1], pid_t *pid,
		      uint64_t *start)
{
	size_t len = strlen(name);
	if (len < 4 + REC_BOOT_LEN + 4 || memcmp(name, "run-", 4) != 0 ||
	    name[4 + REC_BOOT_LEN] != '-')
		return -EINVAL;
	memcpy(boot, name + 4, REC_BOOT_LEN);
	boot[REC_BOOT_LEN] = '\0';
	if (!record_boot_valid(boot))
		return -EINVAL;
	const char *s = name + 4 + REC_BOOT_LEN + 1, *end = name + len;
	uint64_t p, st;
	if (parse_u64(&s, end, REC_PID_MAX, &p) < 0 || p == 0 || s >= end || *s++ != '-' ||
	    parse_u64(&s, end, UINT64_MAX, &st) < 0 || s != end)
		return -EINVAL;
	*pid = (pid_t)p;
	*start = st;
	return 0;
}
