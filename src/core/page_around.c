/* munmap around mrr's page (page_around.h). */
#include "core/page_around.h"

#include <sys/syscall.h>

#define PAGE_MASK_4K 4095ull

bool page_around_applies(uint64_t addr, uint64_t len)
{
	uint64_t end, page_end = MRR_PAGE_ADDR + MRR_PAGE_SIZE;

	len = (len + PAGE_MASK_4K) & ~PAGE_MASK_4K;
	if ((addr & PAGE_MASK_4K) || !len || addr + len < addr)
		return false; /* the kernel fails it (EINVAL) by itself */
	end = addr + len;
	if (end <= MRR_PAGE_ADDR || addr >= page_end)
		return false; /* the page is not in it */
	return addr < MRR_PAGE_ADDR || end > page_end;
}

int page_around_entry(struct tracee *t, struct user_regs_struct *regs,
		      struct page_around *s)
{
	uint64_t page_end = MRR_PAGE_ADDR + MRR_PAGE_SIZE;
	uint64_t len = (regs->rsi + PAGE_MASK_4K) & ~PAGE_MASK_4K;
	uint64_t end = regs->rdi + len;

	s->active = true;
	s->rdi = regs->rdi;
	s->rsi = regs->rsi;
	s->rest_addr = 0;
	s->rest_len = 0;
	if (regs->rdi < MRR_PAGE_ADDR) {
		/* the call unmaps the part below; the part above is left */
		if (end > page_end) {
			s->rest_addr = page_end;
			s->rest_len = end - page_end;
		}
		regs->rsi = MRR_PAGE_ADDR - regs->rdi;
	} else {
		/* only a part above: the call unmaps it */
		regs->rdi = page_end;
		regs->rsi = end - page_end;
	}
	return tracee_set_regs(t, regs);
}

int page_around_exit(struct tracee *t, struct page_around *s, int64_t *result)
{
	struct user_regs_struct r;
	uint64_t args[6] = {s->rest_addr, s->rest_len, 0, 0, 0, 0};
	int64_t rest = 0;
	int err;

	if (!s->active)
		return 0;
	s->active = false;
	if (*result == 0 && s->rest_len) {
		err = tracee_inject_syscall(t, 1, SYS_munmap, args, &rest);
		if (err < 0)
			return err;
		if (rest < 0)
			*result = rest;
	}
	err = tracee_get_regs(t, &r);
	if (err < 0)
		return err;
	r.rdi = s->rdi;
	r.rsi = s->rsi;
	r.rax = (uint64_t)*result;
	return tracee_set_regs(t, &r);
}
