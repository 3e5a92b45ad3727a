/* Recording signals: which are synchronous, which are deferred to a point
 * the replay can reproduce (right after a syscall), and rdtsc traps. */
#ifndef MRR_RECORD_SIGNALS_H
#define MRR_RECORD_SIGNALS_H

struct recorder;
struct rtask;

#include <signal.h>
#include <stdint.h>
#include <sys/user.h>

/* Handles a signal-delivery-stop of sig for t and resumes t. */
void rec_signal_stop(struct recorder *rec, struct rtask *t, int sig);

/* Writes an MRR_EV_SIGNAL event for si (how: enum mrr_signal_how) with t
 * at regs. */
void rec_write_signal(struct recorder *rec, struct rtask *t,
		      const struct user_regs_struct *regs, const siginfo_t *si,
		      uint32_t how);

#endif
