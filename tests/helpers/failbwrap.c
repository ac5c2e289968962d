/* failbwrap.c: stands in for a bwrap that the kernel refuses, as a real one
 * fails on a host without user namespaces: one message, exit status 1. */
#include <stdio.h>

int main(void)
{
	fputs("bwrap: No permissions to create new namespace\n", stderr);
	return 1;
}
