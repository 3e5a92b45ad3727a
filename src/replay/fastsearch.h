/* A searched preemption point found at the program's own speed.
 *
 * A point searched by its registers (count 0, FORMAT.md 7.9) costs one
 * ptrace stop per execution of its instruction; in a hot loop that is
 * tens of millions of stops. Here the replay patches a jump at the point's
 * instruction to a trampoline in a page of its own near the code. The
 * trampoline compares the task's registers with the recorded ones and
 * traps only when all that the point compares match; otherwise it runs a
 * copy of the instructions the jump covers and jumps back. The registers at
 * the trap are those at the point's instruction (only rip differs), so
 * the usual checks (stacks, memory digest) decide there.
 *
 * The trampoline writes nothing in the program's memory, not even below
 * its stack pointer (the bytes a frame leaves unwritten are part of later
 * points' stack hashes): it keeps rax and the flags (lahf, seto) in a data
 * page of its own after its code page, which the memory digests leave
 * out. The patch lives only while one search runs (no other task of the
 * process runs then), and the code and the pages are put back before the replay
 * goes on. Instructions the copy cannot run elsewhere (syscalls, loop/jrcxz,
 * indirect calls, and a direct call or a return before the patch's 5 bytes are
 * covered) leave the search as it was (a direct call is copied as a push of its
 * own return address and a jump). Not detectable: a jump from elsewhere to an
 * instruction inside the 5 bytes after the point's first one would run
 * the patch's displacement as code; the replay then faults or diverges
 * (reported), and only while the search runs. */
#ifndef MRR_REPLAY_FASTSEARCH_H
#define MRR_REPLAY_FASTSEARCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/user.h>

struct tracee;

/* The most instruction bytes the jump may displace. */
#define FASTSEARCH_MAX_WINDOW 24

struct fastsearch_code {
	uint8_t bytes[1024];
	size_t len;
	unsigned window; /* bytes at ip the jump replaces (>= 5) */
	uint8_t patch[FASTSEARCH_MAX_WINDOW]; /* what goes there */
	unsigned hit;	 /* offset just after the trampoline's int3 */
	unsigned resume; /* offset of the copied instructions */
};

/* Builds the trampoline for a point at ip whose registers are regs (the
 * words of struct user_regs_struct) compared as mask says (bit i: word i;
 * only the general registers and rsp are tested in the trampoline), to run
 * at address tramp. code holds n bytes read at ip. Returns 0, or -1 with
 * *why set when the instructions at ip cannot be copied or tramp lies too
 * far from ip or from what they address. */
int fastsearch_build(const uint8_t *code, size_t n, uint64_t ip, uint64_t tramp,
		     const uint64_t *regs, uint64_t mask,
		     struct fastsearch_code *out, const char **why);

/* Whether a relative jump or call in code (n bytes at address base, which
 * hold ip and the window after it) leads into (ip, ip + window): one after
 * the window (a loop whose head the patch would cover jumps back there), or
 * one before ip found by decoding from the first of the 64 starts at base
 * that falls in step with ip. True when it cannot tell. */
bool fastsearch_jumps_into(const uint8_t *code, size_t n, uint64_t base,
			   uint64_t ip, unsigned window);

struct fastsearch {
	uint64_t ip;
	uint64_t page; /* the trampoline's code page in the task, its data
			* page after it */
	uint8_t orig[FASTSEARCH_MAX_WINDOW];
	struct fastsearch_code code;
};

/* Patches t (stopped) for a search of the point at ip. Returns 0, or
 * -1 with *why set and nothing changed in t. */
int fastsearch_begin(struct fastsearch *f, struct tracee *t, uint64_t ip,
		     const uint64_t *regs, uint64_t mask, const char **why);

/* Where t stopped with a SIGTRAP at regs->rip: 1 at the trampoline's trap
 * (regs->rip is set to the point's ip: the task stands as at an execution
 * of it whose registers match), 0 elsewhere. Only regs is changed; the
 * caller writes it to the task. */
int fastsearch_stop(const struct fastsearch *f, struct user_regs_struct *regs);

/* The address to resume at after an execution that was not the point
 * (the copy of the instructions at ip). */
uint64_t fastsearch_resume_at(const struct fastsearch *f);

/* Puts the code back and unmaps the page (t stopped, or gone). */
void fastsearch_end(struct fastsearch *f, struct tracee *t);

#endif
