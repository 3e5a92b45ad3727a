/* The two syscall stubs of raw.h, in assembly so that the compiler never
 * sees a `syscall` (it clobbers rcx and r11) or a call that would push over
 * the red zone of an inlined caller.
 *
 * Both move the C arguments (rdi, rsi, rdx, rcx, r8, r9, then the stack)
 * into the syscall registers (rax, rdi, rsi, rdx, r10, r8, r9). The
 * untraced stub then jumps, rather than calls, to mrr's page: the `ret`
 * there returns straight to our caller, so the seccomp filter sees the
 * page's instruction pointer and the return stack stays balanced. It also
 * puts MRR_SYSCALLBUF_TOKEN in r9, the sixth argument, which no buffered
 * call uses. Neither moves rsp, so their unwind rules (.cfi) are the
 * defaults: a debugger or `mrr record --backtrace` stopped in one finds
 * the caller's frame at the return address on top of the stack. */
#include "core/tracee.h"
#include "syscallbuf/abi.h"

/* Where the untraced stub jumps; data rather than an immediate so that the
 * address comes from tracee.h, the one place that defines it. */
__attribute__((used, visibility("hidden"))) const unsigned long sb_untraced_ip =
	MRR_PAGE_ADDR + MRR_PAGE_UNTRACED_SYSCALL;

/* What the untraced stub puts in r9 (see MRR_SYSCALLBUF_TOKEN). */
__attribute__((used, visibility("hidden")))
const unsigned long sb_untraced_token = MRR_SYSCALLBUF_TOKEN;

#define SB_SHUFFLE                                                             \
	"	mov %rdi, %rax\n"                                                    \
	"	mov %rsi, %rdi\n"                                                    \
	"	mov %rdx, %rsi\n"                                                    \
	"	mov %rcx, %rdx\n"                                                    \
	"	mov %r8, %r10\n"                                                     \
	"	mov %r9, %r8\n"                                                      \
	"	mov 8(%rsp), %r9\n"

__asm__(".text\n"
	".globl sb_traced_syscall\n"
	".hidden sb_traced_syscall\n"
	".type sb_traced_syscall, @function\n"
	"sb_traced_syscall:\n"
	"	.cfi_startproc\n" SB_SHUFFLE "	syscall\n"
	"	ret\n"
	"	.cfi_endproc\n"
	".size sb_traced_syscall, . - sb_traced_syscall\n"
	"\n"
	".globl sb_untraced_syscall\n"
	".hidden sb_untraced_syscall\n"
	".type sb_untraced_syscall, @function\n"
	"sb_untraced_syscall:\n"
	"	.cfi_startproc\n" SB_SHUFFLE
	"	mov sb_untraced_token(%rip), %r9\n"
	"	mov sb_untraced_ip(%rip), %r11\n"
	"	jmp *%r11\n"
	"	.cfi_endproc\n"
	".size sb_untraced_syscall, . - sb_untraced_syscall\n");
