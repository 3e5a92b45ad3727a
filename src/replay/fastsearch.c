/* A searched preemption point found at the program's own speed
 * (fastsearch.h). */
#include "replay/fastsearch.h"

#include "core/log.h"
#include "core/memdigest.h"
#include "core/proc.h"
#include "core/tracee.h"

#include <capstone/capstone.h>
#include <cpuid.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>

#ifndef MAP_FIXED_NOREPLACE
#define MAP_FIXED_NOREPLACE 0x100000
#endif

/* The recorded values the trampoline compares, then its code. */
#define SLOTS_LEN 128
/* The trampoline's data page (right after its code page): where it keeps
 * rax and the flags while it compares. Left out of the memory digests. */
#define SAVE_RAX   0
#define SAVE_FLAGS 8
#define PAGE	   4096ull
/* Bytes of code before and after the patch looked through for jumps
 * into it. */
#define JUMP_SCAN_BEFORE 512
#define JUMP_SCAN_AFTER	 2048
/* The end of the user address space (47-bit): the gap under the stack,
 * above the libraries, is often the only one near them. */
#define USER_TOP 0x7ffffffff000ull

/* user_regs_struct word -> x86 register number, for the words the
 * trampoline compares (the general registers and rsp); -1 others. */
static const int8_t reg_num[27] = {
	15, 14, 13, 12, 5,  3,	11, 10, 9, 8, 0, 1, 2, 6, 7, /* r15 .. rdi */
	-1, -1, -1, -1, /* orig_rax, rip, cs, eflags */
	4,		/* rsp */
	-1, -1, -1, -1, -1, -1, -1,
};

struct emit {
	uint8_t *b;
	size_t len, cap;
	bool full;
};

static void put(struct emit *e, const void *p, size_t n)
{
	if (e->len + n > e->cap) {
		e->full = true;
		return;
	}
	memcpy(e->b + e->len, p, n);
	e->len += n;
}

static void put1(struct emit *e, uint8_t v)
{
	put(e, &v, 1);
}

static void put32(struct emit *e, int32_t v)
{
	put(e, &v, 4);
}

static bool fits32(int64_t v)
{
	return v >= INT32_MIN && v <= INT32_MAX;
}

/* A rel32 from the end of a field at address end to target, or false. */
static bool rel32(uint64_t end, uint64_t target, int32_t *out)
{
	int64_t d = (int64_t)(target - end);

	if (!fits32(d))
		return false;
	*out = (int32_t)d;
	return true;
}

static bool in_group(const cs_insn *in, uint8_t g)
{
	for (uint8_t i = 0; i < in->detail->groups_count; i++)
		if (in->detail->groups[i] == g)
			return true;
	return false;
}

/* Instructions whose copy would run differently away from ip. */
static bool unmovable(const cs_insn *in)
{
	switch (in->id) {
	case X86_INS_SYSCALL:
	case X86_INS_SYSENTER:
	case X86_INS_INT3:
	case X86_INS_LOOP:
	case X86_INS_LOOPE:
	case X86_INS_LOOPNE:
	case X86_INS_JRCXZ:
	case X86_INS_JECXZ:
	case X86_INS_JCXZ:
	case X86_INS_XBEGIN:
	case X86_INS_HLT:
	case X86_INS_UD2:
		return true;
	default:
		return in_group(in, CS_GRP_CALL) || in_group(in, CS_GRP_RET) ||
		       in_group(in, CS_GRP_INT) || in_group(in, CS_GRP_IRET);
	}
}

/* The condition code of a jcc (0-15), from its opcode, or -1. */
static int jcc_code(const cs_insn *in)
{
	const uint8_t *op = in->detail->x86.opcode;

	if (op[0] >= 0x70 && op[0] <= 0x7f)
		return op[0] - 0x70;
	if (op[0] == 0x0f && op[1] >= 0x80 && op[1] <= 0x8f)
		return op[1] - 0x80;
	return -1;
}

