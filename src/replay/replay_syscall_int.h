/* Shared by replay_syscall.c and replay_mem.c (private to them): replaying
 * one traced syscall event, rp->ev, of task t stopped at its entry. */
#ifndef MRR_REPLAY_REPLAY_SYSCALL_INT_H
#define MRR_REPLAY_REPLAY_SYSCALL_INT_H

#include "replay/ptask.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/user.h>

/* Gives t the result at its syscall's exit. 0, or -1 after reporting. */
int replay_set_result(struct replayer *rp, struct ptask *t, int64_t result);
/* Skips the call: t gets the recorded result and memory. */
void replay_emulate(struct replayer *rp, struct ptask *t,
		    struct user_regs_struct *regs);
/* Runs the call for real. When exact, a different result is a divergence
 * (the address space would differ); otherwise the recorded result is what
 * the program sees. */
void replay_execute(struct replayer *rp, struct ptask *t, bool exact);
/* Runs syscall nr in t from mrr's page (registers kept). 0, or -1 after
 * reporting. */
int replay_inject(struct replayer *rp, struct ptask *t, long nr, uint64_t a0,
		  uint64_t a1, uint64_t a2, uint64_t a3, uint64_t a4,
		  uint64_t a5, int64_t *ret);
/* Turns the stopped syscall into nr and runs it to its exit (its result
 * in *ret). 0, or -1 after reporting. */
int replay_replace_and_run(struct replayer *rp, struct ptask *t,
			   struct user_regs_struct *regs, long nr, uint64_t a0,
			   uint64_t a1, uint64_t a2, uint64_t a3, int64_t *ret);

/* replay_mem.c: the replay's writable copy of stored file name (version
 * ident) in rp's private directory, its path in buf. 0 or -errno. */
int replay_private_copy(struct replayer *rp, const char *name, uint32_t ident,
			const char *src, char *buf, size_t buflen);
/* mmap, madvise and shmat/shmdt events. */
void replay_mmap(struct replayer *rp, struct ptask *t,
		 struct user_regs_struct *regs);
void replay_madvise(struct replayer *rp, struct ptask *t,
		    struct user_regs_struct *regs);
void replay_shm(struct replayer *rp, struct ptask *t,
		struct user_regs_struct *regs);

#endif
