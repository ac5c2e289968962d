/* registry.c: see registry.h.  Belongs here: everything that touches the
 * registry directory, and the rmdir that carries out a reclaim verdict. */
#include "hostpaths/registry.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>
#include "path.h"
#include "procstat.h"
#include "sys.h"

#define LOCK_NAME "lock"
#define TMP_PREFIX "tmp."
#define MAX_RECORDS 65536

/* --- locating and opening ------------------------------------------------ */

/* The registry path, and how many of its leading components must already
 * exist (the home directory, or the parent of $XDG_STATE_HOME): cordon
 * creates the state directories below them, never a home directory. */
static int registry_locate(char *out, size_t outlen, size_t *must_exist, struct cordon_err *e)
{
	char base[PATH_MAX], raw[PATH_MAX];
	const char *xdg = getenv("XDG_STATE_HOME");
	int n;

	/* The XDG spec says to ignore a relative value. */
	if (xdg && xdg[0] == '/') {
		if (path_clean(xdg, base, sizeof(base)) < 0)
			return err_set(e, ENAMETOOLONG, "XDG_STATE_HOME is too long");
		*must_exist = path_depth(base) ? path_depth(base) - 1 : 0;
		n = snprintf(raw, sizeof(raw), "%s/cordon/registry", base);
	} else {
		const char *home = getenv("HOME");
		if (!home || home[0] != '/') {
			struct passwd *pw = getpwuid(geteuid());
			home = pw ? pw->pw_dir : NULL;
		}
		if (!home || home[0] != '/')
			return err_set(e, ENOENT,
				       "cannot find the registry: HOME is not set and the user has no "
				       "home directory; set XDG_STATE_HOME to a directory of yours");
		if (path_clean(home, base, sizeof(base)) < 0)
			return err_set(e, ENAMETOOLONG, "HOME is too long");
		*must_exist = path_depth(base);
		n = snprintf(raw, sizeof(raw), "%s/.local/state/cordon/registry",
			     strcmp(base, "/") == 0 ? "" : base);
	}
	if (n < 0 || (size_t)n >= sizeof(raw) || path_clean(raw, out, outlen) < 0)
		return err_set(e, ENAMETOOLONG, "the registry path is too long");
	return 0;
}

/* Check one opened component.  `last`: the registry itself. */
static int check_component(struct registry *reg, const char *shown, const struct stat *st,
			   int last, struct cordon_err *e)
{
	uid_t me = geteuid();
	if (last ? st->st_uid != me : (st->st_uid != me && st->st_uid != 0))
		return err_set(e, EPERM,
			      "registry %s: %s is owned by someone else; set XDG_STATE_HOME to a "
			      "directory of yours", reg->path, shown);
	if (!last && (st->st_mode & S_IWOTH) && !(st->st_mode & S_ISVTX))
		return err_set(e, EPERM,
			      "registry %s: %s is writable by everyone; set XDG_STATE_HOME to a "
			      "directory of yours", reg->path, shown);
	return 0;
}

