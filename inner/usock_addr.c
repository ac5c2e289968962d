/* usock_addr.c: see usock_addr.h. */
#include "usock_addr.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

int usock_addr_parse(const void *buf, size_t len, struct usock_addr *out)
{
	const size_t fam = offsetof(struct sockaddr_un, sun_path);
	memset(out, 0, sizeof(*out));
	if (!buf || len < fam || len > sizeof(struct sockaddr_un))
		return -EINVAL;
	sa_family_t f;
	memcpy(&f, buf, sizeof(f));
	if (f != AF_UNIX)
		return -EINVAL;
	const char *p = (const char *)buf + fam;
	size_t n = len - fam;
	if (n == 0) {
		out->kind = USOCK_UNNAMED;
		return 0;
	}
	if (p[0] == '\0') {
		out->kind = USOCK_ABSTRACT;
		return 0;
	}
	size_t l = strnlen(p, n);
	memcpy(out->path, p, l);
	out->path[l] = '\0';
	out->kind = USOCK_PATH;
	return 0;
}

int usock_addr_self(const char *path, int tid, char *out, size_t out_len)
{
	static const char *const self[] = { "/proc/self", "/proc/thread-self" };
	for (size_t i = 0; i < sizeof(self) / sizeof(self[0]); i++) {
		size_t l = strlen(self[i]);
		if (strncmp(path, self[i], l) != 0 || (path[l] != '/' && path[l] != '\0'))
			continue;
		int n = snprintf(out, out_len, "/proc/%d%s", tid, path + l);
		return n < 0 || (size_t)n >= out_len ? -ENAMETOOLONG : 0;
	}
	size_t pl = strlen(path);
	if (pl >= out_len)
		return -ENAMETOOLONG;
	memcpy(out, path, pl + 1);
	return 0;
}

int usock_umask_parse(const char *status, size_t len, unsigned int *umask)
{
	static const char key[] = "Umask:";
	const size_t kl = sizeof(key) - 1;
	for (size_t i = 0; i + kl <= len; i++) {
		if ((i > 0 && status[i - 1] != '\n') || memcmp(status + i, key, kl) != 0)
			continue;
		size_t j = i + kl;
		while (j < len && (status[j] == ' ' || status[j] == '\t'))
			j++;
		unsigned int v = 0;
		size_t digits = 0;
		for (; j < len && status[j] != '\n'; j++, digits++) {
			if (status[j] < '0' || status[j] > '7' || digits >= 4)
				return -1;
			v = v << 3 | (unsigned int)(status[j] - '0');
		}
		if (digits == 0)
			return -1;
		*umask = v;
		return 0;
	}
	return -1;
}
