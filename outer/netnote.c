/* netnote.c: see netnote.h. */
#include "netnote.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "err.h"
#include "sys.h"

/* /proc/net/snmp: pairs of lines, "Ip: Name Name ..." then "Ip: 1 2 ...". */
static uint64_t snmp_ip_field(const char *t, const char *field)
{
	const char *names = strstr(t, "Ip: ");
	if (!names)
		return 0;
	const char *values = strchr(names, '\n');
	if (!values || strncmp(values + 1, "Ip: ", 4) != 0)
		return 0;
	values += 5;
	const char *p = names + 4;
	size_t flen = strlen(field);
	for (;;) {
		while (*p == ' ')
			p++;
		while (*values == ' ')
			values++;
		if (*p == '\n' || !*p || *values == '\n' || !*values)
			return 0;
		size_t len = strcspn(p, " \n");
		if (len == flen && strncmp(p, field, flen) == 0)
			return strtoull(values, NULL, 10);
		p += len;
		values += strcspn(values, " \n");
	}
}

/* /proc/net/snmp6: "Name <spaces> value" per line. */
static uint64_t snmp6_field(const char *t, const char *field)
{
	size_t flen = strlen(field);
	for (const char *p = t; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (strncmp(p, field, flen) == 0 && (p[flen] == ' ' || p[flen] == '\t'))
			return strtoull(p + flen, NULL, 10);
	return 0;
}

uint64_t netnote_noroutes(const char *snmp, const char *snmp6)
{
	return (snmp ? snmp_ip_field(snmp, "OutNoRoutes") : 0) +
	       (snmp6 ? snmp6_field(snmp6, "Ip6OutNoRoutes") : 0);
}

void netnote_open(struct netnote *n, pid_t pid)
{
	char path[64];
	(void)snprintf(path, sizeof(path), "/proc/%d/net/snmp", (int)pid);
	n->snmp = open(path, O_RDONLY | O_CLOEXEC);
	(void)snprintf(path, sizeof(path), "/proc/%d/net/snmp6", (int)pid);
	n->snmp6 = open(path, O_RDONLY | O_CLOEXEC);
}

/* The text of an open /proc file from its start; "" when unreadable. */
static void read_all(int fd, char *buf, size_t len)
{
	ssize_t r = fd >= 0 && lseek(fd, 0, SEEK_SET) == 0 ? sys_read_full(fd, buf, len - 1) : -1;
	buf[r > 0 ? r : 0] = '\0';
}

void netnote_finish(struct netnote *n, int print)
{
	if (print && (n->snmp >= 0 || n->snmp6 >= 0)) {
		static char snmp[8192], snmp6[16384];
		read_all(n->snmp, snmp, sizeof(snmp));
		read_all(n->snmp6, snmp6, sizeof(snmp6));
		if (netnote_noroutes(snmp, snmp6) > 0) {
			struct cordon_err e;
			(void)err_set(&e, ENETUNREACH, "note: the command tried to reach the network, "
				      "which this sandbox does not have (--net none)");
			err_print(&e);
		}
	}
	sys_close(&n->snmp);
	sys_close(&n->snmp6);
}
