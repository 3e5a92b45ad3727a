/* The one owner of the x86-64 debug registers DR0-DR7 of a traced task,
 * through PTRACE_POKEUSER/PTRACE_PEEKUSER. The recorder (preemption search),
 * the replayer (preemption points) and the gdb server (breakpoints and
 * watchpoints) all go through here, so that slots are never clobbered by
 * two writers that each think they own DR7.
 *
 * A slot is 0..3 (DR0..DR3). Every function requires the task to be in a
 * ptrace-stop and returns 0 or -errno (-EINVAL for a bad slot, length or
 * alignment; what ptrace returns otherwise). Not thread-safe per task: one
 * thread of mrr drives a task.
 *
 * When a breakpoint or watchpoint fires, the task stops with SIGTRAP
 * (si_code TRAP_HWBKPT); hwbp_read_dr6() says which slots fired. An
 * execute breakpoint stops BEFORE the instruction at its address runs (rip
 * == addr); resuming from there runs the instruction (the kernel sets the
 * resume flag) without a second stop. A watchpoint stops AFTER the write. */
#ifndef MRR_CORE_HWBP_H
#define MRR_CORE_HWBP_H

#include <stdint.h>
#include <sys/types.h>

#define HWBP_SLOTS 4

enum hwbp_kind {
	HWBP_EXEC = 0,	/* instruction execution; len must be 1 */
	HWBP_WRITE = 1, /* data writes */
	HWBP_RW = 3,	/* data reads or writes */
};

/* Arms slot with a breakpoint (HWBP_EXEC, len 1) or a watchpoint of len 1,
 * 2, 4 or 8 bytes at addr (aligned to len). Replaces what the slot held. */
int hwbp_set(pid_t tid, int slot, uint64_t addr, enum hwbp_kind kind, int len)
	__attribute__((warn_unused_result));

/* Disarms slot (its address is left in DRn; harmless). */
int hwbp_clear(pid_t tid, int slot) __attribute__((warn_unused_result));

/* Disarms every slot. */
int hwbp_clear_all(pid_t tid) __attribute__((warn_unused_result));

/* Reads DR6 (bit N set: slot N fired; bit 14 BS: a single step). */
int hwbp_read_dr6(pid_t tid, uint64_t *dr6) __attribute__((warn_unused_result));

/* Clears DR6, so that the next stop's DR6 names only what fired then. */
int hwbp_clear_dr6(pid_t tid) __attribute__((warn_unused_result));

/* The lowest slot named in a DR6 value, or -1. */
int hwbp_fired_slot(uint64_t dr6);

#endif
