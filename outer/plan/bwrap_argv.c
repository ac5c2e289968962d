/* bwrap_argv.c: see bwrap_argv.h. */
#include "plan/bwrap_argv.h"

#include <errno.h>
#include <stdio.h>

#define PUSH(s) do { if ((r = argv_push(out, (s))) < 0) goto oom; } while (0)
#define PUSHI(i) do { if ((r = argv_push_int(out, (i))) < 0) goto oom; } while (0)

static int push_op(struct argv *out, const struct mount_op *m)
{
	int r;
	char perms[8], size[24];
	switch (m->kind) {
	case MOUNT_RO_BIND: PUSH("--ro-bind"); PUSH(m->src); PUSH(m->dest); break;
	case MOUNT_BIND: PUSH("--bind"); PUSH(m->src); PUSH(m->dest); break;
	case MOUNT_DEV: PUSH("--dev"); PUSH(m->dest); break;
	case MOUNT_PROC: PUSH("--proc"); PUSH(m->dest); break;
	case MOUNT_TMPFS:
		(void)snprintf(perms, sizeof(perms), "%04o", m->perms);
		PUSH("--perms"); PUSH(perms);
		if (m->size) {
			(void)snprintf(size, sizeof(size), "%llu", m->size);
			PUSH("--size"); PUSH(size);
		}
		PUSH("--tmpfs"); PUSH(m->dest);
		break;
	case MOUNT_REMOUNT_RO: PUSH("--remount-ro"); PUSH(m->dest); break;
	case MOUNT_BIND_FD: PUSH("--bind-fd"); PUSHI(m->fd); PUSH(m->dest); break;
	case MOUNT_RO_BIND_FD: PUSH("--ro-bind-fd"); PUSHI(m->fd); PUSH(m->dest); break;
	case MOUNT_RO_BIND_PATH: PUSH("--ro-bind"); PUSH(m->dest); PUSH(m->dest); break;
	case MOUNT_MASK_FILE:
		PUSH("--perms"); PUSH("0000"); PUSH("--ro-bind-data"); PUSHI(m->fd); PUSH(m->dest);
		break;
	case MOUNT_MASK_DIR:
		PUSH("--perms"); PUSH("0000"); PUSH("--tmpfs"); PUSH(m->dest);
		PUSH("--remount-ro"); PUSH(m->dest);
		break;
	case MOUNT_CHDIR: PUSH("--chdir"); PUSH(m->dest); break;
	}
	return 0;
oom:
	return r;
}

int bwrap_argv_options(const struct mount_plan *p, const struct bwrap_opts *o,
		       struct argv *out, struct cordon_err *e)
{
	int r;
	PUSH(o->bwrap_name);
	/* A user namespace even as root: bwrap then drops every capability of
	 * the sandbox relative to the host, and --cap-drop ALL empties the
	 * sets inside it too (cordon-inner verifies both). */
	PUSH("--unshare-user");
	if (!o->share_pid)
		PUSH("--unshare-pid");
	PUSH("--unshare-ipc");
	PUSH("--unshare-uts");
	PUSH("--unshare-cgroup-try");
	if (!o->share_net)
		PUSH("--unshare-net");
	PUSH("--die-with-parent");
	if (o->new_session)
		PUSH("--new-session");
	if (!o->share_pid)
		PUSH("--as-pid-1");
	PUSH("--cap-drop");
	PUSH("ALL");
	if (o->standin && !o->share_pid) {
		/* Over the sandbox's own namespaces only; cordon-inner drops
		 * both before its check that every set is empty. */
		PUSH("--cap-add");
		PUSH("CAP_CHECKPOINT_RESTORE");
		PUSH("--cap-add");
		PUSH("CAP_SETPCAP");
	}
	if (o->info_fd >= 0) {
		PUSH("--info-fd");
		PUSHI(o->info_fd);
		/* bwrap's monitor waits on it once the namespaces exist, before
		 * the sandbox maps its user namespace or mounts anything: cordon
		 * creates the mount points and maps the namespace meanwhile
		 * (userns.h). */
		if (o->userns_block_fd >= 0) {
			PUSH("--userns-block-fd");
			PUSHI(o->userns_block_fd);
		}
	}
	for (size_t i = 0; p && i < p->n; i++)
		if ((r = push_op(out, &p->ops[i])) < 0)
			goto oom;
	return 0;
oom:
	argv_free(out);
	return err_set(e, -r, "out of memory building the bwrap command line");
}

int bwrap_argv_command(const struct bwrap_opts *o, struct argv *out, struct cordon_err *e)
{
	int r;
	PUSH("--");
	PUSH(o->inner_exec);
	for (char *const *a = o->inner_args; a && *a; a++)
		PUSH(*a);
	PUSH("--");
	for (char *const *a = o->cmd; a && *a; a++)
		PUSH(*a);
	return 0;
oom:
	argv_free(out);
	return err_set(e, -r, "out of memory building the bwrap command line");
}

int bwrap_argv_build(const struct mount_plan *p, const struct bwrap_opts *o,
		     struct argv *out, struct cordon_err *e)
{
	int r = bwrap_argv_options(p, o, out, e);
	return r < 0 ? r : bwrap_argv_command(o, out, e);
}
