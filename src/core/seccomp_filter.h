/* The seccomp filter mrr installs in every recorded and replayed program:
 * syscalls from the mrr page's untraced instruction run freely when they
 * carry the syscall buffer's token (MRR_SYSCALLBUF_TOKEN in the sixth
 * argument), all others stop the tracer (SECCOMP_RET_TRACE).
 *
 * A program may install filters of its own, and the kernel then applies
 * the strictest answer of all filters to every syscall, mrr's included. So
 * mrr rewrites each filter the program installs (at record and at replay
 * alike) to let two kinds of calls through to mrr's own filter first:
 * - the syscalls mrr injects, which run from the `syscall` instruction at
 *   MRR_PAGE_ADDR + MRR_PAGE_TRACED_SYSCALL;
 * - the syscall buffer's control calls (MRR_SYSCALL_REGISTER, FLUSH and
 *   DESYNC in src/syscallbuf/abi.h), which mrr answers itself at their
 *   seccomp stop; the kernel would never run them.
 * Everything else, including the buffer's untraced calls, meets the
 * program's filter unchanged.
 */
#ifndef MRR_CORE_SECCOMP_FILTER_H
#define MRR_CORE_SECCOMP_FILTER_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/user.h>

struct tracee;

/* Installs the filter in the calling process (the child, before execve).
 * Returns 0 or -errno. With keep_privs (record) it first tries without
 * no_new_privs, which works with CAP_SYS_ADMIN in the process's user
 * namespace (root): the program then sees the kernel's own no_new_privs,
 * and the recorder sets the bit only where an exec would raise privileges
 * (mrr_file_raises_privs). Otherwise (unprivileged record, and every
 * replay) it sets no_new_privs first, so set-user-ID and set-group-ID bits
 * are not honoured: such an exec would turn address randomisation back on
 * (PER_CLEAR_ON_SETID), and its layout could not be reproduced.
 *
 * untraced_sigaction (recordings with MRR_INFO_UNTRACED_SIGACTION, and
 * their replays) lets rt_sigaction run without a stop, except for SIGALRM,
 * SIGVTALRM and SIGPROF, whose handlers the recorder's preemption watches
 * (src/record/preempt.c). Nothing needs recording: the call writes only
 * the old action, which the kernel holds at replay as it did at record,
 * since every rt_sigaction runs at replay too (libc's posix_spawn child
 * makes 130 of them, which libc makes internally and the preload library
 * cannot buffer). The recorder reads dispositions from /proc when it
 * needs them. */
int mrr_install_seccomp_filter(bool untraced_sigaction, bool keep_privs)
	__attribute__((warn_unused_result));

/* Whether an exec of the file at path (a name mrr can stat) would raise
 * privileges, and so clear ADDR_NO_RANDOMIZE, in a task without
 * no_new_privs: a regular file that is set-user-ID, set-group-ID (with
 * group execute) or has file capabilities. */
bool mrr_file_raises_privs(const char *path);

/* Instructions mrr puts in front of a program's filter. */
#define MRR_SECCOMP_PREFIX_LEN 10
/* The longest program filter the scratch area of mrr's page can hold;
 * a longer one goes on the task's stack, below the red zone. */
#define MRR_SECCOMP_MAX_REWRITE                                                \
	((MRR_PAGE_SIZE - MRR_PAGE_SCRATCH - 16) / 8 - MRR_SECCOMP_PREFIX_LEN)

/* Whether syscall nr with args installs a seccomp filter
 * (seccomp(SECCOMP_SET_MODE_FILTER) or prctl(PR_SET_SECCOMP,
 * SECCOMP_MODE_FILTER)). Its struct sock_fprog is argument 2 in both. */
int mrr_seccomp_installs_filter(long nr, const uint64_t args[6]);

/* At the seccomp stop of a syscall that installs a filter (regs: its entry
 * registers), copies the program's filter behind mrr's prefix into the
 * scratch area of mrr's page (or below the stack pointer, for a long one)
 * and points argument 2 (rdx) at the copy.
 * The caller puts rdx back (to the recorded argument) once the syscall
 * returned, so the program never sees the change. Returns 1 when rdx was
 * changed, 0 when the filter is left to the kernel as it is (it cannot be
 * read, or its length is 0 or too long for the kernel, which then fails the
 * call itself), -E2BIG when there is no room for it (a long filter while
 * the task runs on another stack than its main one), or another -errno. */
int mrr_seccomp_rewrite(struct tracee *t, struct user_regs_struct *regs)
	__attribute__((warn_unused_result));

/* The syscall buffer's hdr.no_probe bits (syscallbuf/abi.h) for task t,
 * the same at record and replay: at the seccomp stop of syscall nr (args)
 * that installs or changes the program's seccomp state (strict mode, emulated,
 * turns buffering off) or turns syscall
 * user dispatch on (every call then runs traced, where mrr makes the
 * dispatch check), or with nr -1 when the task registers a buffer (from
 * the filters it already has). */
uint32_t mrr_seccomp_sbuf_bits(struct tracee *t, long nr, const uint64_t *args);

#endif
