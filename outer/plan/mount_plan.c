/* mount_plan.c: see mount_plan.h. */
#include "plan/mount_plan.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "path.h"
#include "plan/protect_decide.h"

const struct proc_rule mount_plan_proc_rules[MOUNT_PLAN_NPROC] = {
	{ "/proc/sys", PROC_READ_ONLY },
	{ "/proc/sysrq-trigger", PROC_READ_ONLY },
	{ "/proc/irq", PROC_READ_ONLY },
	{ "/proc/bus", PROC_READ_ONLY },
	{ "/proc/fs", PROC_READ_ONLY },
	/* mode 0666: a write registers a PSI trigger, a kernel poller */
	{ "/proc/pressure", PROC_READ_ONLY },
	{ "/proc/acpi", PROC_MASK },
	{ "/proc/asound", PROC_MASK },
	{ "/proc/kcore", PROC_MASK },
	{ "/proc/keys", PROC_MASK },
	{ "/proc/latency_stats", PROC_MASK },
	{ "/proc/timer_list", PROC_MASK },
	{ "/proc/timer_stats", PROC_MASK },
	{ "/proc/sched_debug", PROC_MASK },
	{ "/proc/scsi", PROC_MASK },
};

struct ranked {
	const char *path;
	int fd;            /* -1: bound by path */
	int writable;
	size_t seq;
	int keep;          /* a writable bind of the path onto itself (PROTECT_KEEP) */
};

/* Shallower first; at equal depth a writable root before a carve-out, so
 * --read-only on the very path of a root wins; otherwise input order. */
