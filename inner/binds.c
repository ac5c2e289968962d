/* binds.c: see binds.h. */
#include "binds.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "sys.h"
#include "wire.h"

int binds_compare(const char *path, const struct stat *mounted, const struct stat *sent,
		  struct cordon_err *e)
{
	if (mounted->st_dev != sent->st_dev || mounted->st_ino != sent->st_ino)
		return err_set(e, EXDEV,
			       "%s changed between cordon resolving it and the sandbox mounting it "
			       "(dev:ino %llu:%llu, expected %llu:%llu); refusing to run; "
			       "check what else is modifying that path and run again",
			       path, (unsigned long long)mounted->st_dev,
			       (unsigned long long)mounted->st_ino,
			       (unsigned long long)sent->st_dev, (unsigned long long)sent->st_ino);
	return 0;
}

static int check_one(const struct wire_rec *r, struct binds *b, struct cordon_err *e)
{
	struct stat mounted, sent;
	int writable = r->type == WIRE_BIND_CHECK;
	if (fstat(r->fd, &sent) < 0)
		return err_sys(e, errno, "fstat of the descriptor for %s", r->data);
	if (lstat(r->data, &mounted) < 0)
		return err_sys(e, errno, "%s %s is not visible in the sandbox (bwrap did not mount "
			       "it; cordon doctor checks this machine)",
			       writable ? "writable root" : "read-only path", r->data);
	int rc = binds_compare(r->data, &mounted, &sent, e);
	if (rc < 0)
		return rc;
	b->checked++;
	if (!writable)
		return 0;
	if (b->n >= BINDS_MAX)
		return err_set(e, E2BIG, "too many writable roots (at most %d)", BINDS_MAX);
	b->paths[b->n] = strdup(r->data);
	if (!b->paths[b->n])
		return err_set(e, ENOMEM, "out of memory");
	b->n++;
	return 0;
}

int binds_receive_and_check(int ctrl, struct binds *b, struct cordon_err *e)
{
	struct wire_peer peer = { WIRE_TO_INNER, 0 };
	static struct wire_rec rec;
	for (;;) {
		int r = wire_recv(ctrl, &peer, &rec, e);
		if (r == 0)
			return err_set(e, EPROTO, "cordon closed the control socket before sending "
					  "every writable root; refusing to run");
		if (r < 0)
			return r;
		if (rec.type == WIRE_BINDS_END) {
			uint32_t count;
			memcpy(&count, rec.data, sizeof(count));
			if (count != b->checked)
				return err_set(e, EPROTO, "cordon announced %u mounts to check, %zu arrived; "
						  "refusing to run", count, b->checked);
			return 0;
		}
		if (rec.type != WIRE_BIND_CHECK && rec.type != WIRE_RO_CHECK) {
			sys_close(&rec.fd);
			return err_set(e, EPROTO, "unexpected record %u before the writable roots ended",
				       rec.type);
		}
		r = check_one(&rec, b, e);
		sys_close(&rec.fd);
		if (r < 0)
			return r;
	}
}

void binds_free(struct binds *b)
{
	for (size_t i = 0; i < b->n; i++)
		free(b->paths[i]);
	b->n = 0;
	b->checked = 0;
}
