/* Loop exits (loopexit.h). */
#include "record/loopexit.h"

#include "core/tracee.h"
#include "record/retaddr.h"
#include "record/rtask.h"

#include <capstone/capstone.h>
#include <stdbool.h>
#include <string.h>

/* Bytes of code read before and after an address: a loop's body starts at
 * most LOOKBACK bytes before the address, its bottom test at most AHEAD
 * bytes after. */
#define LOOKBACK 4096u
#define AHEAD	 2048u
/* Instructions of a loop body the analysis looks at. */
#define MAX_BODY 1024
/* Return addresses whose calls' loops are looked at. */
#define MAX_CALLERS 4

int loopexit_gpr(unsigned reg)
{
	static const unsigned regs[][5] = {
		{X86_REG_RAX, X86_REG_EAX, X86_REG_AX, X86_REG_AL, X86_REG_AH},
		{X86_REG_RCX, X86_REG_ECX, X86_REG_CX, X86_REG_CL, X86_REG_CH},
		{X86_REG_RDX, X86_REG_EDX, X86_REG_DX, X86_REG_DL, X86_REG_DH},
		{X86_REG_RBX, X86_REG_EBX, X86_REG_BX, X86_REG_BL, X86_REG_BH},
		{X86_REG_RSP, X86_REG_ESP, X86_REG_SP, X86_REG_SPL, 0},
		{X86_REG_RBP, X86_REG_EBP, X86_REG_BP, X86_REG_BPL, 0},
		{X86_REG_RSI, X86_REG_ESI, X86_REG_SI, X86_REG_SIL, 0},
		{X86_REG_RDI, X86_REG_EDI, X86_REG_DI, X86_REG_DIL, 0},
		{X86_REG_R8, X86_REG_R8D, X86_REG_R8W, X86_REG_R8B, 0},
		{X86_REG_R9, X86_REG_R9D, X86_REG_R9W, X86_REG_R9B, 0},
		{X86_REG_R10, X86_REG_R10D, X86_REG_R10W, X86_REG_R10B, 0},
		{X86_REG_R11, X86_REG_R11D, X86_REG_R11W, X86_REG_R11B, 0},
		{X86_REG_R12, X86_REG_R12D, X86_REG_R12W, X86_REG_R12B, 0},
		{X86_REG_R13, X86_REG_R13D, X86_REG_R13W, X86_REG_R13B, 0},
		{X86_REG_R14, X86_REG_R14D, X86_REG_R14W, X86_REG_R14B, 0},
		{X86_REG_R15, X86_REG_R15D, X86_REG_R15W, X86_REG_R15B, 0},
	};

	if (reg == X86_REG_INVALID)
		return -1;
	for (int i = 0; i < 16; i++)
		for (int k = 0; k < 5; k++)
			if (regs[i][k] == reg)
				return i;
	return -1;
}

/* What one instruction of a loop body does to the registers: gprs it
 * writes, those it replaces with a value loaded from memory (a register
 * that is also an operand read, as in add mem,reg, or that addresses the
 * load, as in mov (reg),reg, is stepped, not replaced), whether it sets
 * the flags and its register operands. */
struct effect {
	uint16_t writes, loaded, tested;
	bool sets_flags;
	/* A local variable the instruction touches: a memory operand at a
	 * fixed offset from rsp or rbp (slot_base: that gpr, or -1), and
	 * how: stepped (add, sub, inc or dec of a constant: a counter kept
	 * on the stack), stored to otherwise, or only read (a compare). */
	int slot_base;
	int64_t slot_disp;
	enum { SLOT_READ, SLOT_STEP, SLOT_STORE } slot_use;
	/* It reads memory that is not a stack slot: reads, and the gprs
	 * that address it (none: a fixed address, as a global flag's) */
	bool reads;
	uint16_t read_regs;
};

#define GPR_RSP 4
#define GPR_RBP 5

/* Notes in e the stack slot op names, if it is one (struct effect). */
static void note_slot(const cs_insn *in, const cs_x86_op *op, struct effect *e)
{
	const cs_x86 *x = &in->detail->x86;
	int b = loopexit_gpr(op->mem.base);
	bool by_constant = false;

	if ((b != GPR_RSP && b != GPR_RBP) ||
	    op->mem.index != X86_REG_INVALID ||
	    op->mem.segment != X86_REG_INVALID)
		return;
	e->slot_base = b;
	e->slot_disp = op->mem.disp;
	if (!(op->access & CS_AC_WRITE)) {
		e->slot_use = SLOT_READ;
		return;
	}
	for (int i = 0; i < x->op_count; i++)
		if (x->operands[i].type == X86_OP_IMM)
			by_constant = true;
	if (in->id == X86_INS_INC || in->id == X86_INS_DEC ||
	    ((in->id == X86_INS_ADD || in->id == X86_INS_SUB) && by_constant))
		e->slot_use = SLOT_STEP;
	else
		e->slot_use = SLOT_STORE;
}