static bool rip_relative(const cs_insn *in)
{
	const cs_x86 *x = &in->detail->x86;

	for (uint8_t i = 0; i < x->op_count; i++)
		if (x->operands[i].type == X86_OP_MEM &&
		    x->operands[i].mem.base == X86_REG_RIP)
			return true;
	return false;
}

/* Copies instruction in (at its address in->address) to e, where it will
 * run at at. Sets *ends when nothing falls through after it. */
static bool copy_insn(const cs_insn *in, struct emit *e, uint64_t at,
		      bool *ends, const char **why)
{
	const cs_x86 *x = &in->detail->x86;
	bool jump = in_group(in, CS_GRP_JUMP);
	int32_t r;

	*ends = false;
	if (in->id == X86_INS_RET && in->size == 1) {
		put1(e, 0xc3); /* nothing after it runs from here */
		*ends = true;
		return true;
	}
	if (in->id == X86_INS_CALL && x->op_count == 1 &&
	    x->operands[0].type == X86_OP_IMM) {
		/* the return address is the original one: lea rsp,
		 * [rsp-8]; mov dword [rsp], lo; mov dword [rsp+4], hi (no
		 * flags changed); jmp target. The callee returns past the
		 * patch: the call ends the window. */
		uint64_t ret_to = in->address + in->size;
		static const uint8_t lea[] = {0x48, 0x8d, 0x64, 0x24, 0xf8};
		static const uint8_t mov_lo[] = {0xc7, 0x04, 0x24};
		static const uint8_t mov_hi[] = {0xc7, 0x44, 0x24, 0x04};
		uint64_t jmp_at;

		put(e, lea, sizeof(lea));
		put(e, mov_lo, sizeof(mov_lo));
		put32(e, (int32_t)(uint32_t)ret_to);
		put(e, mov_hi, sizeof(mov_hi));
		put32(e, (int32_t)(uint32_t)(ret_to >> 32));
		jmp_at = at + sizeof(lea) + sizeof(mov_lo) + 4 +
			 sizeof(mov_hi) + 4;
		put1(e, 0xe9);
		*ends = true;
		if (!rel32(jmp_at + 5, (uint64_t)x->operands[0].imm, &r))
			goto far;
		put32(e, r);
		return true;
	}
	if (unmovable(in)) {
		*why = "the point's instructions include a call, return, "
		       "syscall or loop instruction";
		return false;
	}
	if (jump && x->op_count == 1 && x->operands[0].type == X86_OP_IMM) {
		uint64_t target = (uint64_t)x->operands[0].imm;
		int cc = jcc_code(in);

		if (in->id == X86_INS_JMP) {
			put1(e, 0xe9);
			*ends = true;
			if (!rel32(at + 5, target, &r))
				goto far;
			put32(e, r);
			return true;
		}
		if (cc < 0) {
			*why = "a relative jump of a kind not copied";
			return false;
		}
		put1(e, 0x0f);
		put1(e, (uint8_t)(0x80 + cc));
		if (!rel32(at + 6, target, &r))
			goto far;
		put32(e, r);
		return true;
	}
	if (jump) /* indirect: a register or memory operand */
		*ends = true;
	if (rip_relative(in)) {
		uint8_t b[16];
		uint8_t off = x->encoding.disp_offset;
		int32_t disp;
		int64_t nd;

		if (!off || x->encoding.disp_size != 4 || off + 4u > in->size) {
			*why = "a rip-relative operand not understood";
			return false;
		}
		memcpy(b, in->bytes, in->size);
		memcpy(&disp, b + off, 4);
		nd = (int64_t)disp + (int64_t)(in->address - at);
		if (!fits32(nd))
			goto far;
		disp = (int32_t)nd;
		memcpy(b + off, &disp, 4);
		put(e, b, in->size);
		return true;
	}
	put(e, in->bytes, in->size);
	return true;
far:
	*why = "no page for the trampoline within reach of the point's code";
	return false;
}

/* An instruction with a rip-relative operand to target: prefix bytes,
 * then disp32 (the instruction ends with it). */
static void put_riprel(struct emit *e, const uint8_t *op, size_t n, uint64_t at,
		       uint64_t target, bool *far)
{
	int32_t r = 0;

	put(e, op, n);
	if (!rel32(at + n + 4, target, &r))
		*far = true;
	put32(e, r);
}

