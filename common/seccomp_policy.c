/* seccomp_policy.c: the compiler of the rule tables and its loader (see
 * seccomp_policy.h).  Belongs here: turning a table into a libseccomp
 * filter.  Nothing here exits, prints or sets no_new_privs; the caller
 * does that. */
#include "seccomp_policy.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
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

/* Syscalls newer than some libseccomp 2.5.x builds, by x86_64 number (the
 * kernel's syscall_64.tbl); libseccomp accepts a native number it cannot
 * name. */
static const struct {
	const char *name;
	int nr;
} newer_syscalls[] = {
	{ "openat2", 437 },
	{ "fchmodat2", 452 },
};

int seccomp_policy_nr(const char *name)
{
	if (!name)
		return -EINVAL;
	int nr = seccomp_syscall_resolve_name(name);
	if (nr != __NR_SCMP_ERROR)
		return nr;
	for (size_t i = 0; i < sizeof(newer_syscalls) / sizeof(newer_syscalls[0]); i++)
		if (strcmp(name, newer_syscalls[i].name) == 0)
			return newer_syscalls[i].nr;
	return -ENOENT;
}

int seccomp_policy_resolve(const struct seccomp_rule_desc *r)
{
	if (!r || !r->syscall || r->match == SECCOMP_POLICY_FOREIGN_ABI)
		return -EINVAL;
	return seccomp_policy_nr(r->syscall);
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

/* One rule per bit of r->value set in the argument (libseccomp ANDs the
 * comparisons of a rule and ORs rules): "any bit" is a union.  With
 * `create`, each is also ANDed with one of the creating open flags in the
 * argument before the mode.  Masks test single bits, so whatever the upper
 * 32 bits hold, a bit the kernel reads is seen. */
static int add_bits_rules(scmp_filter_ctx ctx, const struct seccomp_rule_desc *r, int nr,
			  int create, struct cordon_err *e)
{
	/* __O_TMPFILE alone: O_TMPFILE also carries O_DIRECTORY. */
	static const uint64_t creating[] = { O_CREAT, O_TMPFILE & ~O_DIRECTORY };
	unsigned int mode_arg = r->arg + (create ? 1 : 0);
	for (unsigned int bit = 0; bit < 64; bit++) {
		uint64_t b = (uint64_t)1 << bit;
		if (!(r->value & b))
			continue;
		struct scmp_arg_cmp c[2] = { cmp_of(mode_arg, SCMP_CMP_MASKED_EQ, b, b) };
		if (!create) {
			int rc = add_rule(ctx, r, nr, 1, c, e);
			if (rc < 0)
				return rc;
			continue;
		}
		for (size_t i = 0; i < sizeof(creating) / sizeof(creating[0]); i++) {
			c[1] = cmp_of(r->arg, SCMP_CMP_MASKED_EQ, creating[i], creating[i]);
			int rc = add_rule(ctx, r, nr, 2, c, e);
			if (rc < 0)
				return rc;
		}
	}
	return 0;
}

/* "Type not allowed" spelled as one rule per forbidden value of the type
 * field (SOCK_TYPE_MASK, 0..15), on the low 32 bits the kernel reads, the
 * two flags masked off.  Any other bit makes the kernel answer EINVAL. */
static int add_socketpair_type_rules(scmp_filter_ctx ctx, const struct seccomp_rule_desc *r,
				     int nr, struct cordon_err *e)
{
	const uint64_t mask = 0xffffffffu & ~(uint64_t)(SOCK_NONBLOCK | SOCK_CLOEXEC);
	for (uint64_t type = 0; type <= 15; type++) {
		if (seccomp_policy_socketpair_type_allowed(type))
			continue;
		struct scmp_arg_cmp c = cmp_of(1, SCMP_CMP_MASKED_EQ, mask, type);
		int rc = add_rule(ctx, r, nr, 1, &c, e);
		if (rc < 0)
			return rc;
	}
	return 0;
}

/* Like add_socketpair_type_rules, for socket(AF_UNIX, type): arg0 equal to
 * AF_UNIX on all 64 bits (any other value with the low half AF_UNIX is
 * already denied by the family rows). */
static int add_unix_type_rules(scmp_filter_ctx ctx, const struct seccomp_rule_desc *r,
			       int nr, const struct seccomp_opts *o, struct cordon_err *e)
{
	const uint64_t mask = 0xffffffffu & ~(uint64_t)(SOCK_NONBLOCK | SOCK_CLOEXEC);
	for (uint64_t type = 0; type <= 15; type++) {
		if (seccomp_policy_unix_type_allowed(type, o))
			continue;
		struct scmp_arg_cmp c[2] = { cmp_of(0, SCMP_CMP_EQ, AF_UNIX, 0),
					     cmp_of(1, SCMP_CMP_MASKED_EQ, mask, type) };
		int rc = add_rule(ctx, r, nr, 2, c, e);
		if (rc < 0)
			return rc;
	}
	return 0;
}

/* "The low 32 bits of arg `a` differ from v" in libseccomp's comparisons,
 * which have no masked not-equal: one rule per bit, that bit of the
 * argument unlike v's (libseccomp ORs rules).  and_arg >= 0 ANDs "arg
 * and_arg is not 0" (all 64 bits) to each.  The upper 32 bits are not
 * looked at: the kernel reads an int there. */
static int add_low32_ne_rules(scmp_filter_ctx ctx, const struct seccomp_rule_desc *r, int nr,
			      unsigned int a, uint64_t v, int and_arg, struct cordon_err *e)
{
	for (unsigned int bit = 0; bit < 32; bit++) {
		uint64_t b = (uint64_t)1 << bit;
		struct scmp_arg_cmp c[2] = { cmp_of(a, SCMP_CMP_MASKED_EQ, b, (v & b) ^ b) };
		unsigned int ncmp = 1;
		if (and_arg >= 0)
			c[ncmp++] = cmp_of((unsigned int)and_arg, SCMP_CMP_NE, 0, 0);
		int rc = add_rule(ctx, r, nr, ncmp, c, e);
		if (rc < 0)
			return rc;
	}
	return 0;
}

/* "The low 32 bits of arg0 are no family of r->value": one rule per
 * refused value below 64, and one per bit from 64 up (any of them set is
 * a value of 64 or more). */
static int add_family_low32_rules(scmp_filter_ctx ctx, const struct seccomp_rule_desc *r, int nr,
				  const struct seccomp_opts *o, struct cordon_err *e)
{
	uint64_t allowed = r->value;
	if (o && o->allow_unix_sockets)
		allowed |= (uint64_t)1 << AF_UNIX;
	for (uint64_t fam = 0; fam < 64; fam++) {
		if (allowed >> fam & 1)
			continue;
		struct scmp_arg_cmp c = cmp_of(0, SCMP_CMP_MASKED_EQ, 0xffffffffu, fam);
		int rc = add_rule(ctx, r, nr, 1, &c, e);
		if (rc < 0)
			return rc;
	}
	for (unsigned int bit = 6; bit < 32; bit++) {
		uint64_t b = (uint64_t)1 << bit;
		struct scmp_arg_cmp c = cmp_of(0, SCMP_CMP_MASKED_EQ, b, b);
		int rc = add_rule(ctx, r, nr, 1, &c, e);
		if (rc < 0)
			return rc;
	}
	return 0;
}

static int add_row(scmp_filter_ctx ctx, const struct seccomp_rule_desc *r,
		   const struct seccomp_opts *o, struct cordon_err *e)
{
	if (r->match == SECCOMP_POLICY_FOREIGN_ABI)
		return 0; /* enforced by SCMP_FLTATR_ACT_BADARCH */

	/* A name neither this libseccomp nor newer_syscalls knows is skipped,
	 * and only then: the kernel may still have that syscall, which then
	 * goes unfiltered.  The program is compiled at build time, and
	 * the unit tests check that every row resolves with the library they
	 * run with.  Names that exist on other arches only
	 * resolve to negative pseudo-numbers that libseccomp itself drops for
	 * x86_64; they are passed through, not skipped. */
	int nr = seccomp_policy_nr(r->syscall);
	if (nr == -ENOENT)
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
	case SECCOMP_POLICY_ARG_ANY_BITS:
		return add_bits_rules(ctx, r, nr, 0, e);
	case SECCOMP_POLICY_CREATE_MODE:
		return add_bits_rules(ctx, r, nr, 1, e);
	case SECCOMP_POLICY_SOCKETPAIR_TYPE:
		return add_socketpair_type_rules(ctx, r, nr, e);
	case SECCOMP_POLICY_UNIX_SOCKET_TYPE:
		return add_unix_type_rules(ctx, r, nr, o, e);
	case SECCOMP_POLICY_SUPERVISED:
		if (o && o->allow_unix_sockets)
			return 0;
		if (seccomp_rule_add_array(ctx, SCMP_ACT_NOTIFY, nr, 0, NULL) < 0)
			return err_set(e, EINVAL, "seccomp: adding the supervised rule for %s",
				       r->syscall);
		return 0;
	case SECCOMP_POLICY_ARG_LOW32_NE:
		return add_low32_ne_rules(ctx, r, nr, r->arg, r->value, -1, e);
	case SECCOMP_POLICY_ARG0_LOW32_SET_AND:
		return add_low32_ne_rules(ctx, r, nr, 0, 0, (int)r->arg, e);
	case SECCOMP_POLICY_FAMILY_LOW32:
		return add_family_low32_rules(ctx, r, nr, o, e);
	case SECCOMP_POLICY_FOREIGN_ABI:
		break;
	}
	return err_set(e, EINVAL, "seccomp: rule for %s has an unknown match kind %d",
		       r->syscall, (int)r->match);
}