int registry_open(struct registry *reg, struct cordon_err *e)
{
	size_t must_exist = 0;
	char shown[PATH_MAX] = "";
	int rc;

	*reg = (struct registry)REGISTRY_INIT;
	if ((rc = registry_locate(reg->path, sizeof(reg->path), &must_exist, e)) < 0) {
		reg->absent = rc == -ENOENT; /* no home: no registry either */
		return rc;
	}

	AUTO_FD cur = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (cur < 0)
		return err_sys(e, errno, "registry %s: cannot open /", reg->path);
	struct stat st;
	if (fstat(cur, &st) < 0)
		return err_sys(e, errno, "registry %s: cannot inspect /", reg->path);
	if ((rc = check_component(reg, "/", &st, 0, e)) < 0)
		return rc;
	size_t depth = path_depth(reg->path), idx = 0;
	if (depth > REGISTRY_MAX_DEPTH)
		return err_set(e, ENAMETOOLONG, "registry %s: too deep", reg->path);
	reg->anc[reg->nanc++] = (struct registry_anc){ st.st_dev, st.st_ino, 0 };

	const char *p = reg->path;
	while (*p) {
		size_t len;
		const char *s = path_next(&p, &len);
		char comp[NAME_MAX + 1];
		if (len == 0)
			break;
		if (len > NAME_MAX)
			return err_set(e, ENAMETOOLONG, "registry %s: a component is too long", reg->path);
		memcpy(comp, s, len);
		comp[len] = '\0';
		(void)snprintf(shown, sizeof(shown), "%.*s", (int)(p - reg->path), reg->path);
		idx++;

		int fd = openat(cur, comp, O_PATH | O_NOFOLLOW | O_DIRECTORY | O_CLOEXEC);
		if (fd < 0 && errno == ENOENT) {
			/* Missing, so no record can exist below: a run with
			 * nothing to materialize may go on without it. */
			if (idx <= must_exist) {
				reg->absent = 1;
				return err_set(e, ENOENT, "registry %s: %s does not exist; set "
					       "XDG_STATE_HOME to a directory of yours", reg->path, shown);
			}
			if (mkdirat(cur, comp, 0700) < 0 && errno != EEXIST) {
				reg->absent = 1;
				return err_sys(e, errno, "cannot create the registry directory %s "
					       "(set XDG_STATE_HOME to a writable directory)", shown);
			}
			fd = openat(cur, comp, O_PATH | O_NOFOLLOW | O_DIRECTORY | O_CLOEXEC);
		}
		if (fd < 0) {
			int err = errno;
			struct stat lst;
			if ((err == ENOTDIR || err == ELOOP) &&
			    fstatat(cur, comp, &lst, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(lst.st_mode))
				return err_set(e, ELOOP,
					      "registry %s: %s is a symbolic link; set XDG_STATE_HOME "
					      "to a path without any", reg->path, shown);
			return err_set(e, err, "registry %s: cannot open %s: %s; set XDG_STATE_HOME "
				       "to a directory of yours", reg->path, shown, strerror(err));
		}
		sys_close(&cur);
		cur = fd;
		if (fstat(cur, &st) < 0)
			return err_sys(e, errno, "registry %s: cannot inspect %s", reg->path, shown);
		if ((rc = check_component(reg, shown, &st, idx == depth, e)) < 0)
			return rc;
		reg->anc[reg->nanc++] = (struct registry_anc){ st.st_dev, st.st_ino,
								(size_t)(p - reg->path) };
	}

	/* The registry itself, opened readable for readdir: "." of the O_PATH
	 * descriptor is the very directory just checked (st). */
	reg->dirfd = openat(cur, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (reg->dirfd < 0)
		return err_sys(e, errno, "registry %s: cannot open it", reg->path);
	if ((st.st_mode & 07777) != 0700 && fchmod(reg->dirfd, 0700) < 0) {
		int err = errno;
		registry_close(reg);
		return err_sys(e, err, "registry %s: cannot make it mode 0700 (chmod 700 it)", shown);
	}
	reg->dev = st.st_dev;
	reg->ino = st.st_ino;
	if ((rc = registry_reopen_lock(reg, e)) < 0) {
		registry_close(reg);
		return rc;
	}
	return 0;
}

int registry_reopen_lock(struct registry *reg, struct cordon_err *e)
{
	sys_close(&reg->lockfd);
	reg->locked = 0;
	reg->lockfd = openat(reg->dirfd, LOCK_NAME, O_RDWR | O_CREAT | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC, 0600);
	if (reg->lockfd < 0)
		return err_sys(e, errno, "registry %s: cannot open its lock file", reg->path);
	struct stat st;
	if (fstat(reg->lockfd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid()) {
		sys_close(&reg->lockfd);
		return err_set(e, EPERM, "registry %s: %s/" LOCK_NAME " is not a file of yours",
			       reg->path, reg->path);
	}
	return 0;
}

static void live_free(struct registry *reg)
{
	for (size_t i = 0; i < reg->nlive; i++)
		free(reg->live[i].path);
	free(reg->live);
	reg->live = NULL;
	reg->nlive = 0;
}

void registry_close(struct registry *reg)
{
	registry_unlock(reg);
	sys_close(&reg->lockfd);
	sys_close(&reg->dirfd);
	live_free(reg);
}

int registry_lock(struct registry *reg, struct cordon_err *e)
{
	if (reg->locked)
		return 0;
	while (flock(reg->lockfd, LOCK_EX) < 0)
		if (errno != EINTR)
			return err_sys(e, errno, "registry %s: cannot lock it", reg->path);
	reg->locked = 1;
	return 0;
}

void registry_unlock(struct registry *reg)
{
	if (!reg->locked)
		return;
	/* Closing the descriptor would release the lock as well. */
	(void)flock(reg->lockfd, LOCK_UN);
	reg->locked = 0;
}

/* --- facts about this boot and about processes ----------------------------- */

int registry_facts(struct registry *reg, struct cordon_err *e)
{
	if (reg->boot[0])
		return 0;
	char buf[REC_BOOT_LEN + 2];
	AUTO_FD fd = open("/proc/sys/kernel/random/boot_id", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return err_sys(e, errno, "cannot read /proc/sys/kernel/random/boot_id (is /proc mounted?)");
	ssize_t n = sys_read_full(fd, buf, sizeof(buf));
	if (n != REC_BOOT_LEN + 1 || buf[REC_BOOT_LEN] != '\n')
		return err_set(e, EIO, "unexpected contents in /proc/sys/kernel/random/boot_id");
	buf[REC_BOOT_LEN] = '\0';
	if (!record_boot_valid(buf))
		return err_set(e, EIO, "unexpected contents in /proc/sys/kernel/random/boot_id");
	struct stat st;
	if (stat("/proc/self/ns/pid", &st) < 0)
		return err_sys(e, errno, "cannot inspect /proc/self/ns/pid");
	memcpy(reg->boot, buf, sizeof(reg->boot));
	reg->pidns = (uint64_t)st.st_ino;
	return 0;
}

int registry_proc_start(pid_t pid, uint64_t *start)
{
	char buf[1024];
	unsigned long long v;
	ssize_t n = procstat_read(-1, pid, buf, sizeof(buf));
	if (n < 0)
		return (int)n;
	char state = procstat_state(buf);
	if (state == 'Z' || state == 'X')
		return -ESRCH;
	if (!state || procstat_field(buf, 22, &v) < 0)
		return -EINVAL;
	*start = v;
	return 0;
}

/* --- record files ----------------------------------------------------------- */

int registry_write(struct registry *reg, const char *name, const struct record *rec,
		   struct cordon_err *e)
{
	char tmp[REC_NAME_MAX + sizeof(TMP_PREFIX)];
	char *text = NULL;
	size_t len;
	int rc;

	if (!reg->locked)
		return err_set(e, EINVAL, "internal: registry written without its lock");
	(void)snprintf(tmp, sizeof(tmp), TMP_PREFIX "%s", name);
	if ((rc = record_format(rec, &text, &len)) < 0)
		return err_set(e, -rc, "registry %s: cannot format the record of this run", reg->path);
	int fd = openat(reg->dirfd, tmp, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC, 0600);
	if (fd < 0) {
		rc = err_sys(e, errno, "registry %s: cannot write %s", reg->path, tmp);
		goto out;
	}
	rc = sys_write_all(fd, text, len);
	if (close(fd) < 0 && rc == 0 && errno != EINTR)
		rc = -errno;
	if (rc < 0) {
		(void)unlinkat(reg->dirfd, tmp, 0);
		rc = err_sys(e, -rc, "registry %s: cannot write %s", reg->path, tmp);
		goto out;
	}
	if (renameat(reg->dirfd, tmp, reg->dirfd, name) < 0) {
		rc = err_sys(e, errno, "registry %s: cannot rename %s", reg->path, tmp);
		(void)unlinkat(reg->dirfd, tmp, 0);
		goto out;
	}
out:
	free(text);
	return rc;
}

/* Read and parse one record file.  0, or -EBADMSG with why[] filled. */
static int read_record(int dirfd, const char *name, struct record *rec, char *why, size_t whylen)
{
	struct stat st;
	/* O_NONBLOCK: a FIFO planted under a record's name must not hang us. */
	AUTO_FD fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0) {
		(void)snprintf(why, whylen, "cannot open it: %s", strerror(errno));
		return -EBADMSG;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid() ||
	    st.st_size > (off_t)REC_MAX_BYTES) {
		(void)snprintf(why, whylen, "not a record file of yours");
		return -EBADMSG;
	}
	char *buf = malloc((size_t)st.st_size + 1);
	if (!buf)
		return -ENOMEM;
	ssize_t n = sys_read_full(fd, buf, (size_t)st.st_size + 1);
	int rc;
	if (n < 0) {
		(void)snprintf(why, whylen, "cannot read it: %s", strerror((int)-n));
		rc = -EBADMSG;
	} else {
		rc = record_parse(buf, (size_t)n, rec, why, whylen);
	}
	free(buf);
	if (rc < 0)
		return rc;
	/* The name says whose record it is; the contents must agree. */
	char expect[REC_NAME_MAX];
	if (record_name(expect, sizeof(expect), rec->boot, rec->proc[REC_OWNER].pid,
			rec->proc[REC_OWNER].start) < 0 || strcmp(expect, name) != 0) {
		record_free(rec);
		(void)snprintf(why, whylen, "its name does not match its contents");
		return -EBADMSG;
	}
	return 0;
}

/* --- sweeping ---------------------------------------------------------------- */

struct loaded {
	char name[REC_NAME_MAX];
	struct record rec;
	int alive;
	int released;
	const char *why;
	struct run_facts facts;     /* as seen when the record was loaded */
};

static void facts_for(const struct registry *reg, const struct record *rec, struct run_facts *f)
{
	f->boot_now = reg->boot;
	f->pidns_now = reg->pidns;
	for (int i = 0; i < REC_NPROCS; i++) {
		f->start_now[i] = 0;
		if (rec->proc[i].pid <= 0)
			continue;
		uint64_t s = 0;
		int r = registry_proc_start(rec->proc[i].pid, &s);
		if (r == 0)
			f->start_now[i] = s;
		else if (r != -ESRCH)
			/* Cannot tell (say /proc hides it): assume it is that process. */
			f->start_now[i] = rec->proc[i].start;
	}
}

/* Look at `path` now: *parent gets an O_PATH descriptor of its directory
 * (or -1), *name its last component.  0, or -errno when it cannot be looked
 * at (then nothing may be decided about it). */
static int path_look(const char *path, int *parent, const char **name, struct path_fact *f)
{
	char dir[REC_PATH_MAX];
	memset(f, 0, sizeof(*f));
	*parent = -1;
	const char *slash = strrchr(path, '/');
	if (!slash || !slash[1] || strlen(path) >= sizeof(dir))
		return -EINVAL;
	*name = slash + 1;
	if (strcmp(*name, ".") == 0 || strcmp(*name, "..") == 0)
		return -EINVAL;
	size_t dl = slash == path ? 1 : (size_t)(slash - path);
	memcpy(dir, path, dl);
	dir[dl] = '\0';
	*parent = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (*parent < 0)
		return errno == ENOENT || errno == ENOTDIR ? 0 : -errno;
	struct stat st;
	if (fstatat(*parent, *name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return errno == ENOENT ? 0 : -errno;
	f->exists = 1;
	f->dev = st.st_dev;
	f->ino = st.st_ino;
	f->is_dir = S_ISDIR(st.st_mode);
	f->is_reg = S_ISREG(st.st_mode);
	if (!f->is_dir)
		return 0;
	int fd = openat(*parent, *name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return 0; /* emptiness unknown: is_empty stays 0 and it is kept */
	struct stat dst;
	DIR *d = fdopendir(fd);
	if (!d) {
		sys_close(&fd);
		return 0;
	}
	if (fstat(fd, &dst) == 0 && dst.st_dev == st.st_dev && dst.st_ino == st.st_ino) {
		struct dirent *de;
		int any = 0;
		errno = 0;
		while ((de = readdir(d)))
			if (strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0) {
				any = 1;
				break;
			}
		f->is_empty = !any && errno == 0;
	}
	closedir(d);
	return 0;
}

static void report_errno(registry_report_fn fn, void *ctx, const char *path,
			 const char *what, int err)
{
	char why[160];
	(void)snprintf(why, sizeof(why), "%s: %s", what, strerror(err));
	if (fn)
		fn(ctx, path, RECLAIM_KEEP, why);
}

/* Another sandbox (of any registry: root's, another XDG_STATE_HOME's)
 * still binds the directory `name` in parent, which is (dev, ino): it holds
 * a shared flock on it for as long as its bwrap runs (protect.c).  rmdir on
 * the host would detach that mount in the other sandbox, whose command could
 * then create the name.  1 if so; otherwise 0 with *held, when it could be
 * opened, an exclusive lock kept over the rmdir (a run that starts binding
 * it meanwhile waits, then sees it unlinked and refuses). */
static int held_elsewhere(int parent, const char *name, uint64_t dev, uint64_t ino, int *held)
{
	struct stat st;
	*held = openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (*held < 0)
		return 0; /* unreadable: nobody could have locked it through cordon */
	if (fstat(*held, &st) < 0 || st.st_dev != dev || st.st_ino != ino) {
		sys_close(held);
		return 0;
	}
	if (flock(*held, LOCK_EX | LOCK_NB) == 0)
		return 0;
	int busy = errno == EWOULDBLOCK;
	sys_close(held);
	return busy;
}

#define WHY_HELD "in use by another sandbox (another registry's run binds it); " \
		 "removed once that sandbox ends"

/* Judge and carry out one entry of a record whose run is over.  1 if it was
 * kept because another sandbox still binds it: the record must stay. */
static int settle_entry(const struct registry *reg, const struct loaded *l,
			const struct rec_entry *en, registry_report_fn fn, void *ctx)
{
	struct reclaim_input in = {
		.rec = &l->rec, .entry = en, .released = l->released, .facts = &l->facts,
		.live = reg->live, .nlive = reg->nlive,
	};
	int parent = -1, held = -1, busy = 0;
	const char *name = NULL;

	int r = path_look(en->path, &parent, &name, &in.now);
	if (r < 0) {
		sys_close(&parent);
		report_errno(fn, ctx, en->path, "cannot inspect it", -r);
		return 0;
	}
	struct reclaim_decision d = reclaim_decide(&in);
	if (d.verdict == RECLAIM_REMOVE &&
	    (busy = held_elsewhere(parent, name, in.now.dev, in.now.ino, &held))) {
		if (fn)
			fn(ctx, en->path, RECLAIM_KEEP, WHY_HELD);
	} else if (d.verdict == RECLAIM_REMOVE) {
		/* rmdir only: whatever happened since the look, it removes
		 * nothing but an empty directory. */
		if (unlinkat(parent, name, AT_REMOVEDIR) < 0) {
			if (errno != ENOENT)
				report_errno(fn, ctx, en->path, "cannot remove it", errno);
		} else if (fn) {
			fn(ctx, en->path, RECLAIM_REMOVE, d.why);
		}
	} else if (d.verdict == RECLAIM_KEEP && fn) {
		fn(ctx, en->path, RECLAIM_KEEP, d.why);
	}
	sys_close(&held);
	sys_close(&parent);
	return busy;
}

static int load_all(struct registry *reg, const char *released, int skip_released,
		    struct loaded **out, size_t *nout, registry_report_fn fn, void *ctx,
		    struct cordon_err *e)
{
	int fd = openat(reg->dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return err_sys(e, errno, "registry %s: cannot read it", reg->path);
	DIR *d = fdopendir(fd);
	if (!d) {
		sys_close(&fd);
		return err_sys(e, errno, "registry %s: cannot read it", reg->path);
	}
	struct loaded *v = NULL;
	size_t n = 0;
	int rc = 0;
	struct dirent *de;
	while ((de = readdir(d))) {
		const char *nm = de->d_name;
		if (strncmp(nm, TMP_PREFIX "run-", sizeof(TMP_PREFIX "run-") - 1) == 0) {
			char boot[REC_BOOT_LEN + 1];
			pid_t pid;
			uint64_t start;
			/* A temporary record of a dead run (killed mid-write). */
			const char *rn = nm + sizeof(TMP_PREFIX) - 1;
			struct record who = { 0 };
			struct run_facts f;
			if (record_name_parse(rn, boot, &pid, &start) < 0)
				continue;
			memcpy(who.boot, boot, sizeof(boot));
			who.pidns = reg->pidns;
			who.proc[REC_OWNER] = (struct rec_proc){ pid, start };
			facts_for(reg, &who, &f);
			if (!reclaim_run_alive(&who, &f, NULL))
				(void)unlinkat(reg->dirfd, nm, 0);
			continue;
		}
		if (strncmp(nm, "run-", 4) != 0)
			continue;
		if (skip_released && released && strcmp(nm, released) == 0)
			continue;
		if (n >= MAX_RECORDS) {
			rc = err_set(e, E2BIG, "registry %s holds more than %d records; "
				     "remove the stale ones by hand", reg->path, MAX_RECORDS);
			break;
		}
		struct loaded *nv = realloc(v, (n + 1) * sizeof(*nv));
		if (!nv) {
			rc = err_set(e, ENOMEM, "out of memory");
			break;
		}
		v = nv;
		struct loaded *l = &v[n];
		memset(l, 0, sizeof(*l));
		char why[128];
		char shown[PATH_MAX + NAME_MAX + 2];
		(void)snprintf(shown, sizeof(shown), "%s/%s", reg->path, nm);
		if (strlen(nm) >= sizeof(l->name)) {
			if (fn)
				fn(ctx, shown, RECLAIM_KEEP, "unreadable record: name too long");
			continue;
		}
		memcpy(l->name, nm, strlen(nm) + 1);
		int r = read_record(reg->dirfd, nm, &l->rec, why, sizeof(why));
		if (r == -ENOMEM) {
			rc = err_set(e, ENOMEM, "out of memory");
			break;
		}
		if (r < 0) {
			/* Not cordon's to judge: leave the file and every path. */
			char msg[200];
			(void)snprintf(msg, sizeof(msg), "unreadable record: %s", why);
			if (fn)
				fn(ctx, shown, RECLAIM_KEEP, msg);
			continue;
		}
		if (released && strcmp(nm, released) == 0) {
			l->released = 1;
		} else {
			facts_for(reg, &l->rec, &l->facts);
			l->alive = reclaim_run_alive(&l->rec, &l->facts, &l->why);
		}
		n++;
	}
	closedir(d);
	*out = v;
	*nout = n;
	return rc;
}

static int sweep(struct registry *reg, const char *released, const struct record *mine,
		 registry_report_fn fn, void *ctx, struct cordon_err *e)
{
	struct loaded *v = NULL;
	size_t n = 0;
	int rc;

	if (!reg->locked)
		return err_set(e, EINVAL, "internal: registry swept without its lock");
	if ((rc = registry_facts(reg, e)) < 0)
		return rc;
	live_free(reg);
	rc = load_all(reg, released, mine != NULL, &v, &n, fn, ctx, e);

	for (size_t i = 0; rc == 0 && i < n; i++) {
		if (!v[i].alive)
			continue;
		for (size_t j = 0; j < v[i].rec.n; j++) {
			const struct rec_entry *en = &v[i].rec.v[j];
			struct rec_entry *nl = realloc(reg->live, (reg->nlive + 1) * sizeof(*nl));
			char *p = nl ? strdup(en->path) : NULL;
			if (!p) {
				if (nl)
					reg->live = nl;
				rc = err_set(e, ENOMEM, "out of memory");
				break;
			}
			reg->live = nl;
			reg->live[reg->nlive++] = (struct rec_entry){ en->kind, en->dev, en->ino, p };
			if (fn)
				fn(ctx, en->path, RECLAIM_KEEP, v[i].why);
		}
	}
	/* A record with a path another sandbox still binds stays: the next
	 * sweep (its guardian's, waiting in registry_wait_unbound) ends it. */
	int released_busy = 0;
	for (size_t i = 0; rc == 0 && i < n; i++) {
		if (v[i].alive)
			continue;
		int busy = 0;
		for (size_t j = 0; j < v[i].rec.n; j++)
			busy |= settle_entry(reg, &v[i], &v[i].rec.v[j], fn, ctx);
		released_busy |= busy && v[i].released;
		if (!busy && unlinkat(reg->dirfd, v[i].name, 0) < 0 && errno != ENOENT)
			rc = err_sys(e, errno, "registry %s: cannot delete %s", reg->path, v[i].name);
	}
	if (rc == 0 && mine) {
		struct loaded l = { .rec = *mine, .released = 1 };
		int busy = 0;
		for (size_t j = 0; j < mine->n; j++)
			busy |= settle_entry(reg, &l, &mine->v[j], fn, ctx);
		if (busy) {
			if ((rc = registry_write(reg, released, mine, e)) == 0)
				rc = err_set(e, EBUSY, "%s", WHY_HELD);
		} else if (unlinkat(reg->dirfd, released, 0) < 0 && errno != ENOENT) {
			rc = err_sys(e, errno, "registry %s: cannot delete %s", reg->path, released);
		}
	}
	if (rc == 0 && released_busy)
		rc = err_set(e, EBUSY, "%s", WHY_HELD);
	for (size_t i = 0; i < n; i++)
		record_free(&v[i].rec);
	free(v);
	return rc;
}

int registry_sweep(struct registry *reg, const char *released, registry_report_fn fn,
		   void *ctx, struct cordon_err *e)
{
	return sweep(reg, released, NULL, fn, ctx, e);
}

int registry_release(struct registry *reg, const char *name, const struct record *mine,
		     struct cordon_err *e)
{
	return sweep(reg, name, mine, NULL, NULL, e);
}

int registry_wait_unbound(struct registry *reg, const char *name)
{
	struct record rec = { 0 };
	char why[128];
	int rc = read_record(reg->dirfd, name, &rec, why, sizeof(why));
	if (rc < 0)
		return rc;
	for (size_t i = 0; i < rec.n; i++) {
		const struct rec_entry *en = &rec.v[i];
		struct stat st;
		if (en->kind != REC_CREATED)
			continue;
		/* Only a lock is taken and dropped here: nothing is changed
		 * through a path read from the record. */
		AUTO_FD fd = open(en->path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0 || fstat(fd, &st) < 0 || st.st_dev != en->dev || st.st_ino != en->ino)
			continue;
		while (flock(fd, LOCK_EX) < 0 && errno == EINTR) {
		}
		(void)flock(fd, LOCK_UN);
	}
	record_free(&rec);
	return 0;
}

static void print_report(void *ctx, const char *path, enum reclaim_verdict v, const char *why)
{
	FILE *out = ctx;
	if (v == RECLAIM_REMOVE)
		(void)fprintf(out, "removed %s\n", path);
	else if (v == RECLAIM_KEEP)
		(void)fprintf(out, "kept %s: %s\n", path, why);
}

int registry_reclaim(FILE *out, struct cordon_err *e)
{
	struct registry reg = REGISTRY_INIT;
	int rc = registry_open(&reg, e);
	if (rc < 0)
		return rc;
	if ((rc = registry_lock(&reg, e)) == 0)
		rc = registry_sweep(&reg, NULL, print_report, out, e);
	registry_close(&reg);
	return rc;
}
