/* bpf_eval.h: a classic BPF interpreter for seccomp programs, for the unit
 * tests that compare two programs on many inputs without loading either.
 *
 * Runs the whole instruction set the kernel accepts in a seccomp filter
 * (kernel/seccomp.c, seccomp_check_filter: loads from struct seccomp_data
 * at aligned 32-bit offsets, the scratch memory, the ALU, the jumps,
 * returns) and fails the test on anything else, on a jump out of the
 * program, or on running off its end: a program it cannot judge is never
 * called equal to another. */
#ifndef CORDON_TEST_BPF_EVAL_H
#define CORDON_TEST_BPF_EVAL_H

#include <criterion/criterion.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* The 32-bit word at offset off of d, as the kernel loads it. */
static uint32_t bpf_eval_word(const struct seccomp_data *d, uint32_t off)
{
	uint32_t w;
	cr_assert(off % 4 == 0 && off + 4 <= sizeof(*d), "BPF load at offset %u", off);
	memcpy(&w, (const unsigned char *)d + off, sizeof(w));
	return w;
}

static uint32_t bpf_eval_alu(uint16_t op, uint32_t a, uint32_t v)
{
	switch (op) {
	case BPF_ADD: return a + v;
	case BPF_SUB: return a - v;
	case BPF_MUL: return a * v;
	case BPF_DIV: cr_assert_neq(v, 0, "BPF division by zero"); return a / v;
	case BPF_MOD: cr_assert_neq(v, 0, "BPF division by zero"); return a % v;
	case BPF_OR: return a | v;
	case BPF_AND: return a & v;
	case BPF_XOR: return a ^ v;
	case BPF_LSH: return v < 32 ? a << v : 0;
	case BPF_RSH: return v < 32 ? a >> v : 0;
	case BPF_NEG: return -a;
	default: cr_assert_fail("BPF ALU op %#x", op);
	}
	return 0;
}

static int bpf_eval_jump(uint16_t op, uint32_t a, uint32_t v)
{
	switch (op) {
	case BPF_JEQ: return a == v;
	case BPF_JGT: return a > v;
	case BPF_JGE: return a >= v;
	case BPF_JSET: return (a & v) != 0;
	default: cr_assert_fail("BPF jump op %#x", op);
	}
	return 0;
}

/* The value prog returns for d (SECCOMP_RET_ACTION_FULL | data). */
static uint32_t bpf_eval(const struct sock_fprog *prog, const struct seccomp_data *d)
{
	uint32_t a = 0, x = 0, mem[BPF_MEMWORDS] = { 0 };
	for (size_t pc = 0; pc < prog->len; pc++) {
		const struct sock_filter *f = &prog->filter[pc];
		uint16_t cls = BPF_CLASS(f->code);
		switch (cls) {
		case BPF_LD:
		case BPF_LDX: {
			uint32_t v;
			switch (BPF_MODE(f->code)) {
			case BPF_ABS:
				cr_assert(cls == BPF_LD && BPF_SIZE(f->code) == BPF_W,
					  "BPF load %#x at %zu", f->code, pc);
				v = bpf_eval_word(d, f->k);
				break;
			case BPF_LEN: v = sizeof(*d); break;
			case BPF_IMM: v = f->k; break;
			case BPF_MEM:
				cr_assert_lt(f->k, BPF_MEMWORDS);
				v = mem[f->k];
				break;
			default: cr_assert_fail("BPF load mode %#x at %zu", f->code, pc); return 0;
			}
			if (cls == BPF_LD)
				a = v;
			else
				x = v;
			break;
		}
		case BPF_ST:
		case BPF_STX:
			cr_assert_lt(f->k, BPF_MEMWORDS);
			mem[f->k] = cls == BPF_ST ? a : x;
			break;
		case BPF_ALU:
			a = bpf_eval_alu(BPF_OP(f->code), a, BPF_SRC(f->code) == BPF_X ? x : f->k);
			break;
		case BPF_JMP:
			if (BPF_OP(f->code) == BPF_JA) {
				pc += f->k;
			} else {
				uint32_t v = BPF_SRC(f->code) == BPF_X ? x : f->k;
				pc += bpf_eval_jump(BPF_OP(f->code), a, v) ? f->jt : f->jf;
			}
			cr_assert_lt(pc + 1, prog->len, "BPF jump out of the program at %zu", pc);
			break;
		case BPF_RET:
			return BPF_RVAL(f->code) == BPF_A ? a : f->k;
		case BPF_MISC:
			if (BPF_MISCOP(f->code) == BPF_TAX)
				x = a;
			else
				a = x;
			break;
		default:
			cr_assert_fail("BPF class %#x at %zu", cls, pc);
		}
	}
	cr_assert_fail("BPF program ran off its end");
	return 0;
}

#endif
