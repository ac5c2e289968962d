/* seccomp_bpf.c: see seccomp_bpf.h. */
#include "seccomp_bpf.h"

#include "seccomp_bpf_gen.h"

#define SB_SET(prog, a)                                        \
	do {                                                   \
		(prog)->len = sizeof(a) / sizeof((a)[0]);      \
		(prog)->filter = (struct sock_filter *)(a);    \
	} while (0)

void seccomp_bpf_program(int allow_unix_sockets, struct sock_fprog *prog)
{
	if (allow_unix_sockets)
		SB_SET(prog, seccomp_bpf_allow_unix);
	else
		SB_SET(prog, seccomp_bpf_default);
}

void seccomp_bpf_pid1_program(struct sock_fprog *prog)
{
	SB_SET(prog, seccomp_bpf_pid1);
}

void seccomp_bpf_bridge_program(int allow_unix, struct sock_fprog *prog)
{
	if (allow_unix)
		SB_SET(prog, seccomp_bpf_bridge_unix);
	else
		SB_SET(prog, seccomp_bpf_bridge);
}

void seccomp_bpf_hostpid_program(struct sock_fprog *prog)
{
	SB_SET(prog, seccomp_bpf_hostpid);
}
