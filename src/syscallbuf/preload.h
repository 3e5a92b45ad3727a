/* The buffering engine of the preload library, shared by the wrappers
 * (wrappers.c). Protocol: abi.h; record contents: calls.h.
 *
 * A wrapper describes its call in a struct sb_call and hands it to
 * sb_run(), which either buffers it (record: untraced syscall plus a record;
 * replay: the next record's result and bytes) or makes it as a traced
 * syscall, exactly as libc would have. sb_run decides the same way at
 * record and at replay, so both flush at the same points.
 *
 * Everything here is per thread: each thread registers its own buffer on
 * its first buffered call. No function takes locks or allocates with libc.
 */
#ifndef MRR_SYSCALLBUF_PRELOAD_H
#define MRR_SYSCALLBUF_PRELOAD_H

#include <stddef.h>

/* struct sb_call.flags */
#define SB_REGULAR_FD  0x1u  /* buffer only if args[0] is a regular file, */
#define SB_PIPE_NOWAIT 0x8u  /* or a pipe that holds data (FIONREAD) */
#define SB_MADVISE     0x2u  /* MADV_DONTNEED: probe first, re-run at replay */
#define SB_STATUS      0x10u /* a read whose data may be a /proc status file's */
#define SB_MPROTECT    0x20u /* mprotect: re-run at replay (abi.h) */
#define SB_OPEN                                                                \
	0x4u /* openat: never of a non-regular file, never                     \
	      * blocks (args: dirfd, path, flags, mode) */

struct sb_iovec { /* struct iovec */
	void *base;
	size_t len;
};

struct sb_call {
	long nr;
	long args[6];
	unsigned rule;	/* MRR_SB_* (calls.h): what the kernel writes */
	unsigned flags; /* SB_* */
	/* MRR_SB_RESULT and MRR_SB_FIXED: where the kernel writes (NULL for
	 * nowhere), and the most it may write there. For readv, out is NULL
	 * and iov/args[2] give the vectors. */
	void *out;
	size_t out_len;
	const struct sb_iovec *iov;
};

/* Runs c, buffered when it can, traced when it cannot. Returns the raw
 * result: -errno on failure. Safe to call before the buffer exists, outside
 * mrr, and from a signal handler that interrupted another wrapper. Leaves
 * the same stack bytes below its caller's frame and the same caller-saved
 * registers at record and at replay (raw.h). */
long sb_run(const struct sb_call *c);

/* Whether sb_run may buffer a call now: this thread has a buffer and is not
 * inside another wrapper. Lets a wrapper skip preparing a call that will be
 * traced anyway. */
int sb_buffering(void);

/* Runs c as a traced syscall, never buffered. */
long sb_traced(const struct sb_call *c);

/* Turns a raw result into libc's convention: -1 with errno set, or the
 * result itself. */
long sb_ret(long raw);

/* Registers this thread's buffer if it has none yet (the constructor does it
 * for the main thread at load). */
void sb_init_thread(void);

#endif
