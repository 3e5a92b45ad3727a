/* Preemption points in user code (trace-format/FORMAT.md 7.9), without a
 * PMU. A point is recorded as the task's registers and a stack hash, and
 * either a count N (the N-th execution of the point's instruction since
 * the task's previous event) or N = 0 (the replay searches the executions
 * of that instruction for the one whose registers and stack match).
 *
 * Counting: each task keeps a small history of anchors, addresses where it
 * was stopped in user code before (its hot loops). At each of its events
 * (buffer flushes excepted) a perf breakpoint counter per anchor is set
 * back to 0 (bpcount.h: no ptrace stop per execution, one debug exception
 * each). When the task must be stopped at P, an anchor A that ran since
 * the event gives a cheap point: the next execution of A, found again at
 * replay with one stop. Without one, P itself is recorded with N = 0 and
 * becomes an anchor.
 *
 * A task with a handler for a timer signal (SIGALRM, SIGVTALRM, SIGPROF)
 * gets a short CPU-time slice after each event, so that the first point in
 * a new loop is found by a short search (the first uncounted stretch is
 * short), and the later ones by counting. Such timeslice points are taken
 * (registers, hashes; counters restart there) but written only when a
 * later point of the same stretch of user code is (a signal delivered
 * there, a scheduler switch): a task that reaches a syscall first gets
 * its signals there, and the replay never looks for those points.
 *
 * Anchors are never in mrr's page or in the syscall buffer library, whose
 * code paths differ between record and replay. */
#ifndef MRR_RECORD_PREEMPT_H
#define MRR_RECORD_PREEMPT_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/user.h>

struct recorder;
struct rtask;
struct mrr_event;

/* rec_write_event calls it after each event of t is in the trace: resets
 * t's anchor counters and slice. */
void rec_preempt_after_event(struct recorder *rec, struct rtask *t,
			     const struct mrr_event *ev);

/* At a signal-delivery-stop of t (after the buffer flush): handles mrr's
 * own stops (counter overflow, slice, late kick). Returns true when the
 * stop was mrr's; t has been resumed. */
bool rec_preempt_own_stop(struct recorder *rec, struct rtask *t,
			  const siginfo_t *si, struct user_regs_struct *regs);

/* A signal with a handler arrived while t ran user code (si, regs: the
 * stop's), before the buffer flush: when an anchor ran since t's last
 * event, holds the signal, resumes t and returns true; the signal is then
 * delivered at the anchor's next execution (rec_preempt_own_stop), or
 * after t's next event if that comes first. */
bool rec_preempt_hold(struct recorder *rec, struct rtask *t,
		      const siginfo_t *si, struct user_regs_struct *regs);

/* The same signal when rec_preempt_hold did not take it, after the flush:
 * records the point where t stands (MRR_EV_PREEMPT, count 0, then
 * MRR_EV_SIGNAL with MRR_SIG_AT_POINT) and delivers the signal there.
 * Returns false when it cannot (t is not resumed: the caller defers the
 * signal to the next syscall as before). */
bool rec_preempt_signal(struct recorder *rec, struct rtask *t,
			const siginfo_t *si, struct user_regs_struct *regs);

/* For a scheduler: stops t, which runs user code, and records a
 * preemption point. Returns 1 when t is stopped at that point (recorded;
 * resume it with PTRACE_CONT and signal 0); 0 when t stopped by itself
 * first (its wait status in *status, which the caller handles as any
 * stop; mrr swallows its late kick); or -errno. */
int rec_preempt_now(struct recorder *rec, struct rtask *t, int *status);

/* For a scheduler that stopped t in user code itself (t in a
 * signal-delivery-stop of mrr's, regs its registers): records a point
 * where t stands (MRR_EV_PREEMPT, timeslice, the count-th execution of
 * regs->rip since t's last event, or count 0: the replay searches for it)
 * and returns true; t stays stopped (resume it with PTRACE_CONT and
 * signal 0). A searched point also carries the bytes at stores[0..nstores)
 * (spinloop.h: what a spin loop's body stores to). Returns false, writing
 * nothing, when t is inside a syscall, mrr's page or the syscall buffer
 * library, or on a rep string instruction. Adds no anchor. */
struct spin_store;
bool rec_preempt_here(struct recorder *rec, struct rtask *t,
		      const struct user_regs_struct *regs, uint64_t count,
		      const struct spin_store *stores, int nstores);

/* Counters: stops and points of the whole recording (for bench/):
 * points written, points taken but never needed (dropped), ptrace stops
 * of mrr's own, signals deferred to a syscall; points taken at a cold
 * anchor (a return address, preempt.c), and cold anchors a signal waited
 * for in vain (the point then was searched); loop exits made anchors
 * (preempt_int.h), points taken at one, and signals that waited for one in
 * vain. */
struct rec_preempt_stats {
	unsigned long points, counted, searched, dropped, stops, deferred;
	unsigned long cold, cold_lost;
	unsigned long exits, exit_points, exit_lost;
};
void rec_preempt_stats(struct rec_preempt_stats *out);
/* Prints them on stderr when MRR_PREEMPT_STATS=1 and a point was made. */
void rec_preempt_print_stats(void);

/* Frees t's preemption state (task gone). */
void rec_preempt_free(struct rtask *t);

#endif
