/* seccomp_bpf.h: the seccomp programs cordon-inner and cordon-bridge load,
 * compiled from the rule tables (seccomp_table.c) by libseccomp at build
 * time (scripts/seccomp_gen.c) and embedded here.  Compiling them at every
 * start cost cordon-inner most of a millisecond under musl, and the bridge
 * links no libseccomp at all; each program is the same for every run but
 * for one switch.  A unit test checks that each embedded program equals
 * what libseccomp compiles from its table now. */
#ifndef CORDON_SECCOMP_BPF_H
#define CORDON_SECCOMP_BPF_H

#include <linux/filter.h>

/* The program for the given --allow-unix-sockets setting.  prog->filter
 * points to static storage; nothing to free. */
void seccomp_bpf_program(int allow_unix_sockets, struct sock_fprog *prog);

/* cordon-inner's own filter (seccomp_policy_pid1_allowed()), the same way. */
void seccomp_bpf_pid1_program(struct sock_fprog *prog);

/* cordon-bridge's filter (seccomp_policy_bridge_table()); allow_unix: an
 * upstream proxy on a Unix socket. */
void seccomp_bpf_bridge_program(int allow_unix, struct sock_fprog *prog);

/* The filter cordon-inner adds to the command's in the caller's PID
 * namespace (seccomp_policy_hostpid_table()). */
void seccomp_bpf_hostpid_program(struct sock_fprog *prog);

#endif
