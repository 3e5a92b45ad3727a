/* A point in a task's user code, as MRR_EV_PREEMPT records it
 * (trace-format/FORMAT.md 7.9): all registers and a hash of the stack
 * around rsp. The recorder and the replayer compute it the same way. */
#ifndef MRR_CORE_POINT_H
#define MRR_CORE_POINT_H

#include "core/tracee.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/user.h>

struct point_stack {
	uint64_t start, len; /* the bytes hashed */
	uint64_t hash;	     /* XXH64, seed 0 */
};

/* Hashes the stack bytes of a point whose stack pointer is rsp: from
 * MRR_PREEMPT_STACK_BELOW bytes below rsp (with red_zone) or from rsp, up
 * to MRR_PREEMPT_STACK_ABOVE above it, cut where readable memory ends
 * (from rsp when the red zone cannot be read). Never fails: unreadable
 * memory hashes as length 0. */
void point_stack_hash(struct tracee *t, uint64_t rsp, bool red_zone,
		      struct point_stack *out);

/* No stack bytes for a point at rsp (length 0, the hash of nothing). */
void point_stack_none(uint64_t rsp, struct point_stack *out);

/* Hashes [start, end) of the stack (the whole stack above a point: the
 * frames of every caller, where the loop counters of outer loops live),
 * reading at most POINT_DEEP_MAX bytes. Returns 0 or -EFAULT. */
#define POINT_DEEP_MAX (1u << 20)
int point_deep_hash(struct tracee *t, uint64_t start, uint64_t end,
		    uint64_t *hash) __attribute__((warn_unused_result));

/* Register masks (bit i: word i of user_regs_struct is compared). */
#define POINT_REGS_ALL ((1ull << 27) - 1)
/* What a call into the syscall buffer library may leave differently at
 * replay: the caller-saved registers and the flags. */
#define POINT_REGS_CALLER_SAVED                                                \
	((1ull << 6) | (1ull << 7) | (1ull << 8) | (1ull << 9) |               \
	 (1ull << 10) | (1ull << 11) | (1ull << 12) | (1ull << 13) |           \
	 (1ull << 14) | (1ull << 18))

/* The outputs of cpuid (rax, rbx, rcx, rdx), which differ between
 * processors (the APIC id in ebx). */
#define POINT_REGS_CPUID                                                       \
	((1ull << 5) | (1ull << 10) | (1ull << 11) | (1ull << 12))

/* Hashes exactly [start, start + len); returns 0 or -EFAULT when some of
 * it cannot be read. */
int point_stack_hash_range(struct tracee *t, uint64_t start, uint64_t len,
			   uint64_t *hash) __attribute__((warn_unused_result));

/* Whether two register sets are the same point: every register in mask,
 * except the resume flag (eflags bit 16) which depends on how the task
 * stopped. *first_diff gets the index (in user_regs_struct words) of the
 * first difference, or -1. */
bool point_same_regs(const struct user_regs_struct *a,
		     const struct user_regs_struct *b, uint64_t mask,
		     int *first_diff);

/* Whether the instruction at the start of code (n bytes readable) is a
 * string instruction with a rep/repne prefix: an interrupt may stop such
 * an instruction between two of its iterations, rip still on it, where an
 * execution breakpoint (which fires once, before the first iteration) can
 * never find the task again. Returns the instruction's length, or 0 when
 * it is anything else. */
unsigned point_rep_string_len(const uint8_t *code, size_t n);

/* The name of register word i of user_regs_struct ("rip", ...). */
const char *point_reg_name(int i);

#endif
