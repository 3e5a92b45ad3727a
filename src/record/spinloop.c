/* Spin loops (spinloop.h). */
#include "record/spinloop.h"

#include "core/tracee.h"
#include "record/loopexit.h"
#include "record/rtask.h"

#include <capstone/capstone.h>
#include <errno.h>
#include <stdbool.h>
#include <string.h>

/* Instructions of a body looked at. */
#define MAX_INSNS 128

/* The value of a 64-bit register in regs; false for any other. */
static bool reg_value(unsigned reg, const struct user_regs_struct *r,
		      uint64_t *v)
{
	switch (reg) {
	case X86_REG_RAX:
		*v = r->rax;
		return true;
	case X86_REG_RBX:
		*v = r->rbx;
		return true;
	case X86_REG_RCX:
		*v = r->rcx;
		return true;
	case X86_REG_RDX:
		*v = r->rdx;
		return true;
	case X86_REG_RSI:
		*v = r->rsi;
		return true;
	case X86_REG_RDI:
		*v = r->rdi;
		return true;
	case X86_REG_RBP:
		*v = r->rbp;
		return true;
	case X86_REG_RSP:
		*v = r->rsp;
		return true;
	case X86_REG_R8:
		*v = r->r8;
		return true;
	case X86_REG_R9:
		*v = r->r9;
		return true;
	case X86_REG_R10:
		*v = r->r10;
		return true;
	case X86_REG_R11:
		*v = r->r11;
		return true;
	case X86_REG_R12:
		*v = r->r12;
		return true;
	case X86_REG_R13:
		*v = r->r13;
		return true;
	case X86_REG_R14:
		*v = r->r14;
		return true;
	case X86_REG_R15:
		*v = r->r15;
		return true;
	}
	return false;
}

/* A direct or conditional jump (not loop/jcxz, which spin loops do not
 * use). */
static bool is_jump(const cs_insn *in)
{
	return in->id == X86_INS_JMP || loopexit_is_cond_jump(in);
}

/* The target of a direct jump, or 0. */
static uint64_t jump_target(const cs_insn *in)
{
	const cs_x86 *x = &in->detail->x86;

	if (x->op_count == 1 && x->operands[0].type == X86_OP_IMM)
		return (uint64_t)x->operands[0].imm;
	return 0;
}

static bool is_string(const cs_insn *in)
{
	switch (in->id) {
	case X86_INS_MOVSB:
	case X86_INS_MOVSW:
	case X86_INS_MOVSD:
	case X86_INS_MOVSQ:
	case X86_INS_STOSB:
	case X86_INS_STOSW:
	case X86_INS_STOSD:
	case X86_INS_STOSQ:
	case X86_INS_LODSB:
	case X86_INS_LODSW:
	case X86_INS_LODSD:
	case X86_INS_LODSQ:
	case X86_INS_SCASB:
	case X86_INS_SCASW:
	case X86_INS_SCASD:
	case X86_INS_SCASQ:
	case X86_INS_CMPSB:
	case X86_INS_CMPSW:
	case X86_INS_CMPSD:
	case X86_INS_CMPSQ:
		return true;
	}
	return false;
}

/* Whether the body may not be a spin loop's: it leaves the function,
 * enters the kernel or jumps where the code cannot tell. */
static bool refused(const cs_insn *in)
{
	switch (in->id) {
	case X86_INS_CALL:
	case X86_INS_RET:
	case X86_INS_SYSCALL:
	case X86_INS_SYSENTER:
	case X86_INS_INT:
	case X86_INS_INT3:
	case X86_INS_UD2:
	case X86_INS_PUSH:
	case X86_INS_POP:
	case X86_INS_LEAVE:
		return true;
	}
	return is_string(in) || (is_jump(in) && !jump_target(in)) ||
	       in->id == X86_INS_LOOP || in->id == X86_INS_LOOPE ||
	       in->id == X86_INS_LOOPNE || in->id == X86_INS_JCXZ ||
	       in->id == X86_INS_JECXZ || in->id == X86_INS_JRCXZ;
}

/* Adds the fixed-address stores of in to out (nstores -1 when one is not
 * fixed: its base or index is a register of changed, a mask of gprs). */
static void add_stores(const cs_insn *in, const struct user_regs_struct *regs,
		       uint16_t changed, struct spin_loop *out)
{
	const cs_x86 *x = &in->detail->x86;

	for (int i = 0; i < x->op_count && out->nstores >= 0; i++) {
		const cs_x86_op *op = &x->operands[i];
		uint64_t addr = (uint64_t)op->mem.disp, v;
		int b, ix;

		if (op->type != X86_OP_MEM || !(op->access & CS_AC_WRITE))
			continue;
		b = loopexit_gpr(op->mem.base);
		ix = loopexit_gpr(op->mem.index);
		if ((b >= 0 && (changed >> b & 1)) ||
		    (ix >= 0 && (changed >> ix & 1)))
			goto unknown;
		if (op->mem.base == X86_REG_RIP)
			addr += in->address + in->size;
		else if (op->mem.base != X86_REG_INVALID) {
			if (!reg_value(op->mem.base, regs, &v))
				goto unknown;
			addr += v;
		}
		if (op->mem.index != X86_REG_INVALID) {
			if (!reg_value(op->mem.index, regs, &v))
				goto unknown;
			addr += v * (uint64_t)op->mem.scale;
		}
		if (op->mem.segment == X86_REG_FS)
			addr += regs->fs_base;
		else if (op->mem.segment == X86_REG_GS)
			addr += regs->gs_base;
		else if (op->mem.segment != X86_REG_INVALID)
			goto unknown;
		if (op->size == 0 || op->size > 16 ||
		    out->nstores == SPINLOOP_MAX_STORES)
			goto unknown;
		out->store[out->nstores].addr = addr;
		out->store[out->nstores].len = op->size;
		out->nstores++;
		continue;
	unknown:
		out->nstores = -1;
	}
}