/* The flags and rax back from the data page: mov ax, [flags]; add al,
 * 0x7f (OF from the saved seto); sahf (SF ZF AF PF CF); mov rax, [rax
 * slot]. 17 bytes, no memory written. */
#define RESTORE_LEN 17
static void restore(struct emit *e, uint64_t tramp, bool *far)
{
	static const uint8_t mov_ax[] = {0x66, 0x8b, 0x05};
	static const uint8_t add_sahf[] = {0x04, 0x7f, 0x9e};
	static const uint8_t mov_rax[] = {0x48, 0x8b, 0x05};

	put_riprel(e, mov_ax, sizeof(mov_ax), tramp + e->len,
		   tramp + PAGE + SAVE_FLAGS, far);
	put(e, add_sahf, sizeof(add_sahf));
	put_riprel(e, mov_rax, sizeof(mov_rax), tramp + e->len,
		   tramp + PAGE + SAVE_RAX, far);
}

int fastsearch_build(const uint8_t *code, size_t n, uint64_t ip, uint64_t tramp,
		     const uint64_t *regs, uint64_t mask,
		     struct fastsearch_code *out, const char **why)
{
	static const uint8_t save_rax[] = {0x48, 0x89, 0x05};
	static const uint8_t lahf_seto[] = {0x9f, 0x0f, 0x90, 0xc0};
	static const uint8_t save_ax[] = {0x66, 0x89, 0x05};
	static const uint8_t load_rax[] = {0x48, 0x8b, 0x05};
	struct emit e = {out->bytes, 0, sizeof(out->bytes), false};
	size_t miss_fix[27];
	int nmiss = 0, nslots = 0;
	uint64_t slot_val[27];
	int slot_word[27];
	bool ends = false, far = false;
	cs_insn *in = NULL;
	csh h;
	int ret = -1;
	int32_t r;

	memset(out, 0, sizeof(*out));
	*why = "no page for the trampoline within reach of the point's code";
	for (int w = 0; w < 27; w++)
		if ((mask >> w & 1) && reg_num[w] >= 0) {
			slot_word[nslots] = w;
			slot_val[nslots++] = regs[w];
		}
	/* the recorded values */
	for (int i = 0; i < nslots; i++)
		put(&e, &slot_val[i], 8);
	e.len = SLOTS_LEN;
	/* the flags (lahf; seto al) and rax into the data page: nothing is
	 * written in the program's memory, not even below its stack */
	put_riprel(&e, save_rax, sizeof(save_rax), tramp + e.len,
		   tramp + PAGE + SAVE_RAX, &far);
	put(&e, lahf_seto, sizeof(lahf_seto));
	put_riprel(&e, save_ax, sizeof(save_ax), tramp + e.len,
		   tramp + PAGE + SAVE_FLAGS, &far);
	put_riprel(&e, load_rax, sizeof(load_rax), tramp + e.len,
		   tramp + PAGE + SAVE_RAX, &far);
	/* compare each: cmp reg, [rip + slot]; jne miss */
	for (int i = 0; i < nslots; i++) {
		int rn = reg_num[slot_word[i]];
		const uint8_t cmp[] = {(uint8_t)(0x48 | (rn >= 8 ? 0x04 : 0)),
				       0x3b, (uint8_t)(((rn & 7) << 3) | 5)};

		put_riprel(&e, cmp, sizeof(cmp), tramp + e.len,
			   tramp + (uint64_t)i * 8, &far);
		put1(&e, 0x0f);
		put1(&e, 0x85);
		miss_fix[nmiss++] = e.len;
		put32(&e, 0);
	}
	restore(&e, tramp, &far);
	put1(&e, 0xcc);
	out->hit = (unsigned)e.len;
	put1(&e, 0xe9);		/* on to the copy, when resumed right here */
	put32(&e, RESTORE_LEN); /* over the miss path's restore */
	for (int i = 0; i < nmiss; i++) {
		int32_t d = (int32_t)(e.len - (miss_fix[i] + 4));

		memcpy(out->bytes + miss_fix[i], &d, 4);
	}
	restore(&e, tramp, &far);
	out->resume = (unsigned)e.len;
	if (far)
		return -1;

