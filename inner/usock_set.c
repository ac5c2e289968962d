/* usock_set.c: see usock_set.h. */
#include "usock_set.h"

#include <string.h>

void usock_set_init(struct usock_set *s)
{
	memset(s, 0, sizeof(*s));
}

static int same(const struct usock_id *a, const struct usock_id *b)
{
	return a->dev_major == b->dev_major && a->dev_minor == b->dev_minor && a->ino == b->ino &&
	       a->btime_sec == b->btime_sec && a->btime_nsec == b->btime_nsec;
}

int usock_set_has(const struct usock_set *s, const struct usock_id *id)
{
	for (size_t i = 0; i < s->n; i++)
		if (same(&s->ids[i], id))
			return 1;
	return 0;
}

void usock_set_add(struct usock_set *s, const struct usock_id *id)
{
	if (usock_set_has(s, id))
		return;
	s->ids[s->next] = *id;
	s->next = (s->next + 1) % USOCK_SET_MAX;
	if (s->n < USOCK_SET_MAX)
		s->n++;
}