/* Registers a call may change (the caller-saved ones), to values that may
 * come from memory. */
#define CALL_CLOBBERS                                                          \
	(1u << 0 | 1u << 1 | 1u << 2 | 1u << 6 | 1u << 7 | 1u << 8 | 1u << 9 | \
	 1u << 10 | 1u << 11)

static void effect_of(csh h, const cs_insn *in, struct effect *e)
{
	cs_regs rd, wr;
	uint8_t nrd = 0, nwr = 0;
	const cs_x86 *x = &in->detail->x86;
	uint16_t stepped = 0;
	bool from_memory = false;

	memset(e, 0, sizeof(*e));
	e->slot_base = -1;
	if (in->id == X86_INS_CALL) {
		e->writes = e->loaded = CALL_CLOBBERS;
		e->sets_flags = true;
		return;
	}
	if (cs_regs_access(h, in, rd, &nrd, wr, &nwr) == CS_ERR_OK) {
		for (int i = 0; i < nwr; i++) {
			int g = loopexit_gpr(wr[i]);

			if (g >= 0)
				e->writes |= (uint16_t)(1u << g);
			if (wr[i] == X86_REG_EFLAGS)
				e->sets_flags = true;
		}
	}
	for (int i = 0; i < x->op_count; i++) {
		const cs_x86_op *op = &x->operands[i];

		if (op->type == X86_OP_REG) {
			int g = loopexit_gpr(op->reg);

			if (g >= 0) {
				e->tested |= (uint16_t)(1u << g);
				if (op->access & CS_AC_READ)
					stepped |= (uint16_t)(1u << g);
			}
		} else if (op->type == X86_OP_MEM && in->id != X86_INS_LEA &&
			   (op->access & CS_AC_WRITE) &&
			   !(op->access & CS_AC_READ)) {
			note_slot(in, op, e);
		} else if (op->type == X86_OP_MEM && in->id != X86_INS_LEA &&
			   (op->access & CS_AC_READ)) {
			note_slot(in, op, e);
			int b = loopexit_gpr(op->mem.base),
			    x2 = loopexit_gpr(op->mem.index);

			from_memory = true; /* lea reads no memory */
			/* a load through the register itself steps it (the
			 * next node of a list) */
			if (b >= 0)
				stepped |= (uint16_t)(1u << b);
			if (x2 >= 0)
				stepped |= (uint16_t)(1u << x2);
			if (e->slot_base < 0) {
				e->reads = true;
				if (b >= 0)
					e->read_regs |= (uint16_t)(1u << b);
				if (x2 >= 0)
					e->read_regs |= (uint16_t)(1u << x2);
			}
		}
	}
	if (in->id == X86_INS_POP || in->id == X86_INS_XCHG ||
	    in->id == X86_INS_CMPXCHG || in->id == X86_INS_XADD)
		from_memory = true;
	if (from_memory)
		e->loaded = e->writes & (uint16_t)~stepped;
	if (in->id == X86_INS_XCHG || in->id == X86_INS_CMPXCHG)
		e->loaded = e->writes;
}

bool loopexit_is_cond_jump(const cs_insn *in)
{
	switch (in->id) {
	case X86_INS_JAE:
	case X86_INS_JA:
	case X86_INS_JBE:
	case X86_INS_JB:
	case X86_INS_JE:
	case X86_INS_JGE:
	case X86_INS_JG:
	case X86_INS_JLE:
	case X86_INS_JL:
	case X86_INS_JNE:
	case X86_INS_JNO:
	case X86_INS_JNP:
	case X86_INS_JNS:
	case X86_INS_JO:
	case X86_INS_JP:
	case X86_INS_JS:
		return true;
	default:
		return false;
	}
}

static bool ends_code(const cs_insn *in)
{
	return in->id == X86_INS_RET || in->id == X86_INS_INT3 ||
	       in->id == X86_INS_HLT || in->id == X86_INS_UD2;
}

