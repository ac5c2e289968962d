/* netlog.c: see netlog.h. */
#include "netlog.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

struct nl_buf {
	char *p;
	size_t cap, n;
	int full;
};

static void nl_raw(struct nl_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void nl_raw(struct nl_buf *b, const char *fmt, ...)
{
	if (b->full)
		return;
	va_list ap;
	va_start(ap, fmt);
	int w = vsnprintf(b->p + b->n, b->cap - b->n, fmt, ap);
	va_end(ap);
	if (w < 0 || (size_t)w >= b->cap - b->n)
		b->full = 1;
	else
		b->n += (size_t)w;
}

/* A JSON string, or null. */
static void nl_str(struct nl_buf *b, const char *s)
{
	if (!s) {
		nl_raw(b, "null");
		return;
	}
	nl_raw(b, "\"");
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			nl_raw(b, "\\%c", c);
		else if (c < 0x20 || c >= 0x7f)
			nl_raw(b, "\\u%04x", c);
		else
			nl_raw(b, "%c", c);
	}
	nl_raw(b, "\"");
}

size_t netlog_format(const struct netlog_entry *e, char *out, size_t cap)
{
	struct nl_buf b = { out, cap, 0, 0 };
	struct tm tm;
	time_t t = e->start.tv_sec;
	if (!gmtime_r(&t, &tm))
		memset(&tm, 0, sizeof(tm));
	nl_raw(&b, "{\"time\":\"%04d-%02d-%02dT%02d:%02d:%02d.%03ldZ\",\"client_port\":%u,"
	       "\"protocol\":", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
	       tm.tm_min, tm.tm_sec, e->start.tv_nsec / 1000000, (unsigned)e->client_port);
	nl_str(&b, e->protocol);
	nl_raw(&b, ",\"host\":");
	nl_str(&b, e->host);
	nl_raw(&b, ",\"port\":%u,\"address\":", (unsigned)e->port);
	nl_str(&b, e->address);
	nl_raw(&b, ",\"decision\":");
	nl_str(&b, e->decision);
	nl_raw(&b, ",\"reason\":");
	nl_str(&b, e->reason);
	if (e->upgrade) {
		nl_raw(&b, ",\"upgrade\":");
		nl_str(&b, e->upgrade);
	}
	nl_raw(&b, ",\"bytes_up\":%llu,\"bytes_down\":%llu,\"duration_ms\":%llu}\n",
	       e->bytes_up, e->bytes_down, e->duration_ms);
	return b.full ? 0 : b.n;
}