static int ranked_cmp(const void *a, const void *b)
{
	const struct ranked *x = a, *y = b;
	size_t dx = path_depth(x->path), dy = path_depth(y->path);
	if (dx != dy)
		return dx < dy ? -1 : 1;
	if (x->writable != y->writable)
		return x->writable ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static enum mount_kind kind_of(const struct ranked *r)
{
	if (r->keep)
		return MOUNT_BIND;
	if (r->writable)
		return MOUNT_BIND_FD;
	return r->fd < 0 ? MOUNT_RO_BIND_PATH : MOUNT_RO_BIND_FD;
}

static void push(struct mount_plan *p, enum mount_kind k, const char *src,
		 const char *dest, int fd, unsigned perms)
{
	p->ops[p->n++] = (struct mount_op){ k, src, dest, fd, perms, 0 };
}

static void push_tmpfs(struct mount_plan *p, const char *dest, unsigned long long size)
{
	p->ops[p->n++] = (struct mount_op){ MOUNT_TMPFS, NULL, dest, -1, 01777, size };
}

/* bwrap binds its sources from the host's tree: the host's /proc/sys is the
 * same sysctl table (the per-namespace entries follow the reader, not the
 * procfs instance), and /dev/null is empty data. */
static void push_proc_covers(struct mount_plan *p, const unsigned char *kinds)
{
	for (size_t i = 0; kinds && i < MOUNT_PLAN_NPROC; i++) {
		const struct proc_rule *r = &mount_plan_proc_rules[i];
		if (kinds[i] == PROC_ABSENT)
			continue;
		if (r->cover == PROC_READ_ONLY)
			push(p, MOUNT_RO_BIND, r->path, r->path, -1, 0);
		else if (kinds[i] == PROC_DIR)
			push(p, MOUNT_MASK_DIR, NULL, r->path, -1, 0);
		else
			push(p, MOUNT_RO_BIND, "/dev/null", r->path, -1, 0);
	}
}

static size_t count_actions(const struct protect_decision *d, int carve)
{
	size_t n = 0;
	for (size_t i = 0; d && i < d->n; i++)
		n += d->v[i].carve == carve && !protect_act_watched(d->v[i].act);
	return n;
}

int mount_plan_build(const struct plan_input *in, struct mount_plan *out,
		     struct cordon_err *e)
{
	const struct protect_decision *d = in->protect;
	size_t nlayer = in->nroots + in->ncarves + count_actions(d, 1);
	size_t nprot = count_actions(d, 0);
	size_t max = 7 + MOUNT_PLAN_NPROC + in->nkernel_ro + nlayer + nprot + in->nsockets +
		     in->nmasks;
	struct ranked *layer = NULL, *prot = NULL, *masks = NULL;

	out->n = 0;
	out->ops = calloc(max, sizeof(*out->ops));
	layer = calloc(nlayer ? nlayer : 1, sizeof(*layer));
	prot = calloc(nprot ? nprot : 1, sizeof(*prot));
	masks = calloc(in->nmasks ? in->nmasks : 1, sizeof(*masks));
	if (!out->ops || !layer || !prot || !masks) {
		free(layer);
		free(prot);
		free(masks);
		mount_plan_free(out);
		return err_set(e, ENOMEM, "out of memory building the mount plan");
	}

	push(out, in->full_write ? MOUNT_BIND : MOUNT_RO_BIND, "/", "/", -1, 0);
	/* A writable / carries the host's /sys writable too, and sysfs and
	 * cgroupfs files obey their owner alone: a root caller's command
	 * would reach power state and CPU hot-plug. */
	for (size_t i = 0; in->full_write && i < in->nkernel_ro; i++)
		push(out, MOUNT_RO_BIND, in->kernel_ro[i], in->kernel_ro[i], -1, 0);
	push(out, MOUNT_DEV, NULL, "/dev", -1, 0);
	/* bwrap's /dev is one tmpfs of the kernel's default size (half the
	 * memory) that the command owns: /dev/shm gets a capped tmpfs of its
	 * own, and the rest is remounted read-only below. */
	push_tmpfs(out, "/dev/shm", in->tmpfs_size);
	/* Read-only: through the host's /proc the caller's sysctls and every
	 * process's writable entries would be the command's to write. */
	if (in->host_proc)
		push(out, MOUNT_RO_BIND, "/proc", "/proc", -1, 0);
	else
		push(out, MOUNT_PROC, NULL, "/proc", -1, 0);
	push_proc_covers(out, in->proc);
	if (in->tmp_private)
		push_tmpfs(out, "/tmp", in->tmpfs_size);

	size_t nl = 0, np = 0;
	for (size_t i = 0; i < in->nroots; i++, nl++)
		layer[nl] = (struct ranked){ in->roots[i].path, in->roots[i].fd, 1, nl, 0 };
	for (size_t i = 0; i < in->ncarves; i++, nl++)
		layer[nl] = (struct ranked){ in->carves[i].path, in->carves[i].fd, 0, nl,
					     in->carves[i].pin };
	for (size_t i = 0; d && i < d->n; i++) {
		const struct protect_action *a = &d->v[i];
		if (protect_act_watched(a->act))
			continue; /* as on the host (absent, or another user's link) */
		if (a->carve) {
			layer[nl] = (struct ranked){ a->path, a->bind_fd, 0, nl, a->act == PROTECT_KEEP };
			nl++;
		} else {
			/* --git commit: a pinned git directory, writable onto
			 * itself before the read-only entries in it (deeper) */
			int keep = a->act == PROTECT_KEEP;
			prot[np] = (struct ranked){ a->path, keep ? -1 : a->bind_fd, keep, np, keep };
			np++;
		}
	}
	for (size_t i = 0; i < in->nmasks; i++)
		masks[i] = (struct ranked){ in->masks[i].path, in->masks[i].fd, 0, i, 0 };
	qsort(layer, nlayer, sizeof(*layer), ranked_cmp);
	qsort(prot, nprot, sizeof(*prot), ranked_cmp);
	qsort(masks, in->nmasks, sizeof(*masks), ranked_cmp);
	for (size_t i = 0; i < nlayer; i++)
		push(out, kind_of(&layer[i]), layer[i].keep ? layer[i].path : NULL, layer[i].path,
		     layer[i].keep ? -1 : layer[i].fd, 0);
	for (size_t i = 0; i < nprot; i++)
		push(out, kind_of(&prot[i]), prot[i].keep ? prot[i].path : NULL, prot[i].path,
		     prot[i].fd, 0);

	for (size_t i = 0; i < in->nsockets; i++)
		push(out, MOUNT_RO_BIND_FD, NULL, in->sockets[i].path, in->sockets[i].fd, 0);

	for (size_t i = 0; i < in->nmasks; i++) {
		const struct rpath *m = &in->masks[masks[i].seq];
		if (m->is_dir)
			push(out, MOUNT_MASK_DIR, NULL, m->path, -1, 0);
		else
			push(out, MOUNT_MASK_FILE, NULL, m->path, m->fd, 0);
	}
	push(out, MOUNT_REMOUNT_RO, NULL, "/dev", -1, 0);
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

const struct mount_op *mount_plan_shown_at(const struct mount_plan *plan, const char *path)
{
	const struct mount_op *shown = NULL;
	for (size_t i = 0; i < plan->n; i++) {
		const struct mount_op *op = &plan->ops[i];
		if (op->kind == MOUNT_CHDIR || op->kind == MOUNT_REMOUNT_RO || !op->dest)
			continue;
		if (path_is_under(path, op->dest))
			shown = op;
	}
	return shown;
}
