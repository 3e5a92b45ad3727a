/* Recording signals: which are synchronous, which are deferred to a point
 * the replay can reproduce (right after a syscall), and rdtsc traps. */
#ifndef MRR_RECORD_SIGNALS_H
#define MRR_RECORD_SIGNALS_H

struct recorder;
struct rtask;

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/user.h>

/* Handles a signal-delivery-stop of sig for t and resumes t. */
void rec_signal_stop(struct recorder *rec, struct rtask *t, int sig);

/* The rest of rec_signal_stop, once a virtual tracer (vptrace.h) let sig
 * (with siginfo si, maybe changed by it) go to t, stopped at regs:
 * records and delivers it as mrr does for any signal, and resumes t. */
void rec_signal_deliver(struct recorder *rec, struct rtask *t, int sig,
			const siginfo_t *si,
			const struct user_regs_struct *regs, bool at_exit);

/* Writes an MRR_EV_SIGNAL event for si (how: enum mrr_signal_how) with t
 * at regs. */
void rec_write_signal(struct recorder *rec, struct rtask *t,
		      const struct user_regs_struct *regs, const siginfo_t *si,
		      uint32_t how);

/* Job control (jobctl.c). */

/* SIGSTOP, SIGTSTP, SIGTTIN or SIGTTOU. */
bool rec_is_stop_signal(int sig);

/* The delivery stop of a stop signal whose action is the default (stop):
 * delivers it, so that t group-stops, unless the terminal sent it (see
 * jobctl.c); at_exit: no user code ran since t's last syscall. */
void rec_stop_signal(struct recorder *rec, struct rtask *t,
		     const struct user_regs_struct *regs, const siginfo_t *si,
		     bool at_exit);

/* A PTRACE_EVENT_STOP of t with signal sig (a group-stop, or its end):
 * leaves t stopped with PTRACE_LISTEN, or resumes it. */
void rec_group_stop(struct recorder *rec, struct rtask *t, int sig);

/* Called after each stop or exit: once the program's first process has
 * exited and every task left is in a group-stop, nothing the recording
 * holds can continue them. Natively their process group would now be
 * orphaned, and the kernel sends it SIGHUP and SIGCONT; mrr, whose own
 * group they are in, does the same, rather than wait for ever. */
void rec_jobctl_orphans(struct recorder *rec);

#endif
