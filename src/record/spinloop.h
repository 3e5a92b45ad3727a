/* Spin loops: the loop a thread waits in for another thread's store, read
 * from its code when the spin probe (spin.c) saw the thread's state come
 * back at an instruction. Two things are taken from it:
 *
 *  - the loop's first instruction (the target of its jump back), which
 *    runs only once the loop's test has failed: a thread of the process
 *    that reaches it while another waits for the slot cannot go on before
 *    that one runs, so it is stopped there at once (a gate, spin.c);
 *  - the memory its body stores to at fixed addresses (a counter of turns
 *    incremented in place, as LTP's fuzzy sync counts its spins): the turns
 *    of such a loop differ only there, so a point in it carries those bytes
 *    (trace-format/FORMAT.md 7.9), and the replay, at the first turn whose
 *    registers and stack match, writes them and checks the memory digest,
 *    rather than search millions of turns for the recorded count.
 *
 * The body (from the first instruction to the jump back) must be straight
 * code without calls, syscalls, returns, indirect jumps or string
 * instructions; a store whose address depends on a register the body
 * changes makes the stores unknown (nstores -1), the loop still a gate. */
#ifndef MRR_RECORD_SPINLOOP_H
#define MRR_RECORD_SPINLOOP_H

#include <stddef.h>
#include <stdint.h>
#include <sys/user.h>

struct rtask;

#define SPINLOOP_MAX_STORES 8
/* Bytes after the point the jump back may be at. */
#define SPINLOOP_AHEAD 512u
/* Bytes before the point the loop may start at. */
#define SPINLOOP_BACK 512u

struct spin_store {
	uint64_t addr;
	uint32_t len;
};

struct spin_loop {
	uint64_t lo;   /* first instruction: the jump back's target */
	uint64_t back; /* the jump back */
	int nstores;   /* -1: the body stores where mrr cannot tell */
	struct spin_store store[SPINLOOP_MAX_STORES];
};

/* The loop around regs->rip in code[0..len) (located at base): 0, or
 * -ENOENT (no jump back over rip within SPINLOOP_AHEAD bytes), -EINVAL (its
 * body is not a spin loop's, above). */
int spin_loop_in(const uint8_t *code, size_t len, uint64_t base,
		 const struct user_regs_struct *regs, struct spin_loop *out);

/* The same, reading t's code around regs->rip. */
int rec_spin_loop(struct rtask *t, const struct user_regs_struct *regs,
		  struct spin_loop *out);

#endif
