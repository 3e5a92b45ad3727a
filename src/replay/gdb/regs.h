/* x86-64 registers as gdb numbers them in mrr's target description
 * (target.xml): the general registers, x87, SSE, orig_rax, fs_base and
 * gs_base. Private to src/replay/gdb. */
#ifndef MRR_REPLAY_GDB_REGS_H
#define MRR_REPLAY_GDB_REGS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/user.h>

#define GDB_NREGS 60

/* Both register sets of a task, as read with PTRACE_GETREGS/GETFPREGS. */
struct gdb_regs {
	struct user_regs_struct g;
	struct user_fpregs_struct f;
};

/* The target description (NUL-terminated XML). */
extern const char gdb_target_xml[];

/* Copies register regno into out (at least 16 bytes); returns its size, or
 * 0 for a number that does not exist. */
size_t gdb_reg_get(const struct gdb_regs *r, int regno, uint8_t *out);

/* Sets register regno from size bytes; returns 0 or -1 (no such register
 * or wrong size). */
int gdb_reg_set(struct gdb_regs *r, int regno, const uint8_t *in, size_t size);

#endif