/* A filter with default action `def` for the native arch only, into *out
 * (released by the caller with ctx_release even on failure); a syscall of
 * another ABI gets `badarch`. */
static int ctx_new(uint32_t def, uint32_t badarch, scmp_filter_ctx *out, struct cordon_err *e)
{
	/* The build-time check covers the headers; a dynamically linked
	 * binary may meet an older library at run time. */
	const struct scmp_version *v = seccomp_version();
	if (!v || v->major < 2 || (v->major == 2 && v->minor < 5))
		return err_set(e, ENOSYS, "seccomp: libseccomp %u.%u.%u is too old "
			       "(2.5 or later needed)", v ? v->major : 0,
			       v ? v->minor : 0, v ? v->micro : 0);

	scmp_filter_ctx ctx = seccomp_init(def);
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
	int rc = seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH, badarch);
	if (rc < 0)
		return err_sys(e, -rc, "seccomp: setting the bad-arch action");
	/* The caller owns no_new_privs; libseccomp would otherwise set it. */
	rc = seccomp_attr_set(ctx, SCMP_FLTATR_CTL_NNP, 0);
	if (rc < 0)
		return err_sys(e, -rc, "seccomp: clearing SCMP_FLTATR_CTL_NNP");
	/* Otherwise seccomp_load() turns any kernel error into ECANCELED. */
	rc = seccomp_attr_set(ctx, SCMP_FLTATR_API_SYSRAWRC, 1);
	if (rc < 0)
		return err_sys(e, -rc, "seccomp: setting SCMP_FLTATR_API_SYSRAWRC");
	return 0;
}