	if (cs_open(CS_ARCH_X86, CS_MODE_64, &h) != CS_ERR_OK)
		return -1;
	cs_option(h, CS_OPT_DETAIL, CS_OPT_ON);
	in = cs_malloc(h);
	if (!in)
		goto out;
	{
		const uint8_t *p = code;
		size_t left = n;
		uint64_t addr = ip;

		uint64_t pad_end = 0;

		while (out->window < 5) {
			if (!cs_disasm_iter(h, &p, &left, &addr, in)) {
				*why = "the point's code does not decode";
				goto out;
			}
			if (ends) {
				/* after a return or a jump only the padding
				 * up to the next 16-byte boundary, where a
				 * function may start: never copied */
				if ((in->id != X86_INS_NOP &&
				     in->id != X86_INS_INT3) ||
				    in->address + in->size > pad_end) {
					*why = "a return or jump ends the "
					       "point's code before the "
					       "patch's 5 bytes";
					goto out;
				}
				out->window += in->size;
				continue;
			}
			if (!copy_insn(in, &e, tramp + e.len, &ends, why))
				goto out;
			out->window += in->size;
			if (ends)
				pad_end = (addr + 15) & ~15ull;
			if (out->window > FASTSEARCH_MAX_WINDOW) {
				*why = "the point's instructions are too long";
				goto out;
			}
		}
	}
	if (!ends) {
		put1(&e, 0xe9);
		if (!rel32(tramp + e.len + 4, ip + out->window, &r)) {
			*why = "no page for the trampoline within reach of "
			       "the point's code";
			goto out;
		}
		put32(&e, r);
	}
	if (e.full) {
		*why = "the trampoline does not fit its page";
		goto out;
	}
	out->len = e.len;
	/* the patch: a jump to the trampoline's entry, int3 after it (the
	 * rest of the last instruction it covers) */
	memset(out->patch, 0xcc, sizeof(out->patch));
	out->patch[0] = 0xe9;
	if (!rel32(ip + 5, tramp + SLOTS_LEN, &r)) {
		*why = "no page for the trampoline within reach of the "
		       "point's code";
		goto out;
	}
	memcpy(out->patch + 1, &r, 4);
	ret = 0;
out:
	if (in)
		cs_free(in, 1);
	cs_close(&h);
	return ret;
}

/* Whether the relative jump or call in that leads into (ip, ip + window)
 * (target set), for fastsearch_jumps_into. */
static bool lands_inside(const cs_insn *in, uint64_t ip, unsigned window)
{
	const cs_x86 *x = &in->detail->x86;
	uint64_t target;

	if (!(in_group(in, CS_GRP_JUMP) || in_group(in, CS_GRP_CALL)) ||
	    x->op_count != 1 || x->operands[0].type != X86_OP_IMM)
		return false;
	target = (uint64_t)x->operands[0].imm;
	return target > ip && target < ip + window;
}

bool fastsearch_jumps_into(const uint8_t *code, size_t n, uint64_t base,
			   uint64_t ip, unsigned window)
{
	bool found = false;
	cs_insn *in;
	csh h;

	if (ip < base || ip + window > base + n ||
	    cs_open(CS_ARCH_X86, CS_MODE_64, &h) != CS_ERR_OK)
		return true; /* cannot tell: as if one did */
	cs_option(h, CS_OPT_DETAIL, CS_OPT_ON);
	in = cs_malloc(h);
	if (!in) {
		cs_close(&h);
		return true;
	}
	/* after the window: the loops whose head the patch would cover
	 * jump back from there (decoding goes on past bytes that do not
	 * decode, one at a time) */
	for (uint64_t at = ip + window; at < base + n && !found;) {
		const uint8_t *p = code + (at - base);
		size_t left = base + n - at;
		uint64_t addr = at;

		if (!cs_disasm_iter(h, &p, &left, &addr, in)) {
			at++;
			continue;
		}
		found = lands_inside(in, ip, window);
		at = addr;
	}
	/* before ip: the first start within 64 bytes of the buffer's
	 * start whose decoding falls in step with ip (x86 decoding finds
	 * its step again after a few instructions) */
	for (uint64_t s = base; s < base + 64 && s < ip && !found; s++) {
		const uint8_t *p = code + (s - base);
		size_t left = ip - s;
		uint64_t addr = s;
		bool hit = false;

		while (addr < ip && cs_disasm_iter(h, &p, &left, &addr, in))
			hit = hit || lands_inside(in, ip, window);
		if (addr == ip) {
			found = hit;
			break;
		}
	}
	cs_free(in, 1);
	cs_close(&h);
	return found;
}

