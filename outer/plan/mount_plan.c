/* mount_plan.c: see mount_plan.h. */
#include "plan/mount_plan.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "path.h"

struct ranked {
	const struct rpath *p;
	int writable;
	size_t seq;
};

/* Shallower first; at equal depth a writable root before a carve-out, so
 * --read-only on the very path of a root wins; otherwise input order. */
static int ranked_cmp(const void *a, const void *b)
{
	const struct ranked *x = a, *y = b;
	size_t dx = path_depth(x->p->path), dy = path_depth(y->p->path);
	if (dx != dy)
		return dx < dy ? -1 : 1;
	if (x->writable != y->writable)
		return x->writable ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static enum mount_kind ro_kind(const struct rpath *p)
{
	return p->late ? MOUNT_RO_BIND_PATH : MOUNT_RO_BIND_FD;
}

static void push(struct mount_plan *p, enum mount_kind k, const char *src,
		 const char *dest, int fd, unsigned perms)
{
	p->ops[p->n++] = (struct mount_op){ k, src, dest, fd, perms };
}

static int sort_by_depth(const struct rpath *v, size_t n, struct ranked **out)
{
	*out = calloc(n ? n : 1, sizeof(**out));
	if (!*out)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		(*out)[i] = (struct ranked){ &v[i], 0, i };
	qsort(*out, n, sizeof(**out), ranked_cmp);
	return 0;
}

int mount_plan_build(const struct plan_input *in, struct mount_plan *out,
		     struct cordon_err *e)
{
	size_t nlayer = in->nroots + in->ncarves;
	size_t max = 5 + nlayer + in->nprotects + in->nmasks;
	struct ranked *layer = NULL, *prot = NULL, *masks = NULL;

	out->n = 0;
	out->ops = calloc(max, sizeof(*out->ops));
	layer = calloc(nlayer ? nlayer : 1, sizeof(*layer));
	if (!out->ops || !layer || sort_by_depth(in->protects, in->nprotects, &prot) < 0 ||
	    sort_by_depth(in->masks, in->nmasks, &masks) < 0) {
		free(layer);
		free(prot);
		free(masks);
		mount_plan_free(out);
		return err_set(e, ENOMEM, "out of memory building the mount plan");
	}

	push(out, in->full_write ? MOUNT_BIND : MOUNT_RO_BIND, "/", "/", -1, 0);
	push(out, MOUNT_DEV, NULL, "/dev", -1, 0);
	push(out, MOUNT_PROC, NULL, "/proc", -1, 0);
	if (in->tmp_private)
		push(out, MOUNT_TMPFS, NULL, "/tmp", -1, 01777);

	for (size_t i = 0; i < in->nroots; i++)
		layer[i] = (struct ranked){ &in->roots[i], 1, i };
	for (size_t i = 0; i < in->ncarves; i++)
		layer[in->nroots + i] = (struct ranked){ &in->carves[i], in->carves[i].pin,
							 in->nroots + i };
	qsort(layer, nlayer, sizeof(*layer), ranked_cmp);
	for (size_t i = 0; i < nlayer; i++) {
		const struct rpath *p = layer[i].p;
		if (p->pin)
			push(out, MOUNT_BIND, p->path, p->path, -1, 0);
		else
			push(out, layer[i].writable ? MOUNT_BIND_FD : ro_kind(p), NULL,
			     p->path, p->late ? -1 : p->fd, 0);
	}

	for (size_t i = 0; i < in->nprotects; i++)
		push(out, ro_kind(prot[i].p), NULL, prot[i].p->path,
		     prot[i].p->late ? -1 : prot[i].p->fd, 0);

	for (size_t i = 0; i < in->nmasks; i++) {
		const struct rpath *m = masks[i].p;
		if (m->is_dir)
			push(out, MOUNT_MASK_DIR, NULL, m->path, -1, 0);
		else
			push(out, MOUNT_MASK_FILE, NULL, m->path, m->fd, 0);
	}
	if (in->cwd)
		push(out, MOUNT_CHDIR, NULL, in->cwd, -1, 0);

	free(layer);
	free(prot);
	free(masks);
	return 0;
}

void mount_plan_free(struct mount_plan *p)
{
	free(p->ops);
	p->ops = NULL;
	p->n = 0;
}
