/* resolve.c: see resolve.h. */
#include "resolve.h"

#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

struct rs_node {
	struct rs_node *next;
	struct resolve_result res;
	char name[254];
};

struct resolver {
	pthread_mutex_t lock;
	pthread_cond_t more;
	struct rs_node *todo, **todo_tail;
	struct rs_node *done, **done_tail;
	const struct resolve_map *map;
	int efd;
};

int resolve_map_lookup(const struct resolve_map *map, const char *name, struct resolve_result *res)
{
	int found = 0;
	res->n = 0;
	for (size_t i = 0; map && i < map->n; i++) {
		if (strcmp(map->v[i].name, name) != 0)
			continue;
		found = 1;
		if (res->n < RESOLVE_MAX_ADDRS) {
			res->family[res->n] = map->v[i].family;
			memcpy(res->addr[res->n], map->v[i].addr, 16);
			res->n++;
		}
	}
	return found;
}

static void rs_getaddrinfo(const char *name, struct resolve_result *res)
{
	struct addrinfo hints, *ai = NULL;
	memset(&hints, 0, sizeof(hints));
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	int r = getaddrinfo(name, NULL, &hints, &ai);
	if (r != 0) {
		res->err = r == EAI_NONAME ? ENOENT : r == EAI_AGAIN ? EAGAIN : EIO;
		return;
	}
	for (struct addrinfo *p = ai; p && res->n < RESOLVE_MAX_ADDRS; p = p->ai_next) {
		if (p->ai_family == AF_INET) {
			const struct sockaddr_in *s = (const struct sockaddr_in *)p->ai_addr;
			memcpy(res->addr[res->n], &s->sin_addr, 4);
		} else if (p->ai_family == AF_INET6) {
			const struct sockaddr_in6 *s = (const struct sockaddr_in6 *)p->ai_addr;
			memcpy(res->addr[res->n], &s->sin6_addr, 16);
		} else {
			continue;
		}
		res->family[res->n++] = p->ai_family;
	}
	freeaddrinfo(ai);
	if (res->n == 0)
		res->err = ENOENT;
}

static void *rs_worker(void *arg)
{
	struct resolver *r = arg;
	for (;;) {
		(void)pthread_mutex_lock(&r->lock);
		while (!r->todo)
			(void)pthread_cond_wait(&r->more, &r->lock);
		struct rs_node *n = r->todo;
		r->todo = n->next;
		if (!r->todo)
			r->todo_tail = &r->todo;
		(void)pthread_mutex_unlock(&r->lock);

		n->next = NULL;
		if (!resolve_map_lookup(r->map, n->name, &n->res))
			rs_getaddrinfo(n->name, &n->res);
		else if (n->res.n == 0)
			n->res.err = ENOENT;

		(void)pthread_mutex_lock(&r->lock);
		*r->done_tail = n;
		r->done_tail = &n->next;
		(void)pthread_mutex_unlock(&r->lock);
		uint64_t one = 1;
		/* Cannot fail short of a counter overflow; the loop drains it. */
		(void)!write(r->efd, &one, sizeof(one));
	}
	return NULL;
}

int resolve_start(struct resolver **out, unsigned nthreads, const struct resolve_map *map,
		  struct cordon_err *e)
{
	struct resolver *r = calloc(1, sizeof(*r));
	if (!r)
		return err_set(e, ENOMEM, "cordon-bridge: out of memory");
	(void)pthread_mutex_init(&r->lock, NULL);
	(void)pthread_cond_init(&r->more, NULL);
	r->todo_tail = &r->todo;
	r->done_tail = &r->done;
	r->map = map;
	r->efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (r->efd < 0) {
		int err = errno;
		free(r);
		return err_sys(e, err, "cordon-bridge: eventfd");
	}
	for (unsigned i = 0; i < nthreads; i++) {
		pthread_t t;
		pthread_attr_t at;
		(void)pthread_attr_init(&at);
		(void)pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
		/* getaddrinfo needs little stack; many threads need not much memory. */
		(void)pthread_attr_setstacksize(&at, (size_t)256 * 1024);
		int rc = pthread_create(&t, &at, rs_worker, r);
		(void)pthread_attr_destroy(&at);
		if (rc != 0)
			return err_sys(e, rc, "cordon-bridge: cannot start resolver threads");
	}
	*out = r;
	return 0;
}

int resolve_fd(const struct resolver *r)
{
	return r->efd;
}

int resolve_submit(struct resolver *r, uint64_t token, const char *name)
{
	struct rs_node *n = calloc(1, sizeof(*n));
	if (!n)
		return -ENOMEM;
	n->res.token = token;
	size_t len = strnlen(name, sizeof(n->name) - 1);
	memcpy(n->name, name, len);
	n->name[len] = '\0';
	(void)pthread_mutex_lock(&r->lock);
	*r->todo_tail = n;
	r->todo_tail = &n->next;
	(void)pthread_cond_signal(&r->more);
	(void)pthread_mutex_unlock(&r->lock);
	return 0;
}

size_t resolve_collect(struct resolver *r, struct resolve_result *out, size_t max)
{
	uint64_t count;
	(void)!read(r->efd, &count, sizeof(count));
	size_t k = 0;
	(void)pthread_mutex_lock(&r->lock);
	while (r->done && k < max) {
		struct rs_node *n = r->done;
		r->done = n->next;
		out[k++] = n->res;
		free(n);
	}
	if (!r->done)
		r->done_tail = &r->done;
	int left = r->done != NULL;
	(void)pthread_mutex_unlock(&r->lock);
	if (left) {
		uint64_t one = 1;
		(void)!write(r->efd, &one, sizeof(one)); /* come back for the rest */
	}
	return k;
}
