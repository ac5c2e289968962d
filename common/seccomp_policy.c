/* seccomp_policy.c: the rule table and its loader (see seccomp_policy.h).
 * Belongs here: what the sandboxed command may not call, and turning that
 * into a libseccomp filter.  Nothing here exits, prints or sets
 * no_new_privs; the caller (cordon-inner, just before exec) does that. */
#include "seccomp_policy.h"

#include <errno.h>
#include <sched.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>

#include <seccomp.h>
#include <unistd.h>

#include "sys.h"

/* The highest family number socket rules enumerate one by one. */
#define FAMILY_MAX AF_NETLINK

/* The table's numbers and the x32 reasoning below are x86_64's. */
#if !defined(__x86_64__) || defined(__ILP32__)
#error "cordon's seccomp policy is written for x86_64 (LP64) only"
#endif

/* 2.5 for SCMP_FLTATR_API_SYSRAWRC (real errno from seccomp_load) and for
 * the x32 guard described in seccomp_policy_load(), checked on 2.5.4. */
#if SCMP_VER_MAJOR < 2 || (SCMP_VER_MAJOR == 2 && SCMP_VER_MINOR < 5)
#error "libseccomp 2.5 or later is required"
#endif

int seccomp_policy_resolve(const struct seccomp_rule_desc *r)
{
	if (!r || !r->syscall || r->match == SECCOMP_POLICY_FOREIGN_ABI)
		return -EINVAL;
	int nr = seccomp_syscall_resolve_name(r->syscall);
	if (nr == __NR_SCMP_ERROR)
		return -ENOENT;
	return nr;
}

static void ctx_release(scmp_filter_ctx *ctx)
{
	if (*ctx)
		seccomp_release(*ctx);
}

static int add_rule(scmp_filter_ctx ctx, const struct seccomp_rule_desc *r,
		    int nr, unsigned int ncmp, const struct scmp_arg_cmp *cmp,
		    struct cordon_err *e)
{
	uint32_t action = r->errno_value ? SCMP_ACT_ERRNO((uint32_t)r->errno_value)
					 : SCMP_ACT_KILL_PROCESS;
	int rc = seccomp_rule_add_array(ctx, action, nr, ncmp, cmp);
	if (rc < 0)
		return err_sys(e, -rc, "seccomp: adding the rule for %s (%s)",
			       r->syscall, r->when);
	return 0;
}

static struct scmp_arg_cmp cmp_of(unsigned int arg, enum scmp_compare op,
				  uint64_t a, uint64_t b)
{
	return (struct scmp_arg_cmp){ .arg = arg, .op = op, .datum_a = a, .datum_b = b };
}

/* libseccomp refuses two comparisons on one argument in a rule, so "family
 * not in the allowed set" is spelled as one rule per forbidden value up to
 * the largest allowed family, plus one for everything above it.  The
 * comparisons are on all 64 bits although the kernel reads an int: a value
 * with high bits set is above FAMILY_MAX, hence denied even when its low half
 * is an allowed family.  That fails closed, and no libc sets those bits. */
static int add_socket_rules(scmp_filter_ctx ctx, const struct seccomp_rule_desc *r,
			    int nr, const struct seccomp_opts *o,
			    struct cordon_err *e)
{
	for (uint64_t fam = 0; fam <= FAMILY_MAX; fam++) {
		if (seccomp_policy_socket_family_allowed(fam, o))
			continue;
		struct scmp_arg_cmp c = cmp_of(0, SCMP_CMP_EQ, fam, 0);
		int rc = add_rule(ctx, r, nr, 1, &c, e);
		if (rc < 0)
			return rc;
	}
	struct scmp_arg_cmp above = cmp_of(0, SCMP_CMP_GT, FAMILY_MAX, 0);
	return add_rule(ctx, r, nr, 1, &above, e);
}

static int add_row(scmp_filter_ctx ctx, const struct seccomp_rule_desc *r,
		   const struct seccomp_opts *o, struct cordon_err *e)
{
	if (r->match == SECCOMP_POLICY_FOREIGN_ABI)
		return 0; /* enforced by SCMP_FLTATR_ACT_BADARCH */

	/* A name this libseccomp does not know is skipped, and only then
	 * (__NR_SCMP_ERROR): the kernel may still have that syscall, which
	 * then goes unfiltered.  The program is compiled at build time, and
	 * the unit tests check that every row resolves with the library they
	 * run with.  Names that exist on other arches only
	 * resolve to negative pseudo-numbers that libseccomp itself drops for
	 * x86_64; they are passed through, not skipped. */
	int nr = seccomp_syscall_resolve_name(r->syscall);
	if (nr == __NR_SCMP_ERROR)
		return 0;

	struct scmp_arg_cmp c;
	switch (r->match) {
	case SECCOMP_POLICY_ALWAYS:
		return add_rule(ctx, r, nr, 0, NULL, e);
	case SECCOMP_POLICY_SOCKET_FAMILY:
		return add_socket_rules(ctx, r, nr, o, e);
	case SECCOMP_POLICY_ARG0_NE:
		/* All 64 bits: high bits set means "not equal", denied. */
		c = cmp_of(0, SCMP_CMP_NE, r->value, 0);
		return add_rule(ctx, r, nr, 1, &c, e);
	case SECCOMP_POLICY_ARG0_BITS_SET:
		c = cmp_of(0, SCMP_CMP_MASKED_EQ, r->value, r->value);
		return add_rule(ctx, r, nr, 1, &c, e);
	case SECCOMP_POLICY_ARG1_LOW32_EQ:
		c = cmp_of(1, SCMP_CMP_MASKED_EQ, 0xffffffffu, r->value);
		return add_rule(ctx, r, nr, 1, &c, e);
	case SECCOMP_POLICY_FOREIGN_ABI:
		break;
	}
	return err_set(e, EINVAL, "seccomp: rule for %s has an unknown match kind %d",
		       r->syscall, (int)r->match);
}