/* Reads the body [lo, back_end) of a candidate loop around rip into out
 * (its stores): 0, or -EINVAL when it is not a spin loop's. */
static int body(csh h, cs_insn *in, const uint8_t *code, uint64_t base,
		uint64_t lo, uint64_t back_end,
		const struct user_regs_struct *regs, struct spin_loop *out)
{
	uint16_t changed = 0;

	out->nstores = 0;
	/* twice: the registers it changes first, then its stores */
	for (int pass = 0; pass < 2; pass++) {
		const uint8_t *p = code + (lo - base);
		size_t left = (size_t)(back_end - lo);
		uint64_t at = lo;
		bool hit_rip = false;
		int n = 0;

		while (at < back_end) {
			cs_regs rd, wr;
			uint8_t nrd = 0, nwr = 0;

			if (n++ >= MAX_INSNS ||
			    !cs_disasm_iter(h, &p, &left, &at, in) ||
			    refused(in))
				return -EINVAL;
			if (in->address == regs->rip)
				hit_rip = true;
			if (pass == 1) {
				add_stores(in, regs, changed, out);
				continue;
			}
			if (cs_regs_access(h, in, rd, &nrd, wr, &nwr) !=
			    CS_ERR_OK)
				return -EINVAL;
			for (int i = 0; i < nwr; i++) {
				int g = loopexit_gpr(wr[i]);

				if (g >= 0)
					changed |= (uint16_t)(1u << g);
			}
		}
		if (at != back_end || !hit_rip)
			return -EINVAL; /* rip is not an instruction of it */
	}
	return 0;
}

int spin_loop_in(const uint8_t *code, size_t len, uint64_t base,
		 const struct user_regs_struct *regs, struct spin_loop *out)
{
	uint64_t rip = regs->rip, at;
	int n = 0, ret = -ENOENT;
	const uint8_t *p;
	size_t left;
	cs_insn *in, *bin;
	csh h;

	memset(out, 0, sizeof(*out));
	if (rip < base || rip >= base + len)
		return -ENOENT;
	if (cs_open(CS_ARCH_X86, CS_MODE_64, &h) != CS_ERR_OK)
		return -ENOENT;
	cs_option(h, CS_OPT_DETAIL, CS_OPT_ON);
	in = cs_malloc(h);
	bin = cs_malloc(h);
	if (!in || !bin)
		goto out_free;
	/* forward from rip, each jump back over it, innermost first, until
	 * one closes a spin loop's body: a jump back out of the loop (to an
	 * outer loop's top, as fuzzy sync's exits) does not */
	p = code + (rip - base);
	left = len - (size_t)(rip - base);
	at = rip;
	while (n++ < MAX_INSNS && at < rip + SPINLOOP_AHEAD &&
	       cs_disasm_iter(h, &p, &left, &at, in)) {
		uint64_t to = is_jump(in) ? jump_target(in) : 0;

		if (to && to <= rip && rip - to <= SPINLOOP_BACK &&
		    to >= base) {
			ret = -EINVAL;
			if (body(h, bin, code, base, to, at, regs, out) == 0) {
				out->lo = to;
				out->back = in->address;
				ret = 0;
				break;
			}
		}
		if (in->id == X86_INS_RET || (is_jump(in) && !to))
			break;
	}
out_free:
	if (bin)
		cs_free(bin, 1);
	if (in)
		cs_free(in, 1);
	cs_close(&h);
	return ret;
}

int rec_spin_loop(struct rtask *t, const struct user_regs_struct *regs,
		  struct spin_loop *out)
{
	uint8_t code[SPINLOOP_BACK + SPINLOOP_AHEAD + 16];
	uint64_t base =
		regs->rip > SPINLOOP_BACK ? regs->rip - SPINLOOP_BACK : 0;
	ssize_t got = -1;

	/* the page before rip may be unmapped: read what can be read */
	for (uint64_t b = base; b <= regs->rip; b = (b | 0xfff) + 1) {
		got = tracee_read(
			&t->t, b, code,
			(size_t)(regs->rip + SPINLOOP_AHEAD + 16 - b));
		if (got > 0 && b + (uint64_t)got > regs->rip) {
			base = b;
			break;
		}
		got = -1;
	}
	if (got <= 0)
		return -ENOENT;
	return spin_loop_in(code, (size_t)got, base, regs, out);
}
