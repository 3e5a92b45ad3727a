/* CLONE_UNTRACED in the program's clone and clone3 calls. The flag only
 * keeps a tracer from following the child; natively the program has no
 * tracer and it does nothing. Under mrr it would let the child run
 * unrecorded (stress-ng's clone stressor sets it among random flags: the
 * replay then met a fork that made no child it could follow). So mrr takes
 * it out of the call, at record and at replay alike, and puts it back for
 * the program to see once the call has read it. */
#ifndef MRR_CORE_CLONE_UNTRACED_H
#define MRR_CORE_CLONE_UNTRACED_H

#include "core/tracee.h"

#include <stdint.h>

/* At the entry stop of syscall nr (regs: its registers, updated when the
 * flag goes): clears CLONE_UNTRACED from a clone's flags register or from
 * a clone3's struct clone_args. Returns 1 when it was set and is cleared,
 * 0 when there was nothing to do, or -errno. */
int mrr_clone_clear_untraced(struct tracee *t, long nr,
			     struct user_regs_struct *regs)
	__attribute__((warn_unused_result));

/* After the kernel read the flags (the fork event stop or the call's exit
 * stop): puts the flag back where mrr_clone_clear_untraced took it from
 * (arg0: the call's first argument). Returns 0 or -errno. */
int mrr_clone_restore_untraced(struct tracee *t, long nr, uint64_t arg0)
	__attribute__((warn_unused_result));

#endif
