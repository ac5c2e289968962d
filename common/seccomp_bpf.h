/* seccomp_bpf.h: the seccomp program cordon-inner loads, compiled from the
 * rule table (seccomp_table.c) by libseccomp at build time
 * (scripts/seccomp_gen.c) and embedded here.  Compiling it at every start
 * cost cordon-inner most of a millisecond under musl; the program is the same
 * for every run but for one switch.  A unit test checks that the embedded
 * program equals what libseccomp compiles from the table now. */
#ifndef CORDON_SECCOMP_BPF_H
#define CORDON_SECCOMP_BPF_H

#include <linux/filter.h>

/* The program for the given --allow-unix-sockets setting.  prog->filter
 * points to static storage; nothing to free. */
void seccomp_bpf_program(int allow_unix_sockets, struct sock_fprog *prog);

/* cordon-inner's own filter (seccomp_policy_pid1_allowed()), the same way. */
void seccomp_bpf_pid1_program(struct sock_fprog *prog);

#endif
