/* report.c: see report.h. */
#include "report.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "explain_print.h"
#include "hostpaths/userfile.h"
#include "input/policy_out.h"
#include "json_out.h"
#include "sys.h"

extern char **environ;

#define REPORT_CAP (4u << 20)

void report_init(struct report *r)
{
	/* Field by field: the fixed arrays (over 100 KiB) stay untouched until
	 * a report uses them, so that a run without one pays no page faults. */
	r->dirfd = -1;
	r->cache_dir[0] = '\0';
	r->cmd_env = NULL;
	r->name = NULL;
	r->path = NULL;
	memset(&r->out, 0, sizeof(r->out));
	r->nviolations = r->violations_dropped = 0;
	r->nrefs = r->refs_dropped = 0;
	r->nref_gaps = 0;
	r->net_allowed = r->net_refused = 0;
	r->nrefusals = 0;
	(void)clock_gettime(CLOCK_MONOTONIC, &r->t0);
	r->started_at = time(NULL);
}

int report_open(struct report *r, const char *path, struct cordon_err *e)
{
	int rc = userfile_dir("--report", path, &r->dirfd, &r->name, e);
	if (rc == 0)
		r->path = path;
	return rc;
}

void report_add_ref(struct report *r, const char *repo, const char *name, const char *old_id,
		    const char *new_id, long commits)
{
	if (!r)
		return;
	if (r->nrefs == REPORT_MAX_REFS) {
		r->refs_dropped++;
		return;
	}
	struct report_ref *f = &r->refs[r->nrefs++];
	f->repo = strdup(repo);
	f->name = strdup(name);
	(void)snprintf(f->old_id, sizeof(f->old_id), "%s", old_id ? old_id : "");
	(void)snprintf(f->new_id, sizeof(f->new_id), "%s", new_id ? new_id : "");
	f->commits = commits;
}

void report_add_refs_gap(struct report *r, const char *repo, const char *why)
{
	if (!r || r->nref_gaps == REPORT_MAX_REF_GAPS)
		return;
	struct report_ref_gap *g = &r->ref_gaps[r->nref_gaps++];
	g->repo = strdup(repo);
	g->why = strdup(why);
}

void report_add_violation(struct report *r, const char *kind, const char *name,
			  const char *path, const char *quarantined, const char *detail)
{
	if (!r)
		return;
	if (r->nviolations == REPORT_MAX_VIOLATIONS) {
		r->violations_dropped++;
		return;
	}
	struct report_violation *v = &r->violations[r->nviolations++];
	(void)snprintf(v->kind, sizeof(v->kind), "%s", kind);
	(void)snprintf(v->name, sizeof(v->name), "%s", name ? name : "");
	(void)snprintf(v->path, sizeof(v->path), "%s", path ? path : "");
	(void)snprintf(v->quarantined, sizeof(v->quarantined), "%s", quarantined ? quarantined : "");
	(void)snprintf(v->detail, sizeof(v->detail), "%s", detail ? detail : "");
}

void report_add_net(struct report *r, int allowed, const char *host, unsigned port,
		    const char *reason)
{
	if (!r)
		return;
	if (allowed) {
		r->net_allowed++;
		return;
	}
	r->net_refused++;
	if (r->nrefusals == REPORT_MAX_REFUSALS)
		return; /* counted; "refusals" keeps the first ones */
	struct report_refusal *f = &r->refusals[r->nrefusals++];
	(void)snprintf(f->host, sizeof(f->host), "%s", host ? host : "");
	f->port = port;
	(void)snprintf(f->reason, sizeof(f->reason), "%s", reason ? reason : "");
}

void report_add_net_decision(struct report *r, const struct wire_bridge_decision *d)
{
	report_add_net(r, d->verdict == WIRE_BRIDGE_ALLOW, d->host, d->port, d->reason);
}

void report_add_findings(struct report *r, const struct findings *f)
{
	for (size_t i = 0; r && i < f->n; i++) {
		const struct finding *x = &f->v[i];
		switch (x->kind) {
		case FINDING_PROTECTED_NAME:
			report_add_violation(r, "protected_name", x->name, x->path, x->moved,
					     x->detail);
			break;
		case FINDING_ROOT_MOVED:
			report_add_violation(r, "root_moved", NULL, x->path, NULL, x->detail);
			break;
		case FINDING_GIT_STATE:
			report_add_violation(r, "git_state", x->name, x->path, x->moved, x->detail);
			break;
		case FINDING_GIT_REF:
			report_add_ref(r, x->path, x->name, x->old_id[0] ? x->old_id : NULL,
				       x->new_id[0] ? x->new_id : NULL, x->commits);
			break;
		case FINDING_GIT_REFS_GAP:
			report_add_refs_gap(r, x->path, x->detail);
			break;
		case FINDING_NET_DECISION:
			if (x->len == sizeof(struct wire_bridge_decision))
				report_add_net_decision(r, (const struct wire_bridge_decision *)
							   (const void *)x->name);
			break;
		case FINDING_NOTE:
		case FINDING_ROOTS_UNCHECKED:
		case FINDING_STOPPED:
			break; /* said on stderr, and in the status */
		}
	}
}

