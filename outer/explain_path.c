/* explain_path.c: see explain_path.h. */
#include "explain_path.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "json_out.h"
#include "path.h"
#include "plan/pathquery.h"
#include "termsafe.h"

#define JSON_CAP (1u << 20)

/* p made absolute against the run's working directory, cleaned, its links
 * resolved where they exist. */
static int absolute(const char *p, const struct resolved *r, char *out, size_t len)
{
	char joined[PATH_MAX];
	if (p[0] != '/') {
		if (!r->cwd.path || path_join(r->cwd.path, p, joined, sizeof(joined)) < 0)
			return -ENAMETOOLONG;
		p = joined;
	}
	char clean[PATH_MAX];
	int rc = path_clean(p, clean, sizeof(clean));
	if (rc < 0)
		return rc;
	/* Where the links on its path lead, as the kernel will resolve them:
	 * the longest part that exists, made canonical, and the rest as given. */
	size_t cut = strlen(clean);
	char real[PATH_MAX];
	for (;;) {
		char head[PATH_MAX];
		memcpy(head, clean, cut);
		head[cut] = '\0';
		if (realpath(cut ? head : "/", real))
			break;
		while (cut > 0 && clean[cut - 1] != '/')
			cut--;
		if (cut > 0)
			cut--;
	}
	const char *rest = clean + cut;
	if (strcmp(real, "/") == 0 && *rest == '/')
		rest++;
	size_t rl = strlen(real);
	const char *sep = !*rest || *rest == '/' || real[rl - 1] == '/' ? "" : "/";
	if ((size_t)snprintf(out, len, "%s%s%s", real, sep, rest) >= len)
		return -ENAMETOOLONG;
	return 0;
}

static enum pathquery_kind kind_of(const char *path)
{
	struct stat st;
	if (lstat(path, &st) < 0)
		return PATHQUERY_MISSING;
	return S_ISDIR(st.st_mode) ? PATHQUERY_DIR : S_ISSOCK(st.st_mode) ? PATHQUERY_SOCKET
								  : PATHQUERY_OTHER;
}

static void text_one(FILE *out, const char *path, const struct pathquery_verdict *v)
{
	termsafe_fputs(out, path);
	fprintf(out, "\n  read:    %s: %s\n  write:   %s: %s\n",
		v->read_ok ? "allowed" : "refused", v->read_why,
		v->write_ok ? "allowed" : "refused", v->write_why);
	if (!v->write_ok && v->allow[0])
		fprintf(out, "           to allow: %s\n", v->allow);
	if (v->connect_ok >= 0)
		fprintf(out, "  connect: %s: %s\n", v->connect_ok ? "allowed" : "refused",
			v->connect_why);
}

static void json_one(struct json_out *j, const char *path, const struct pathquery_verdict *v)
{
	json_out_object(j, NULL);
	json_out_str(j, "path", path);
	json_out_bool(j, "read", v->read_ok);
	json_out_str(j, "read_why", v->read_why);
	json_out_bool(j, "write", v->write_ok);
	json_out_str(j, "write_why", v->write_why);
	json_out_str(j, "allow", v->write_ok || !v->allow[0] ? NULL : v->allow);
	if (v->connect_ok >= 0) {
		json_out_bool(j, "connect", v->connect_ok);
		json_out_str(j, "connect_why", v->connect_why);
	}
	json_out_end(j);
}

/* .git is protected: by default (not --unprotect .git), or --protect .git. */
static int git_protected(const struct config *c)
{
	if (config_default_protects(c, ".git"))
		return 1;
	for (size_t i = 0; i < c->protect.n; i++)
		if (strcmp(c->protect.v[i], ".git") == 0)
			return 1;
	return 0;
}

int explain_paths(FILE *out, const struct config *c, const struct resolved *r,
		  const struct protect_decision *d, const struct mount_plan *plan,
		  struct cordon_err *e)
{
	const char **ro = calloc(r->ncarves + 1, sizeof(*ro));
	if (!ro)
		return err_set(e, ENOMEM, "out of memory");
	size_t nro = 0;
	for (size_t i = 0; i < r->ncarves; i++)
		if (!r->carves[i].pin)
			ro[nro++] = r->carves[i].path;
	struct pathquery_rules rules = { plan, d, r->roots, r->nroots, ro, nro,
					 c->git == GIT_COMMIT, c->allow_unix_sockets,
					 r->sockets, r->nsockets, git_protected(c) };
	struct json_out j;
	if (c->json) {
		json_out_init(&j, JSON_CAP);
		json_out_object(&j, NULL);
		json_out_array(&j, "paths");
	}
	int rc = 0;
	for (size_t i = 0; i < c->explain_paths.n && rc == 0; i++) {
		char path[PATH_MAX];
		if (absolute(c->explain_paths.v[i], r, path, sizeof(path)) < 0) {
			rc = err_set(e, ENAMETOOLONG, "--path %s: the path is too long",
				     c->explain_paths.v[i]);
			break;
		}
		struct pathquery_verdict v;
		pathquery_decide(&rules, path, kind_of(path), &v);
		if (c->json)
			json_one(&j, path, &v);
		else
			text_one(out, path, &v);
	}
	free(ro);
	if (!c->json)
		return rc;
	json_out_end(&j);
	json_out_end(&j);
	if (rc == 0 && (rc = json_out_finish(&j)) == 0)
		fprintf(out, "%s\n", j.buf);
	else if (rc < 0 && !e->msg[0])
		(void)err_set(e, -rc, "explain --json: the output does not fit in %u bytes", JSON_CAP);
	json_out_free(&j);
	return rc;
}
