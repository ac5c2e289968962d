/* seccomp_bpf.c: see seccomp_bpf.h. */
#include "seccomp_bpf.h"

#include "seccomp_bpf_gen.h"

void seccomp_bpf_program(int allow_unix_sockets, struct sock_fprog *prog)
{
	if (allow_unix_sockets) {
		prog->len = sizeof(seccomp_bpf_allow_unix) / sizeof(seccomp_bpf_allow_unix[0]);
		prog->filter = (struct sock_filter *)seccomp_bpf_allow_unix;
	} else {
		prog->len = sizeof(seccomp_bpf_default) / sizeof(seccomp_bpf_default[0]);
		prog->filter = (struct sock_filter *)seccomp_bpf_default;
	}
}

void seccomp_bpf_pid1_program(struct sock_fprog *prog)
{
	prog->len = sizeof(seccomp_bpf_pid1) / sizeof(seccomp_bpf_pid1[0]);
	prog->filter = (struct sock_filter *)seccomp_bpf_pid1;
}