/* A page within reach of ip (a rel32 from it, with room for what the
 * copied code addresses) in a gap of the address space, away from its
 * neighbours (a stack below them may grow), nearest to ip; 0 when none. */
static uint64_t free_page_near(const struct proc_vma *v, long nv, uint64_t ip)
{
	const uint64_t reach = (1ull << 31) - (64ull << 20);
	const uint64_t margin = 16ull << 20;
	uint64_t lo = ip > reach ? ip - reach : 0;
	uint64_t hi = ip + reach;
	uint64_t best = 0, best_d = UINT64_MAX;

	if (lo < (256ull << 20))
		lo = 256ull << 20;
	if (hi > USER_TOP)
		hi = USER_TOP;
	for (long i = 0; i <= nv; i++) {
		uint64_t g0 = i ? v[i - 1].end : 0;
		uint64_t g1 = i < nv ? v[i].start : hi;
		uint64_t a, b, c, d;

		if (g1 <= g0 || g1 - g0 < 2 * margin + 2 * PAGE)
			continue;
		a = g0 + margin > lo ? g0 + margin : lo;
		b = g1 - margin - 2 * PAGE < hi ? g1 - margin - 2 * PAGE : hi;
		if (a >= b)
			continue;
		c = ip < a ? a : ip > b ? b : ip;
		c = (c + PAGE - 1) & ~(PAGE - 1);
		if (c > b)
			c = b & ~(PAGE - 1);
		if (c < a)
			continue;
		d = c > ip ? c - ip : ip - c;
		if (d < best_d) {
			best = c;
			best_d = d;
		}
	}
	return best;
}

/* Reads the code around the window at ip (within its mapping [lo, hi))
 * and looks for jumps into it: a jump there would run the patch's
 * displacement as code. True also when it cannot be read. */
static bool jumps_near(struct tracee *t, uint64_t ip, unsigned window,
		       uint64_t lo, uint64_t hi)
{
	static uint8_t
		buf[JUMP_SCAN_BEFORE + FASTSEARCH_MAX_WINDOW + JUMP_SCAN_AFTER];
	uint64_t base = ip - lo > JUMP_SCAN_BEFORE ? ip - JUMP_SCAN_BEFORE : lo;
	uint64_t end = ip + window + JUMP_SCAN_AFTER;
	ssize_t n;

	if (end > hi)
		end = hi;
	n = tracee_read(t, base, buf, end - base);
	return n < (ssize_t)(ip + window - base) ||
	       fastsearch_jumps_into(buf, (size_t)n, base, ip, window);
}

