/* wire_guardian.c: see wire_guardian.h. */
#include "wire_guardian.h"

#include <errno.h>
#include <string.h>

#define PID_MAX_LIMIT 4194304

static const struct wire_spec gwire_table[GWIRE_TYPE_END] = {
	[GWIRE_READY] = { "ready", GWIRE_TO_CORDON, 0, 0, WIRE_FD_NONE, 1 },
	[GWIRE_SANDBOX] = { "sandbox", GWIRE_TO_GUARDIAN, sizeof(struct gwire_sandbox),
			    sizeof(struct gwire_sandbox), WIRE_FD_MAY, 1 },
	[GWIRE_DONE] = { "done", GWIRE_TO_GUARDIAN, 0, 0, WIRE_FD_NONE, 1 },
	[GWIRE_WATCH] = { "watch", GWIRE_TO_GUARDIAN, 48 + 4, sizeof(struct gwire_watch),
			  WIRE_FD_NONE, 0 },
	[GWIRE_TERMINAL] = { "terminal", GWIRE_TO_GUARDIAN, sizeof(struct gwire_terminal),
			     sizeof(struct gwire_terminal), WIRE_FD_MUST, 1 },
	[GWIRE_GITDIR] = { "gitdir", GWIRE_TO_GUARDIAN, 32 + 3, sizeof(struct gwire_gitdir),
			   WIRE_FD_MUST, 0 },
	[GWIRE_GITLINKS] = { "gitlinks", GWIRE_TO_GUARDIAN, 0, 0, WIRE_FD_MUST, 0 },
};

const struct wire_proto gwire_proto = { gwire_table, GWIRE_TYPE_END, "protocol error",
				       "the sandbox control socket" };

int gwire_sandbox_parse(const void *data, size_t len, struct gwire_sandbox *out)
{
	if (len != sizeof(*out))
		return -EPROTO;
	memcpy(out, data, sizeof(*out));
	if (out->pid <= 0 || out->pid > PID_MAX_LIMIT || out->zero != 0)
		return -EPROTO;
	return 0;
}

int gwire_watch_parse(const void *data, size_t len, struct gwire_watch *out, const char **root,
		      const char **names)
{
	if (len < 48 + 4 || len > sizeof(*out))
		return -EPROTO;
	memset(out, 0, sizeof(*out));
	memcpy(out, data, len);
	out->text[sizeof(out->text) - 1] = '\0';
	if (out->owner <= 0 || out->owner > PID_MAX_LIMIT || out->since_nsec >= 1000000000U ||
	    out->born_nsec >= 1000000000U || out->zero != 0)
		return -EPROTO;
	*root = out->text;
	size_t rl = strlen(out->text);
	if (out->text[0] != '/' || rl + 2 >= sizeof(out->text))
		return -EPROTO;
	*names = out->text + rl + 1;
	if (!**names)
		return -EPROTO;
	/* Every component one file name: the guardian renames within the
	 * root only. */
	for (const char *n = *names; *n;) {
		size_t l = strcspn(n, "/");
		if (l == 0 || (l == 1 && n[0] == '.') || (l == 2 && n[0] == '.' && n[1] == '.'))
			return -EPROTO;
		n += l;
		if (*n == '/')
			n++;
	}
	return 0;
}

int gwire_gitdir_parse(const void *data, size_t len, struct gwire_gitdir *out, const char **path,
		       const char **checkout)
{
	if (len < 32 + 3 || len > sizeof(*out))
		return -EPROTO;
	memset(out, 0, sizeof(*out));
	memcpy(out, data, len);
	out->text[sizeof(out->text) - 1] = '\0';
	if (out->since_nsec >= 1000000000U ||
	    (out->flags & ~(GWIRE_GITDIR_TOP | GWIRE_GITDIR_REPO)) != 0)
		return -EPROTO;
	size_t pl = strlen(out->text);
	if (out->text[0] != '/' || pl + 2 >= sizeof(out->text))
		return -EPROTO;
	*path = out->text;
	*checkout = out->text + pl + 1;
	if (!**checkout) {
		*checkout = NULL;
		return 0;
	}
	if (**checkout != '/' || out->root_ino == 0)
		return -EPROTO;
	return 0;
}
