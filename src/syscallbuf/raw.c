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
 * the caller's frame at the return address on top of the stack. The
 * scrubber (raw.h) does not move rsp either: it writes below it. */
#include "core/tracee.h"
#include "syscallbuf/abi.h"
#include "syscallbuf/raw.h"

/* Where the untraced stub jumps; data rather than an immediate so that the
 * address comes from tracee.h, the one place that defines it. */
__attribute__((used, visibility("hidden"))) const unsigned long sb_untraced_ip =
	MRR_PAGE_ADDR + MRR_PAGE_UNTRACED_SYSCALL;

/* What the untraced stub puts in r9 (see MRR_SYSCALLBUF_TOKEN). */
__attribute__((used, visibility("hidden")))
const unsigned long sb_untraced_token = MRR_SYSCALLBUF_TOKEN;

#define SB_STR_(x) #x
#define SB_STR(x)  SB_STR_(x)

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

/* sb_run (preload.h) around sb_run_body: see SB_SCRUB_BYTES in raw.h. rbx
 * keeps the result (and the entry push aligns the stack for the call);
 * the zeroing starts right below rsp, where the body's return address
 * lay; the xors leave the flags the same every time too. */
#define SB_SCRUB_LEA "	lea -" SB_STR(SB_SCRUB_BYTES) "(%rsp), %rdi\n"
#define SB_SCRUB_MOV "	mov $" SB_STR(SB_SCRUB_WORDS) ", %ecx\n"

__asm__(".text\n"
	".globl sb_run\n"
	".hidden sb_run\n"
	".type sb_run, @function\n"
	"sb_run:\n"
	"	.cfi_startproc\n"
	"	push %rbx\n"
	"	.cfi_adjust_cfa_offset 8\n"
	"	.cfi_rel_offset %rbx, 0\n"
	"	call sb_run_body\n"
	"	mov %rax, %rbx\n" SB_SCRUB_LEA SB_SCRUB_MOV
	"	xor %eax, %eax\n"
	"	rep stosq\n"
	"	mov %rbx, %rax\n"
	"	pop %rbx\n"
	"	.cfi_adjust_cfa_offset -8\n"
	"	.cfi_restore %rbx\n"
	"	xor %ecx, %ecx\n"
	"	xor %edx, %edx\n"
	"	xor %esi, %esi\n"
	"	xor %edi, %edi\n"
	"	xor %r8d, %r8d\n"
	"	xor %r9d, %r9d\n"
	"	xor %r10d, %r10d\n"
	"	xor %r11d, %r11d\n"
	"	ret\n"
	"	.cfi_endproc\n"
	".size sb_run, . - sb_run\n");