/* How the loop [lo, branch] (branch: its jump back) ends: LOOP_COUNTED
 * when its bottom test (a conditional jump back: the last flag setter
 * before it) reads a register that the body steps, or a stack slot it
 * steps (struct slots) (loopexit.h), so that its fall-through is an exit;
 * also when its head tests one (below), and then the exit is where that
 * test jumps to; LOOP_ENDS when only another branch out of the middle of
 * the body tests one (it ends by itself, but not through the
 * fall-through); LOOP_UNKNOWN otherwise.
 *
 * The head is the code from lo on that every turn runs: up to the first
 * branch that stays in the loop, before any address a branch of the body
 * jumps to. A branch out of it whose test reads a stepped register or
 * slot ends the loop in a bounded number of turns, as a bottom test does
 * (a do-while whose condition `continue` jumps to, with two exits:
 * zlib's longest_match walks a hash chain so, `while ((cur =
 * prev[cur & mask]) > limit && --chain != 0)`). Its bound may still be
 * far while the loop waits for a flag (`do { if (--n == 0) break; }
 * while (!flag)`): so it counts only when the body reads no memory into
 * a general register or the flags but stack slots and addresses that a
 * stepped register locates (the chain's nodes, not a flag). Calls are allowed,
 * as in a counted loop (stress-ng fills its buffers so, a call to its random
 * generator per byte): a signal waits for an exit that does not come 1 s at
 * most (preempt_int.h, EXIT_WAIT_NS). */
enum { LOOP_UNKNOWN, LOOP_ENDS, LOOP_COUNTED };

/* The stack slots a loop body touches (struct effect), at most
 * MAX_SLOTS: a slot serves as a counter when the body steps it and never
 * stores anything else to it, and the register that locates it keeps its
 * value through the body (calls leave rsp as they found it). */
#define MAX_SLOTS 8

struct slots {
	struct {
		int base;
		int64_t disp;
		bool stepped, stored;
	} s[MAX_SLOTS];
	int n;
	bool overflow;
};

static int slot_index(struct slots *sl, int base, int64_t disp)
{
	for (int i = 0; i < sl->n; i++)
		if (sl->s[i].base == base && sl->s[i].disp == disp)
			return i;
	if (sl->n == MAX_SLOTS) {
		sl->overflow = true;
		return -1;
	}
	sl->s[sl->n].base = base;
	sl->s[sl->n].disp = disp;
	sl->s[sl->n].stepped = sl->s[sl->n].stored = false;
	return sl->n++;
}

static void slot_note(struct slots *sl, const struct effect *e)
{
	int i;

	if (e->slot_base < 0 || e->slot_use == SLOT_READ)
		return;
	i = slot_index(sl, e->slot_base, e->slot_disp);
	if (i < 0)
		return;
	if (e->slot_use == SLOT_STEP)
		sl->s[i].stepped = true;
	else
		sl->s[i].stored = true;
}

/* Whether the slot a bottom test read (tbase/tdisp) counts (above). */
static bool slot_counts(struct slots *sl, int tbase, int64_t tdisp,
			uint16_t written)
{
	int i;

	if (tbase < 0 || sl->overflow || (written & (1u << tbase)))
		return false;
	i = slot_index(sl, tbase, tdisp);
	return i >= 0 && sl->s[i].stepped && !sl->s[i].stored;
}

/* Branches out of a loop's head (loop_kind) it looks at, at most. */
#define MAX_HEAD_EXITS 4

