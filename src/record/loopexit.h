/* Loop exits: instructions that run once each time a loop ends, found by
 * disassembling the code around a point in a hot loop. Preemption
 * (preempt.c) counts executions of a loop exit instead of an instruction in
 * the loop's body: one debug exception per run of the loop, not one per
 * iteration.
 *
 * A loop is recognised by a conditional branch backwards over the address
 * (the loop's bottom test): its fall-through is the loop's exit. Exits are
 * searched in the function that holds the point, then around the calls on
 * the stack (return addresses, retaddr.h), innermost first.
 *
 * Only exits of loops that end by themselves are given: loops whose bottom
 * test reads a register that the body steps (a counter, a pointer moving
 * through an array or a list: changed by arithmetic on its own value or
 * loaded from where it points, never replaced by a value loaded from
 * elsewhere in memory, as a flag is), or a counter the function keeps on
 * its stack (a slot at a fixed offset from rsp or rbp that the body only
 * adds constants to). A loop whose head (the code every turn runs first)
 * leaves it on such a test ends by itself too, when its body reads no
 * flag (loopexit.c): its exit is that branch's target. A loop that tests a
 * flag in memory may end only when a signal handler sets it: waiting for
 * its exit before delivering that signal would never end. */
#ifndef MRR_RECORD_LOOPEXIT_H
#define MRR_RECORD_LOOPEXIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct rtask;

/* Exits a search returns at most. */
#define LOOPEXIT_MAX 8

struct loop_exit {
	uint64_t addr; /* the exit: the instruction after the bottom test */
	uint64_t lo;   /* the loop's first instruction (the branch target) */
};

/* Why a search stopped (*blocked): at a loop around the address that may
 * not end by itself (a test that reads no stepped register: the loops
 * around it may wait for it), or at code it cannot follow (an indirect
 * jump: a tail call, a switch; unreadable code). */
#define LOOPEXIT_LOOP	 1
#define LOOPEXIT_UNKNOWN 2

/* The exits of the loops around enclose in code[0..len) (located at
 * base), innermost first, at most max: conditional branches from the
 * instruction at addr up to the function's end (a ret) whose target is at
 * or before enclose, and that end by themselves (above). Unconditional
 * jumps are followed (a block placed after the function's ret jumps back
 * into the body of the loop it belongs to; from there on, that target
 * is what a loop must enclose); one met twice is a loop that ends only
 * from its middle, if at all. A loop that ends
 * only through a branch out of the middle of its body stops the search
 * as one that may not end does. Sets *blocked (above) when the search
 * stopped early. With any, the exit of every conditional jump back around
 * enclose is given, and no loop stops the search. Returns how many. */
int loop_exits_in(const uint8_t *code, size_t len, uint64_t base, uint64_t addr,
		  uint64_t enclose, struct loop_exit *out, int max,
		  int *blocked, bool any);

/* The exits of the loops around a task stopped at rip (its stack at rsp):
 * in rip's function, then around the calls of the return addresses on the
 * stack, innermost first, at most max, without duplicates. *why (if not
 * NULL) gets what stopped the search (LOOPEXIT_*, or 0). Returns how
 * many. */
int rec_loop_exits(struct rtask *t, uint64_t rip, uint64_t rsp,
		   struct loop_exit *out, int max, int *why);

/* Whether a task stopped at rip (its stack at rsp) runs inside the loop
 * whose exit is exit (in its body, or in a function called from there),
 * whether or not the loops in between end by themselves. */
bool rec_in_loop_of(struct rtask *t, uint64_t rip, uint64_t rsp, uint64_t exit);

/* The general-purpose register (0-15, in the order of the x86 encoding:
 * rax rcx rdx rbx rsp rbp rsi rdi r8..r15) a capstone register is part
 * of, or -1. */
int loopexit_gpr(unsigned reg);

struct cs_insn;

/* True for the conditional jumps a loop's bottom test uses (jcc: not loop,
 * jcxz or jmp). IN must have been disassembled with details on. */
bool loopexit_is_cond_jump(const struct cs_insn *in);

#endif
