/* prefix_decide.c: see prefix_decide.h. */
#include "plan/prefix_decide.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include "path.h"

int prefix_escape(const char *dir, char *out, size_t outlen)
{
	if (dir[0] != '/')
		return -EINVAL;
	if (strcmp(dir, "/") == 0)
		return snprintf(out, outlen, "-") < (int)outlen ? 0 : -ENAMETOOLONG;
	size_t o = 0;
	for (const char *p = dir + 1; *p; p++) {
		const char *rep = *p == '%' ? "%25" : *p == '-' ? "%2D" : *p == '/' ? "-" : NULL;
		char one[2] = { *p, '\0' };
		const char *s = rep ? rep : one;
		size_t l = strlen(s);
		if (o + l >= outlen)
			return -ENAMETOOLONG;
		memcpy(out + o, s, l);
		o += l;
	}
	if (o >= outlen)
		return -ENAMETOOLONG;
	out[o] = '\0';
	return 0;
}

int prefix_choose(const struct prefix_level *v, size_t n, int global, const char *global_file,
		  const char *who, struct prefix_choice *out, struct cordon_err *e)
{
	if (n == 0)
		return err_set(e, EINVAL, "%s: internal: no working directory", who);
	for (size_t i = 0; i < n; i++) {
		if (v[i].policy < 0)
			return err_set(e, -v[i].policy, "%s: cannot look for policy %s: %s; "
				       "fix its directory's permissions", who, v[i].file,
				       strerror(-v[i].policy));
		if (v[i].policy > 0) {
			*out = (struct prefix_choice){ PREFIX_PROJECT_FILE, i, i };
			return 0;
		}
	}
	if (global < 0)
		return err_set(e, -global, "%s: cannot look for policy %s: %s", who, global_file,
			       strerror(-global));
	size_t project = 0;
	for (size_t i = 0; i < n; i++) {
		if (v[i].git) {
			project = i;
			break;
		}
	}
	*out = (struct prefix_choice){ global > 0 ? PREFIX_GLOBAL_FILE : PREFIX_NO_FILE, 0, project };
	return 0;
}

int prefix_judge_private(const struct prefix_entry *f, uid_t me, const char *project,
			 const char *who, struct cordon_err *e)
{
	const struct stat *st = &f->st;
	if (S_ISLNK(st->st_mode))
		return err_set(e, EPERM, "%s: %s %s is a symbolic link: refused (a link can be "
			       "pointed anywhere the command writes); replace it with the %s", who,
			       f->what, f->path, f->want_dir ? "directory" : "file");
	if (f->want_dir ? !S_ISDIR(st->st_mode) : !S_ISREG(st->st_mode))
		return err_set(e, EPERM, "%s: %s %s is not a %s: refused", who, f->what, f->path,
			       f->want_dir ? "directory" : "regular file");
	if (st->st_uid != me)
		return err_set(e, EPERM, "%s: %s %s belongs to uid %u, not to you (uid %u): refused; "
			       "chown it or remove it", who, f->what, f->path, (unsigned)st->st_uid,
			       (unsigned)me);
	if (st->st_mode & (S_IWGRP | S_IWOTH))
		return err_set(e, EPERM, "%s: %s %s is writable by group or others (mode %o): "
			       "refused; chmod go-w it", who, f->what, f->path,
			       (unsigned)(st->st_mode & 07777));
	/* Another name of the file may lie in a writable root, and a write
	 * through it is a write to the policy. */
	if (!f->want_dir && st->st_nlink > 1)
		return err_set(e, EPERM, "%s: %s %s has %lu names (hard links): refused; copy it to "
			       "a file of its own", who, f->what, f->path, (unsigned long)st->st_nlink);
	if (path_is_under(f->real, project))
		return err_set(e, EPERM, "%s: %s %s is inside the project %s, which the command "
			       "can write: refused; keep policies outside every writable root", who,
			       f->what, f->path, project);
	return 0;
}

