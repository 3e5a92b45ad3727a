/* CLONE_UNTRACED taken out of clone and clone3 (clone_untraced.h). */
#include "core/clone_untraced.h"

#include <errno.h>
#include <linux/sched.h>
#include <sys/syscall.h>

int mrr_clone_clear_untraced(struct tracee *t, long nr,
			     struct user_regs_struct *regs)
{
	uint64_t flags;
	int err;

	if (nr == SYS_clone) {
		if (!(regs->rdi & CLONE_UNTRACED))
			return 0;
		regs->rdi &= ~(uint64_t)CLONE_UNTRACED;
		err = tracee_set_regs(t, regs);
		return err < 0 ? err : 1;
	}
	if (nr != SYS_clone3 || regs->rsi < sizeof(uint64_t) ||
	    tracee_read_all(t, regs->rdi, &flags, sizeof(flags)) < 0 ||
	    !(flags & CLONE_UNTRACED))
		return 0; /* the kernel fails the call itself */
	flags &= ~(uint64_t)CLONE_UNTRACED;
	err = tracee_write_all(t, regs->rdi, &flags, sizeof(flags));
	return err < 0 ? err : 1;
}

int mrr_clone_restore_untraced(struct tracee *t, long nr, uint64_t arg0)
{
	struct user_regs_struct r;
	uint64_t flags;
	int err;

	if (nr == SYS_clone) {
		err = tracee_get_regs(t, &r);
		if (err < 0)
			return err;
		r.rdi = arg0;
		return tracee_set_regs(t, &r);
	}
	err = tracee_read_all(t, arg0, &flags, sizeof(flags));
	if (err < 0)
		return err;
	flags |= CLONE_UNTRACED;
	return tracee_write_all(t, arg0, &flags, sizeof(flags));
}
