/* registry_io.c: see registry_io.h. */
#include "hostpaths/registry_io.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "sys.h"

/* The record's intents are judged by the file's mtime (registry_read):
 * a rewrite that keeps some of them must keep that time too, or their
 * directories would look older than the intents and be left to no one. */
static int keep_written(int fd, const struct rec_time *written)
{
	const struct timespec t[2] = { { 0, UTIME_OMIT },
				       { (time_t)written->sec, (long)written->nsec } };
	return futimens(fd, t) < 0 ? -errno : 0;
}

static int write_record(struct registry *reg, const char *name, const struct record *rec,
			const struct rec_time *written, struct cordon_err *e)
{
	char tmp[REC_NAME_MAX + sizeof(REGISTRY_TMP_PREFIX)];
	char *text = NULL;
	size_t len;
	int rc;

	if (!reg->locked)
		return err_set(e, EINVAL, "internal: registry written without its lock");
	(void)snprintf(tmp, sizeof(tmp), REGISTRY_TMP_PREFIX "%s", name);
	if ((rc = record_format(rec, &text, &len)) < 0)
		return err_set(e, -rc, "registry %s: cannot format the record of this run", reg->path);
	int fd = openat(reg->dirfd, tmp, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC, 0600);
	if (fd < 0) {
		rc = err_sys(e, errno, "registry %s: cannot write %s", reg->path, tmp);
		goto out;
	}
	rc = sys_write_all(fd, text, len);
	/* After the write, which sets the mtime to now. */
	if (rc == 0 && written)
		rc = keep_written(fd, written);
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

int registry_write(struct registry *reg, const char *name, const struct record *rec,
		   struct cordon_err *e)
{
	return write_record(reg, name, rec, NULL, e);
}

int registry_rewrite(struct registry *reg, const char *name, const struct record *rec,
		     const struct rec_time *written, struct cordon_err *e)
{
	return write_record(reg, name, rec, written, e);
}

int registry_read(const struct registry *reg, const char *name, struct record *rec,
		  struct rec_time *written, char *why, size_t whylen)
{
	struct stat st;
	/* O_NONBLOCK: a FIFO planted under a record's name must not hang us. */
	AUTO_FD fd = openat(reg->dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0) {
		(void)snprintf(why, whylen, "cannot open it: %s", strerror(errno));
		return -EBADMSG;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid() ||
	    st.st_size > (off_t)REC_MAX_BYTES) {
		(void)snprintf(why, whylen, "not a record file of yours");
		return -EBADMSG;
	}
	written->sec = st.st_mtim.tv_sec;
	written->nsec = (uint32_t)st.st_mtim.tv_nsec;
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