static int loop_kind(csh h, cs_insn *in, const uint8_t *code, size_t len,
		     uint64_t base, uint64_t lo, uint64_t branch,
		     uint64_t *head_exit)
{
	uint16_t written = 0, loaded = 0, tested = 0, out_tested = 0, steps;
	uint16_t read_regs[MAX_BODY];
	struct {
		uint64_t at, target;
		uint16_t tested;
		int tbase;
		int64_t tdisp;
	} hx[MAX_HEAD_EXITS];
	int nhx = 0, nreads = 0;
	uint64_t join = UINT64_MAX; /* the lowest target of a branch inside */
	bool head = true, polls = false;
	struct slots slots = {.n = 0};
	int tbase = -1;
	int64_t tdisp = 0;
	const uint8_t *p;
	uint64_t at = lo;
	size_t left;
	int n = 0;

	*head_exit = 0;
	if (lo < base || branch >= base + len)
		return LOOP_UNKNOWN;
	p = code + (lo - base);
	left = len - (size_t)(lo - base);
	while (at < branch) {
		const cs_x86 *x = &in->detail->x86;
		struct effect e;
		uint64_t target;
		bool out;

		if (n++ >= MAX_BODY || !cs_disasm_iter(h, &p, &left, &at, in))
			return LOOP_UNKNOWN;
		effect_of(h, in, &e);
		written |= e.writes;
		loaded |= e.loaded;
		slot_note(&slots, &e);
		/* a read into vector registers alone (a constant a float
		 * loop multiplies by) feeds no branch: it polls nothing */
		if (e.reads && (e.writes || e.sets_flags))
			read_regs[nreads++] = e.read_regs;
		if (e.sets_flags) {
			tested = e.tested;
			tbase = e.slot_base;
			tdisp = e.slot_disp;
		}
		if ((in->id != X86_INS_JMP && !loopexit_is_cond_jump(in)) ||
		    x->op_count != 1 || x->operands[0].type != X86_OP_IMM) {
			if (in->id == X86_INS_JMP)
				head = false; /* indirect */
			continue;
		}
		target = (uint64_t)x->operands[0].imm;
		out = target < lo || target > branch;
		if (!out && target > lo && target < join)
			join = target;
		if (head && out && loopexit_is_cond_jump(in) &&
		    nhx < MAX_HEAD_EXITS) {
			hx[nhx].at = in->address;
			hx[nhx].target = target;
			hx[nhx].tested = tested;
			hx[nhx].tbase = tbase;
			hx[nhx].tdisp = tdisp;
			nhx++;
		}
		if (!out || in->id == X86_INS_JMP)
			head = false;
		if (loopexit_is_cond_jump(in) && out)
			out_tested |= tested; /* a way out of the loop */
	}
	if (at != branch)
		return LOOP_UNKNOWN; /* the body did not decode up to it */
	steps = written & (uint16_t)~loaded;
	if (tested & steps)
		return LOOP_COUNTED;
	if (slot_counts(&slots, tbase, tdisp, written))
		return LOOP_COUNTED;
	for (int i = 0; i < nreads; i++)
		if (!(read_regs[i] & steps))
			polls = true; /* a read that may poll a flag */
	for (int i = 0; i < nhx && !polls; i++) {
		if (hx[i].at >= join)
			break; /* a turn may skip it */
		if ((hx[i].tested & steps) ||
		    slot_counts(&slots, hx[i].tbase, hx[i].tdisp, written)) {
			*head_exit = hx[i].target;
			return LOOP_COUNTED;
		}
	}
	return out_tested & steps ? LOOP_ENDS : LOOP_UNKNOWN;
}

/* Unconditional jumps a search follows at most. */
#define MAX_FOLLOW 8

static bool jumped(const uint64_t *jumps, int n, uint64_t at)
{
	for (int i = 0; i < n; i++)
		if (jumps[i] == at)
			return true;
	return false;
}

int loop_exits_in(const uint8_t *code, size_t len, uint64_t base, uint64_t addr,
		  uint64_t enclose, struct loop_exit *out, int max,
		  int *blocked, bool any)
{
	uint64_t jumps[MAX_FOLLOW];
	int followed = 0;
	const uint8_t *p;
	uint64_t at = addr;
	size_t left;
	cs_insn *in;
	csh h;
	int n = 0;

	if (max <= 0 || addr < base || addr >= base + len ||
	    cs_open(CS_ARCH_X86, CS_MODE_64, &h) != CS_ERR_OK)
		return 0;
	cs_option(h, CS_OPT_DETAIL, CS_OPT_ON);
	in = cs_malloc(h);
	p = code + (addr - base);
	left = len - (size_t)(addr - base);
	while (in && n < max && cs_disasm_iter(h, &p, &left, &at, in)) {
		const cs_x86 *x = &in->detail->x86;
		uint64_t target, branch = in->address, exit = at, head_exit;
		const uint8_t *sp = p;
		size_t sleft = left;
		uint64_t sat = at;
		int kind;

		if (ends_code(in))
			break;
		if (in->id == X86_INS_JMP && x->op_count == 1 &&
		    x->operands[0].type == X86_OP_IMM) {
			/* the code goes on at the target: a block the compiler
			 * put out of line jumps back into its loop's body,
			 * which encloses addr from there on; a jump met again
			 * is a loop that only a branch out of its middle ends
			 * (a test at its top, or none) */
			target = (uint64_t)x->operands[0].imm;
			if (followed == MAX_FOLLOW ||
			    jumped(jumps, followed, branch)) {
				*blocked = LOOPEXIT_LOOP;
				break;
			}
			if (target < base || target >= base + len) {
				*blocked = LOOPEXIT_UNKNOWN;
				break;
			}
			jumps[followed++] = branch;
			if (target < enclose)
				enclose = target;
			p = code + (target - base);
			left = len - (size_t)(target - base);
			at = target;
			continue;
		}
		if (in->id == X86_INS_JMP && x->op_count == 1 &&
		    x->operands[0].type != X86_OP_IMM) {
			/* an indirect jump (a tail call, a switch): where the
			 * code goes on is unknown */
			*blocked = LOOPEXIT_UNKNOWN;
			break;
		}
		if (!loopexit_is_cond_jump(in) || x->op_count != 1 ||
		    x->operands[0].type != X86_OP_IMM)
			continue;
		target = (uint64_t)x->operands[0].imm;
		if (target > enclose || enclose - target > LOOKBACK)
			continue;
		kind = loop_kind(h, in, code, len, base, target, branch,
				 &head_exit);
		p = sp; /* loop_kind used the decoder's buffer */
		left = sleft;
		at = sat;
		if (any) {
			out[n].addr = exit;
			out[n].lo = target;
			n++;
			if (head_exit && n < max) {
				out[n].addr = head_exit;
				out[n].lo = target;
				n++;
			}
			continue;
		}
		if (kind != LOOP_COUNTED) {
			/* a loop around addr that may not end by itself (a
			 * test of memory, a flag), or that ends through a
			 * counter tested in the middle of its body, whose
			 * bound may be far (a loop to 2^60 that polls a flag
			 * at its bottom; loop_kind): the loops around it may
			 * wait for it */
			*blocked = LOOPEXIT_LOOP;
			break;
		}
		out[n].addr = head_exit ? head_exit : exit;
		out[n].lo = target;
		n++;
	}
	if (in)
		cs_free(in, 1);
	cs_close(&h);
	return n;
}

