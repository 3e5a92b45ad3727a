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

long sb_traced_syscall(long nr, long a0, long a1, long a2, long a3, long a4,
		       long a5);
long sb_untraced_syscall(long nr, long a0, long a1, long a2, long a3, long a4,
			 long a5);

#endif