/* Build the filter into *out (released by the caller with ctx_release even
 * on failure). */
static int build_ctx(const struct seccomp_opts *o, scmp_filter_ctx *out,
		     struct cordon_err *e)
{
	/* The build-time check covers the headers; a dynamically linked
	 * binary may meet an older library at run time. */
	const struct scmp_version *v = seccomp_version();
	if (!v || v->major < 2 || (v->major == 2 && v->minor < 5))
		return err_set(e, ENOSYS, "seccomp: libseccomp %u.%u.%u is too old "
			       "(2.5 or later needed)", v ? v->major : 0,
			       v ? v->minor : 0, v ? v->micro : 0);

	scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
	*out = ctx;
	if (!ctx)
		return err_set(e, ENOMEM, "seccomp: seccomp_init failed");

	/* The filter holds only the native arch.  A syscall of another arch
	 * (i386 through int 0x80) fails its arch check and gets this action.
	 * x32 shares AUDIT_ARCH_X86_64, so the arch check cannot catch it;
	 * libseccomp (gen_bpf.c, when the filter has x86_64 and not x32)
	 * emits "nr >= 0x40000000 and nr != -1 -> bad-arch action" right
	 * after the arch check, so x32 numbers are killed by this action too.
	 * An explicit rule per x32 number would never be reached; the unit
	 * tests check that an x32 getpid dies with SIGSYS. */
	int rc = seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_KILL_PROCESS);
	if (rc < 0)
		return err_sys(e, -rc, "seccomp: setting the bad-arch action to kill");
	/* The caller owns no_new_privs; libseccomp would otherwise set it. */
	rc = seccomp_attr_set(ctx, SCMP_FLTATR_CTL_NNP, 0);
	if (rc < 0)
		return err_sys(e, -rc, "seccomp: clearing SCMP_FLTATR_CTL_NNP");
	/* Otherwise seccomp_load() turns any kernel error into ECANCELED. */
	rc = seccomp_attr_set(ctx, SCMP_FLTATR_API_SYSRAWRC, 1);
	if (rc < 0)
		return err_sys(e, -rc, "seccomp: setting SCMP_FLTATR_API_SYSRAWRC");

	size_t n;
	const struct seccomp_rule_desc *policy = seccomp_policy_table(&n);
	for (size_t i = 0; i < n; i++) {
		rc = add_row(ctx, &policy[i], o, e);
		if (rc < 0)
			return rc;
	}

	return 0;
}

int seccomp_policy_load(const struct seccomp_opts *o, struct cordon_err *e)
{
	/* Without no_new_privs a setuid or file-capability exec inside the
	 * sandbox would run privileged under a filter it did not expect. */
	int nnp = prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0);
	if (nnp < 0)
		return err_sys(e, errno, "seccomp: prctl(PR_GET_NO_NEW_PRIVS)");
	if (nnp != 1)
		return err_set(e, EPERM, "seccomp: no_new_privs is not set: "
			       "prctl(PR_SET_NO_NEW_PRIVS) must come before the filter is loaded");

	__attribute__((cleanup(ctx_release))) scmp_filter_ctx ctx = NULL;
	int rc = build_ctx(o, &ctx, e);
	if (rc < 0)
		return rc;
	rc = seccomp_load(ctx);
	if (rc < 0)
		return err_sys(e, -rc, "seccomp: loading the filter into the kernel");
	return 0;
}

int seccomp_policy_export(const struct seccomp_opts *o, struct sock_fprog *prog,
			  struct cordon_err *e)
{
	__attribute__((cleanup(ctx_release))) scmp_filter_ctx ctx = NULL;
	prog->len = 0;
	prog->filter = NULL;
	int rc = build_ctx(o, &ctx, e);
	if (rc < 0)
		return rc;
	/* libseccomp 2.5 exports only to a descriptor: go through a memfd. */
	AUTO_FD fd = memfd_create("cordon-seccomp", MFD_CLOEXEC);
	if (fd < 0)
		return err_sys(e, errno, "seccomp: memfd_create");
	rc = seccomp_export_bpf(ctx, fd);
	if (rc < 0)
		return err_sys(e, -rc, "seccomp: exporting the filter");
	off_t size = lseek(fd, 0, SEEK_END);
	if (size <= 0 || size % (off_t)sizeof(struct sock_filter) != 0 ||
	    size / (off_t)sizeof(struct sock_filter) > BPF_MAXINSNS)
		return err_set(e, EINVAL, "seccomp: exported filter has a bad size %lld",
			       (long long)size);
	struct sock_filter *f = malloc((size_t)size);
	if (!f)
		return err_set(e, ENOMEM, "seccomp: out of memory");
	if (lseek(fd, 0, SEEK_SET) != 0 || sys_read_full(fd, f, (size_t)size) != (ssize_t)size) {
		free(f);
		return err_sys(e, errno ? errno : EIO, "seccomp: reading the exported filter");
	}
	prog->len = (unsigned short)(size / (off_t)sizeof(struct sock_filter));
	prog->filter = f;
	return 0;
}