/* Why the run ended, from what cordon saw; *signal gets the signal the
 * command died of, 0 if none.  The order matters: a timeout or violation
 * kills the sandbox, which then also ends by a signal. */
static const char *end_reason(const struct report *r, int status, int *signal)
{
	*signal = 0;
	if (r->out.timed_out)
		return "timeout";
	if (r->out.cpu_exceeded)
		return "cpu_limit";
	if (r->nviolations)
		return "violation";
	if (status == EXIT_CORDON_FAILED && (!r->out.started || r->out.have_error))
		return "setup_failed";
	if (r->out.have_error)
		return status == EXIT_NOT_FOUND ? "not_found" : "not_executable";
	if (r->out.forwarded)
		return "terminated";
	/* From the command's own wait status, never from the exit status: an
	 * `exit 130` is not a death by SIGINT. */
	if (r->out.have_end && r->out.end.signaled) {
		*signal = r->out.end.code;
		return "signaled";
	}
	return "exited";
}

static double seconds(const struct timeval *t)
{
	return (double)t->tv_sec + (double)t->tv_usec / 1e6;
}

static void write_rusage(struct json_out *j, const struct report *r)
{
	if (!r->out.have_rusage) {
		json_out_null(j, "rusage");
		return;
	}
	const struct rusage *u = &r->out.rusage;
	const struct { const char *key; long v; } counts[] = {
		{ "max_rss_kb", u->ru_maxrss }, { "minor_faults", u->ru_minflt },
		{ "major_faults", u->ru_majflt }, { "blocks_in", u->ru_inblock },
		{ "blocks_out", u->ru_oublock }, { "voluntary_switches", u->ru_nvcsw },
		{ "involuntary_switches", u->ru_nivcsw },
	};
	json_out_object(j, "rusage");
	json_out_double(j, "user_s", seconds(&u->ru_utime));
	json_out_double(j, "system_s", seconds(&u->ru_stime));
	for (size_t i = 0; i < sizeof(counts) / sizeof(counts[0]); i++)
		json_out_int(j, counts[i].key, counts[i].v);
	json_out_end(j);
}

static void write_lists(struct json_out *j, const struct report *r, const struct config *c)
{
	json_out_array(j, "violations");
	for (size_t i = 0; i < r->nviolations; i++) {
		json_out_object(j, NULL);
		json_out_str(j, "kind", r->violations[i].kind);
		json_out_str(j, "name", r->violations[i].name[0] ? r->violations[i].name : NULL);
		json_out_str(j, "path", r->violations[i].path);
		json_out_str(j, "quarantined",
			     r->violations[i].quarantined[0] ? r->violations[i].quarantined : NULL);
		json_out_str(j, "detail", r->violations[i].detail);
		json_out_end(j);
	}
	json_out_end(j);
	json_out_uint(j, "violations_dropped", r->violations_dropped);
	if (c && c->git == GIT_COMMIT) {
		json_out_array(j, "git_refs");
		for (size_t i = 0; i < r->nrefs; i++) {
			const struct report_ref *f = &r->refs[i];
			json_out_object(j, NULL);
			json_out_str(j, "repo", f->repo ? f->repo : "?");
			json_out_str(j, "ref", f->name ? f->name : "?");
			json_out_str(j, "old", f->old_id[0] ? f->old_id : NULL);
			json_out_str(j, "new", f->new_id[0] ? f->new_id : NULL);
			if (f->commits >= 0)
				json_out_int(j, "commits", f->commits);
			else
				json_out_null(j, "commits");
			json_out_end(j);
		}
		json_out_end(j);
		json_out_uint(j, "git_refs_dropped", r->refs_dropped);
		/* Never an empty list where refs could not be read: a harness
		 * must not take git_refs for complete then. */
		json_out_array(j, "git_refs_incomplete");
		for (size_t i = 0; i < r->nref_gaps; i++) {
			json_out_object(j, NULL);
			json_out_str(j, "repo", r->ref_gaps[i].repo ? r->ref_gaps[i].repo : "?");
			json_out_str(j, "reason", r->ref_gaps[i].why ? r->ref_gaps[i].why : "?");
			json_out_end(j);
		}
		json_out_end(j);
	}
	json_out_object(j, "network");
	json_out_str(j, "mode", c ? policy_out_net_mode(c->net) : NULL);
	json_out_uint(j, "allowed", r->net_allowed);
	json_out_uint(j, "refused", r->net_refused);
	json_out_array(j, "refusals");
	for (size_t i = 0; i < r->nrefusals; i++) {
		json_out_object(j, NULL);
		json_out_str(j, "host", r->refusals[i].host);
		json_out_uint(j, "port", r->refusals[i].port);
		json_out_str(j, "reason", r->refusals[i].reason);
		json_out_end(j);
	}
	json_out_end(j);
	json_out_end(j);
}

