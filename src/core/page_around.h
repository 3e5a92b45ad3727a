/* munmap of a range that holds mrr's page (MRR_PAGE_ADDR) and the
 * program's memory next to it. A program may unmap large ranges it does not
 * know the contents of (stress-ng's mmap and vm-segv stressors unmap
 * everything around them). Natively the kernel would unmap the page as
 * well; mrr still needs it (buffered syscalls and the replay's injected
 * syscalls run from it), so the call unmaps everything but the page: the
 * part below it as the call itself, with its length narrowed, and the part
 * above it by one more munmap at the call's exit. The program gets its own
 * registers back and the two calls' result (0, or the first failure). The
 * recorder and the replayer do this alike, at the same event, so both
 * address spaces end the same. The page stays mapped where natively it
 * would be gone; a program that touches it there sees mrr's bytes. */
#ifndef MRR_CORE_PAGE_AROUND_H
#define MRR_CORE_PAGE_AROUND_H

#include "core/tracee.h"

#include <stdbool.h>
#include <stdint.h>
#include <sys/user.h>

struct page_around {
	bool active;	    /* the call was narrowed */
	uint64_t rest_addr; /* the part above the page, unmapped at exit */
	uint64_t rest_len;
	uint64_t rdi, rsi; /* the call's own arguments */
};

/* Whether munmap(addr, len) reaches both mrr's page and memory outside
 * it: the calls page_around narrows. (A range inside the page alone is
 * the caller's case: the page acts as memory that is not mapped.) */
bool page_around_applies(uint64_t addr, uint64_t len);

/* At the entry stop of such a munmap (regs: its registers, updated):
 * narrows the call in the task's registers and fills *s. Returns 0 or
 * -errno. */
int page_around_entry(struct tracee *t, struct user_regs_struct *regs,
		      struct page_around *s)
	__attribute__((warn_unused_result));

/* At that call's exit stop (result: the kernel's, updated to the program's
 * result): unmaps the part above the page when there is one, and gives the
 * task its own rdi and rsi back with the result in rax. Clears *s.
 * Returns 0 or -errno. */
int page_around_exit(struct tracee *t, struct page_around *s, int64_t *result)
	__attribute__((warn_unused_result));

#endif
