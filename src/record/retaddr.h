/* Return addresses on a stopped task's stack, found without unwind tables:
 * words above rsp that point into executable program code just after a
 * call instruction. Preemption (preempt.c) counts executions of such an
 * address (once per call of the function it returns from) instead of an
 * instruction of the task's hottest loop (once per iteration). A word may
 * be a stale one left in a frame's locals: the caller measures how often
 * each candidate runs before it relies on one. */
#ifndef MRR_RECORD_RETADDR_H
#define MRR_RECORD_RETADDR_H

#include <stdint.h>

struct rtask;

/* Bytes above rsp the scan reads at most. */
#define RETADDR_SCAN_BYTES 4096u

/* Writes up to max return addresses found in the RETADDR_SCAN_BYTES above
 * rsp into out, innermost first, without duplicates; addresses in mrr's
 * page, in the syscall buffer library or in skip[0..nskip) are left out.
 * Returns how many, 0 when the stack or the mappings cannot be read. */
int rec_return_addresses(struct rtask *t, uint64_t rsp, const uint64_t *skip,
			 int nskip, uint64_t *out, int max);

#endif
