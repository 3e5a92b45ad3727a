/* Raw syscalls for the preload library, which cannot use libc.
 *
 * Both take the syscall number then up to six arguments, in the kernel's
 * order, and return what the kernel returned (-errno on failure). Neither
 * touches errno.
 *
 * sb_traced_syscall runs the `syscall` instruction inside this library:
 * under mrr its seccomp filter stops the recorder, which records (or, at
 * replay, reproduces) the call. Outside mrr it is a plain syscall.
 *
 * sb_untraced_syscall runs the `syscall; ret` mrr maps at MRR_PAGE_ADDR,
 * which mrr's filter lets through without a stop. Its sixth argument is
 * replaced by MRR_SYSCALLBUF_TOKEN (abi.h), which the filter checks. It may
 * only be called once mrr accepted the buffer (the page exists only under
 * mrr).
 */
#ifndef MRR_SYSCALLBUF_RAW_H
#define MRR_SYSCALLBUF_RAW_H

struct sb_call;

long sb_traced_syscall(long nr, long a0, long a1, long a2, long a3, long a4,
		       long a5);
long sb_untraced_syscall(long nr, long a0, long a1, long a2, long a3, long a4,
			 long a5);

/* The work of sb_run (preload.h), in preload.c. sb_run itself, in raw.c,
 * calls it and then makes the state the call leaves behind the same at
 * record and at replay, where the body's code paths differ (at record it
 * probes the descriptor, a struct stat from fstat or FIONREAD's count,
 * and makes the syscall; at replay it copies the record):
 *   - it zeroes the SB_SCRUB_BYTES below its own frame, where the body's
 *     frames lay. Those bytes stay below the program's stack pointer,
 *     where its later frames may keep them (slots and padding it never
 *     writes), and a preemption point hashes the stack above it;
 *   - it zeroes the caller-saved registers but rax, which the program's
 *     next lazily bound call (ld.so's resolver saves them all) or a
 *     signal frame may put in the stack as well.
 * The library is built with -mgeneral-regs-only: no vector register
 * ever holds its values (the resolver saves those too).
 * SB_SCRUB_BYTES is more than the body's deepest call chain (gcc's
 * -fstack-usage: 240 bytes for the body, which inlines everything but the
 * syscall stubs and memcpy, themselves a few words each). Both are
 * literals, for the assembly. */
#define SB_SCRUB_BYTES 512
#define SB_SCRUB_WORDS 64
long sb_run_body(const struct sb_call *c);

_Static_assert(SB_SCRUB_WORDS * 8 == SB_SCRUB_BYTES, "scrub size");

#endif