int prefix_check_project(const char *project, const char *cwd, const char *home_real,
			 const char *config, const char *config_real, const char *who,
			 struct cordon_err *e)
{
	char name[PATH_MAX];
	int named = prefix_escape(cwd, name, sizeof(name)) == 0;
	if (strcmp(project, "/") == 0 || strcmp(project, home_real) == 0) {
		/* A policy for / would apply in every directory: never
		 * suggested.  Elsewhere, the file for where the agent is. */
		if (strcmp(cwd, "/") == 0 || !named)
			return err_set(e, EPERM, "%s: the project directory would be %s (no .git above "
				       "%s): refused to make it writable; cd into a project (a "
				       "directory holding .git)", who, project, cwd);
		return err_set(e, EPERM, "%s: the project directory would be %s (no .git above %s): "
			       "refused to make it writable; cd into a project or write "
			       "%s/cordon/projects/%s.json", who, project, cwd, config, name);
	}
	/* Where the policies go must not be writable either: a command run
	 * from /home could otherwise plant one for the next run. */
	if (path_is_under(config_real, project))
		return err_set(e, EPERM, "%s: the project %s holds %s, where the policies go: "
			       "refused to make it writable; write %s/cordon/projects/%s.json", who,
			       project, config, config, named ? name : "NAME");
	return 0;
}

/* The kinds of mount through which the command can write.  Anything not
 * named read-only here counts as writable, so that a kind added to the
 * plan later is refused until it is classed. */
static int kind_writable(enum mount_kind k)
{
	switch (k) {
	case MOUNT_RO_BIND:
	case MOUNT_RO_BIND_FD:
	case MOUNT_RO_BIND_PATH:
	case MOUNT_MASK_FILE:
	case MOUNT_MASK_DIR:
		return 0;
	default:
		return 1;
	}
}

/* The mount the sandbox shows at path: the last of the plan whose target
 * is path or a directory above it (later mounts win, and the plan binds
 * shallower paths first).  A remount and the working directory are not
 * mounts of their own: /dev's remount leaves /dev/shm writable, and
 * skipping it counts /dev as writable, which is the conservative side. */

/* Why this replaces a probe sandbox: the command can change the policy for
 * the next run if it can write the file or any directory on its path (one
 * that writes ~/.config renames cordon/ away, read-only carve-out and all,
 * and puts a wider policy in its place).  What the command can write is
 * decided by the mount plan alone: Landlock only narrows it (its write
 * rules are the same roots), seccomp never widens it.  So each directory
 * on the path is looked up in the plan as the kernel will show it, the
 * last mount covering it, and a writable mount there refuses.  That is
 * conservative on three counts: a read-only mount point inside a writable
 * directory cannot be renamed (EBUSY), but its writable parent refuses
 * anyway; /tmp and /dev/shm are private tmpfs, not the host's, but
 * refuse; and /dev counts as writable.  The plan names paths, and the
 * host may show one directory under two (a bind mount): a directory on
 * the path that is a writable root under another name refuses too.  What
 * it cannot see is a host bind mount of a directory inside a writable
 * root, reached through neither name; the probe it replaces could not
 * see that either. */
int prefix_check_not_writable_inside(const struct prefix_guard *g, const struct mount_plan *plan,
				     const struct rpath *roots, size_t nroots, struct cordon_err *e)
{
	if (!g || g->n == 0)
		return 0;
	const char *file = g->v[0].path;
	for (size_t i = 0; i < g->n; i++) {
		const struct prefix_guard_dir *d = &g->v[i];
		const struct mount_op *op = mount_plan_shown_at(plan, d->path);
		/* Nothing covers it: the plan always starts with /, so a plan
		 * without it is not one this check understands.  The message
		 * names the writable mount, a directory on the path too: the
		 * entry of the policy to take out. */
		if (!op || kind_writable(op->kind))
			return err_set(e, EPERM, "%s: policy %s is writable inside the sandbox it "
				       "makes (%s is): refused; keep it out of the policy's write list",
				       g->who, file, op ? op->dest : d->path);
		for (size_t r = 0; r < nroots; r++) {
			if (roots[r].dev == d->dev && roots[r].ino == d->ino &&
			    strcmp(roots[r].path, d->path) != 0)
				return err_set(e, EPERM, "%s: policy %s is writable inside the "
					       "sandbox it makes (%s is, as the writable root %s): "
					       "refused; keep it out of the policy's write list",
					       g->who, file, d->path, roots[r].path);
		}
	}
	return 0;
}