/* Adds the exits of the loops around addr (read from t) to out[*n..max). */
static void add_exits(struct rtask *t, uint64_t addr, uint64_t enclose,
		      struct loop_exit *out, int *n, int max, int *blocked,
		      bool any)
{
	uint8_t code[LOOKBACK + AHEAD];
	struct loop_exit found[LOOPEXIT_MAX];
	uint64_t base = addr > LOOKBACK ? addr - LOOKBACK : 0;
	size_t len = 0;
	ssize_t got;
	int k;

	/* the page before addr may be unmapped: read what can be read */
	for (uint64_t b = base; b <= addr; b = (b | 0xfff) + 1) {
		got = tracee_read(&t->t, b, code, (size_t)(addr + AHEAD - b));
		if (got > 0 && b + (uint64_t)got > addr) {
			base = b;
			len = (size_t)got;
			break;
		}
	}
	if (!len) {
		*blocked = LOOPEXIT_UNKNOWN;
		return;
	}
	if (enclose < base) {
		*blocked = LOOPEXIT_UNKNOWN;
		return;
	}
	k = loop_exits_in(code, len, base, addr, enclose, found, LOOPEXIT_MAX,
			  blocked, any);
	for (int i = 0; i < k && *n < max; i++) {
		bool dup = false;

		for (int j = 0; j < *n; j++)
			dup |= out[j].addr == found[i].addr;
		if (!dup)
			out[(*n)++] = found[i];
	}
}

int rec_loop_exits(struct rtask *t, uint64_t rip, uint64_t rsp,
		   struct loop_exit *out, int max, int *why)
{
	uint64_t ret[MAX_CALLERS];
	int blocked = 0;
	int n = 0, nret;

	add_exits(t, rip, rip, out, &n, max, &blocked, false);
	if (!blocked) {
		nret = rec_return_addresses(t, rsp, NULL, 0, ret, MAX_CALLERS);
		/* around a call: the loop holds the call instruction, before
		 * the return address */
		for (int i = 0; i < nret && n < max && !blocked; i++)
			add_exits(t, ret[i], ret[i] - 1, out, &n, max, &blocked,
				  false);
	}
	if (why)
		*why = blocked;
	return n;
}

bool rec_in_loop_of(struct rtask *t, uint64_t rip, uint64_t rsp, uint64_t exit)
{
	struct loop_exit ex[LOOPEXIT_MAX];
	uint64_t ret[MAX_CALLERS];
	int blocked = 0, n = 0, nret;

	add_exits(t, rip, rip, ex, &n, LOOPEXIT_MAX, &blocked, true);
	nret = rec_return_addresses(t, rsp, NULL, 0, ret, MAX_CALLERS);
	for (int i = 0; i < nret; i++) {
		blocked = 0;
		add_exits(t, ret[i], ret[i] - 1, ex, &n, LOOPEXIT_MAX, &blocked,
			  true);
	}
	for (int i = 0; i < n; i++)
		if (ex[i].addr == exit)
			return true;
	return false;
}