static int render(struct json_out *j, const struct report *r, const struct config *c,
		  const struct resolved *res, const struct protect_decision *d, int status,
		  const struct cordon_err *err, struct cordon_err *e)
{
	struct timespec now;
	char when[32];
	struct tm tm;
	int sig;
	(void)clock_gettime(CLOCK_MONOTONIC, &now);
	double dur = (double)(now.tv_sec - r->t0.tv_sec) + (double)(now.tv_nsec - r->t0.tv_nsec) / 1e9;
	if (!gmtime_r(&r->started_at, &tm) || strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm) == 0)
		when[0] = '\0';
	const char *reason = end_reason(r, status, &sig);

	json_out_object(j, NULL);
	json_out_int(j, "report_version", 1);
	json_out_str(j, "cordon_version", CORDON_VERSION);
	json_out_strs(j, "command", c ? (const char *const *)c->cmd : NULL, SIZE_MAX);
	json_out_int(j, "status", status);
	json_out_str(j, "reason", reason);
	json_out_nonzero(j, "signal", (unsigned)sig);
	json_out_nonzero(j, "forwarded_signal", (unsigned)r->out.forwarded);
	json_out_str(j, "timeout_ended_by",
		     !r->out.timed_out ? NULL : r->out.timeout_killed ? "kill" : "term");
	json_out_str(j, "error", err && err->msg[0] ? err->msg : NULL);
	json_out_str(j, "started_at", when);
	json_out_double(j, "duration_s", dur);
	write_rusage(j, r);
	json_out_str(j, "watch_fallback", r->watch_fallback[0] ? r->watch_fallback : NULL);
	write_lists(j, r, c);
	if (c) {
		struct resolved none = { .cwd = { .fd = -1 } };
		json_out_object(j, "policy");
		struct explain_env env = { environ, r->cmd_env };
		int rc = explain_policy_json(j, c, res ? res : &none, d, r->cache_dir, &env, e);
		if (rc < 0)
			return rc;
		json_out_end(j);
	} else {
		json_out_null(j, "policy");
	}
	if (r->have_limits)
		explain_limits_json(j, &r->limits);
	else
		json_out_null(j, "limits");
	if (r->pm.decided)
		explain_pid_ns_json(j, &r->pm);
	else
		json_out_null(j, "pid_namespace");
	json_out_end(j);
	return 0;
}

int report_write(struct report *r, const struct config *c, const struct resolved *res,
		 const struct protect_decision *d, int status, const struct cordon_err *err,
		 struct cordon_err *e)
{
	if (r->dirfd < 0)
		return 0;
	struct json_out j;
	json_out_init(&j, REPORT_CAP);
	int rc = render(&j, r, c, res, d, status, err, e);
	if (rc == 0 && (rc = json_out_finish(&j)) < 0)
		(void)err_set(e, -rc, "--report %s: the report does not fit in %u bytes", r->path, REPORT_CAP);
	if (rc < 0) {
		json_out_free(&j);
		return rc;
	}
	/* A new file beside FILE, renamed over it: never a write through a
	 * link the command may have left at FILE. */
	char tmp[64];
	(void)snprintf(tmp, sizeof(tmp), ".cordon-report.%ld.tmp", (long)getpid());
	AUTO_FD fd = openat(r->dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0) {
		rc = err_sys(e, errno, "--report %s: cannot create it", r->path);
	} else if ((rc = sys_write_all(fd, j.buf, j.len)) < 0 || (rc = sys_write_all(fd, "\n", 1)) < 0) {
		(void)err_sys(e, -rc, "--report %s: cannot write it", r->path);
	} else if (renameat(r->dirfd, tmp, r->dirfd, r->name) < 0) {
		rc = err_sys(e, errno, "--report %s: cannot put it in place", r->path);
	}
	if (rc < 0 && fd >= 0)
		(void)unlinkat(r->dirfd, tmp, 0); /* best effort: the error is what matters */
	json_out_free(&j);
	return rc;
}

void report_close(struct report *r)
{
	for (size_t i = 0; i < r->nrefs; i++) {
		free(r->refs[i].repo);
		free(r->refs[i].name);
	}
	for (size_t i = 0; i < r->nref_gaps; i++) {
		free(r->ref_gaps[i].repo);
		free(r->ref_gaps[i].why);
	}
	r->nrefs = r->nref_gaps = 0;
	sys_close(&r->dirfd);
	free(r->name);
	r->name = NULL;
}