int fastsearch_begin(struct fastsearch *f, struct tracee *t, uint64_t ip,
		     const uint64_t *regs, uint64_t mask, const char **why)
{
	uint8_t code[FASTSEARCH_MAX_WINDOW + 16];
	struct proc_vma *v = NULL;
	uint64_t args[6] = {0};
	int64_t got = -1;
	ssize_t n;
	long nv;
	bool ok = false;
	unsigned a, b, c, d;
	uint64_t vma_lo = 0, vma_hi = 0;

	memset(f, 0, sizeof(*f));
	f->ip = ip;
	/* lahf and sahf keep the flags: 64-bit mode has them where CPUID
	 * says so (all but the first x86-64 processors) */
	if (!__get_cpuid(0x80000001, &a, &b, &c, &d) || !(c & 1)) {
		*why = "the processor has no lahf/sahf in 64-bit mode";
		return -1;
	}
	*why = "the task's memory map cannot be read";
	nv = proc_read_vmas(t->tid, false, &v);
	if (nv < 0)
		return -1;
	for (long i = 0; i < nv; i++)
		if (ip >= v[i].start && ip < v[i].end) {
			/* a shared mapping's code is other processes' too */
			ok = !v[i].shared && (v[i].prot & PROT_EXEC) &&
			     ip + FASTSEARCH_MAX_WINDOW <= v[i].end;
			vma_lo = v[i].start;
			vma_hi = v[i].end;
			break;
		}
	f->page = ok ? free_page_near(v, nv, ip) : 0;
	free(v);
	if (!ok) {
		*why = "the point's code is in a shared mapping or near its "
		       "end";
		return -1;
	}
	if (!f->page) {
		*why = "no free page within reach of the point's code";
		return -1;
	}
	n = tracee_read(t, ip, code, sizeof(code));
	if (n < FASTSEARCH_MAX_WINDOW) {
		*why = "the point's code cannot be read";
		return -1;
	}
	if (fastsearch_build(code, (size_t)n, ip, f->page, regs, mask, &f->code,
			     why) < 0)
		return -1;
	memcpy(f->orig, code, f->code.window);
	if (jumps_near(t, ip, f->code.window, vma_lo, vma_hi)) {
		*why = "a jump nearby leads into the bytes the patch covers";
		return -1;
	}
	args[0] = f->page;
	args[1] = 2 * PAGE;
	args[2] = PROT_READ | PROT_WRITE;
	args[3] = MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE;
	args[4] = (uint64_t)-1;
	if (tracee_inject_syscall(t, 1, SYS_mmap, args, &got) < 0 ||
	    (uint64_t)got != f->page) {
		if (got >= 0 && (uint64_t)got != f->page) {
			/* an old kernel took the address as a hint */
			args[0] = (uint64_t)got;
			if (tracee_inject_syscall(t, 1, SYS_munmap, args,
						  &got) < 0)
				mrr_debug("pid %d: a page left mapped", t->tid);
		}
		*why = "the trampoline's pages cannot be mapped";
		f->page = 0;
		return -1;
	}
	/* the code page becomes read-only and executable: the data page
	 * stays writable, the only memory the trampoline writes */
	mem_digest_set_own_range(f->page, f->page + 2 * PAGE);
	args[1] = PAGE;
	args[2] = PROT_READ | PROT_EXEC;
	if (tracee_write_all(t, f->page, f->code.bytes, f->code.len) < 0 ||
	    tracee_inject_syscall(t, 1, SYS_mprotect, args, &got) < 0 ||
	    got != 0 ||
	    tracee_write_all(t, ip, f->code.patch, f->code.window) < 0) {
		*why = "the trampoline cannot be written";
		fastsearch_end(f, t);
		return -1;
	}
	return 0;
}

int fastsearch_stop(const struct fastsearch *f, struct user_regs_struct *regs)
{
	uint64_t at = regs->rip - 1; /* the int3 that trapped */

	if (at != f->page + f->code.hit - 1)
		return 0;
	regs->rip = f->ip;
	return 1;
}

uint64_t fastsearch_resume_at(const struct fastsearch *f)
{
	return f->page + f->code.resume;
}

void fastsearch_end(struct fastsearch *f, struct tracee *t)
{
	uint64_t args[6] = {f->page, 2 * PAGE};
	int64_t got = -1;

	if (!f->page)
		return;
	mem_digest_set_own_range(0, 0);
	if (tracee_write_all(t, f->ip, f->orig, f->code.window) < 0)
		mrr_debug("pid %d: the code at 0x%llx not put back", t->tid,
			  (unsigned long long)f->ip);
	if (tracee_inject_syscall(t, 1, SYS_munmap, args, &got) < 0 || got != 0)
		mrr_debug("pid %d: the trampoline's page not unmapped", t->tid);
	f->page = 0;
}
