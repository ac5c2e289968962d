/* findings.c: see findings.h. */
#include "observe/findings.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *dup_or_null(const char *s, size_t len, int *nomem)
{
	if (!s)
		return NULL;
	char *d = len ? malloc(len + 1) : strdup(s);
	if (d && len) {
		memcpy(d, s, len);
		d[len] = '\0';
	}
	if (!d)
		*nomem = 1;
	return d;
}

int findings_is_violation(enum finding_kind k)
{
	return k == FINDING_PROTECTED_NAME || k == FINDING_ROOT_MOVED ||
	       k == FINDING_ROOTS_UNCHECKED || k == FINDING_STOPPED;
}

static void lose(struct findings *f, const struct finding *x)
{
	if (x->say)
		fputs(x->say, stderr);
	if (findings_is_violation(x->kind))
		f->lost++;
}

void findings_add(struct findings *f, const struct finding *x)
{
	if (f->n == f->cap) {
		size_t cap = f->cap ? f->cap * 2 : 16;
		struct finding *v = realloc(f->v, cap * sizeof(*v));
		if (!v) {
			lose(f, x);
			return;
		}
		f->v = v;
		f->cap = cap;
	}
	struct finding *d = &f->v[f->n];
	int nomem = 0;
	*d = *x;
	d->name = dup_or_null(x->name, x->kind == FINDING_NET_DECISION ? x->len : 0, &nomem);
	d->path = dup_or_null(x->path, 0, &nomem);
	d->moved = dup_or_null(x->moved, 0, &nomem);
	d->detail = dup_or_null(x->detail, 0, &nomem);
	d->say = dup_or_null(x->say, 0, &nomem);
	d->said = 0;
	if (nomem) {
		free(d->name);
		free(d->path);
		free(d->moved);
		free(d->detail);
		free(d->say);
		lose(f, x);
		return;
	}
	f->n++;
}

void findings_say(struct findings *f, int status_known, int failed)
{
	for (size_t i = 0; i < f->n; i++) {
		struct finding *x = &f->v[i];
		if (x->said || !x->say || (x->say_if_failed && !status_known))
			continue;
		x->said = 1;
		if (!x->say_if_failed || failed)
			fputs(x->say, stderr);
	}
}

char *findings_compose(void (*say)(FILE *out, const void *arg), const void *arg)
{
	char *text = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&text, &len);
	if (!m)
		return NULL;
	say(m, arg);
	int bad = ferror(m);
	if (fclose(m) != 0 || bad) {
		free(text);
		return NULL;
	}
	return text;
}

void findings_free(struct findings *f)
{
	for (size_t i = 0; i < f->n; i++) {
		free(f->v[i].name);
		free(f->v[i].path);
		free(f->v[i].moved);
		free(f->v[i].detail);
		free(f->v[i].say);
	}
	free(f->v);
	*f = (struct findings)FINDINGS_INIT;
}