/* The filter of rows[0..n) into *out (released by the caller with
 * ctx_release even on failure): another ABI is killed when a row says so,
 * let through otherwise. */
static int build_rows(const struct seccomp_rule_desc *rows, size_t n,
		      const struct seccomp_opts *o, scmp_filter_ctx *out, struct cordon_err *e)
{
	uint32_t badarch = SCMP_ACT_ALLOW;
	for (size_t i = 0; i < n; i++)
		if (rows[i].match == SECCOMP_POLICY_FOREIGN_ABI)
			badarch = SCMP_ACT_KILL_PROCESS;
	int rc = ctx_new(SCMP_ACT_ALLOW, badarch, out, e);
	if (rc < 0)
		return rc;
	for (size_t i = 0; i < n; i++) {
		rc = add_row(*out, &rows[i], o, e);
		if (rc < 0)
			return rc;
	}
	return 0;
}

/* The command's filter. */
static int build_ctx(const struct seccomp_opts *o, scmp_filter_ctx *out,
		     struct cordon_err *e)
{
	size_t n;
	const struct seccomp_rule_desc *policy = seccomp_policy_table(&n);
	return build_rows(policy, n, o, out, e);
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

/* libseccomp 2.5 exports only to a descriptor: go through a memfd. */
static int export_ctx(scmp_filter_ctx ctx, struct sock_fprog *prog, struct cordon_err *e)
{
	AUTO_FD fd = memfd_create("cordon-seccomp", MFD_CLOEXEC);
	if (fd < 0)
		return err_sys(e, errno, "seccomp: memfd_create");
	int rc = seccomp_export_bpf(ctx, fd);
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

int seccomp_policy_export(const struct seccomp_opts *o, struct sock_fprog *prog,
			  struct cordon_err *e)
{
	size_t n;
	const struct seccomp_rule_desc *policy = seccomp_policy_table(&n);
	return seccomp_policy_export_rows(policy, n, o, prog, e);
}

int seccomp_policy_export_rows(const struct seccomp_rule_desc *rows, size_t n,
			       const struct seccomp_opts *o, struct sock_fprog *prog,
			       struct cordon_err *e)
{
	__attribute__((cleanup(ctx_release))) scmp_filter_ctx ctx = NULL;
	prog->len = 0;
	prog->filter = NULL;
	int rc = build_rows(rows, n, o, &ctx, e);
	return rc < 0 ? rc : export_ctx(ctx, prog, e);
}

int seccomp_policy_pid1_export(struct sock_fprog *prog, struct cordon_err *e)
{
	__attribute__((cleanup(ctx_release))) scmp_filter_ctx ctx = NULL;
	prog->len = 0;
	prog->filter = NULL;
	int rc = ctx_new(SCMP_ACT_KILL_PROCESS, SCMP_ACT_KILL_PROCESS, &ctx, e);
	if (rc < 0)
		return rc;
	size_t n;
	const char *const *allowed = seccomp_policy_pid1_allowed(&n);
	for (size_t i = 0; i < n; i++) {
		int nr = seccomp_policy_nr(allowed[i]);
		if (nr < 0)
			return err_set(e, ENOENT, "seccomp: cordon-inner's filter names %s, "
				       "which libseccomp does not know", allowed[i]);
		if (strcmp(allowed[i], "ioctl") == 0 || strcmp(allowed[i], "openat") == 0)
			continue;
		rc = seccomp_rule_add_array(ctx, SCMP_ACT_ALLOW, nr, 0, NULL);
		if (rc < 0)
			return err_sys(e, -rc, "seccomp: allowing %s to cordon-inner", allowed[i]);
	}
	/* ioctl only for the supervisor's seccomp requests and the pty's
	 * foreground group: no TIOCSTI into a terminal from a PID 1 taken
	 * over. */
	size_t ni;
	const unsigned long *req = seccomp_policy_pid1_ioctls(&ni);
	for (size_t i = 0; i < ni; i++) {
		struct scmp_arg_cmp c = cmp_of(1, SCMP_CMP_MASKED_EQ, 0xffffffffu, req[i]);
		rc = seccomp_rule_add_array(ctx, SCMP_ACT_ALLOW, SCMP_SYS(ioctl), 1, &c);
		if (rc < 0)
			return err_sys(e, -rc, "seccomp: allowing cordon-inner's ioctls");
	}
	/* openat only to look (O_PATH) or read (/proc/TID/status): nothing
	 * written, created or truncated. */
	struct scmp_arg_cmp ro = cmp_of(2, SCMP_CMP_MASKED_EQ, SECCOMP_POLICY_PID1_OPEN_DENIED, 0);
	rc = seccomp_rule_add_array(ctx, SCMP_ACT_ALLOW, SCMP_SYS(openat), 1, &ro);
	if (rc < 0)
		return err_sys(e, -rc, "seccomp: allowing cordon-inner's read-only openat");
	return export_ctx(ctx, prog, e);
}
