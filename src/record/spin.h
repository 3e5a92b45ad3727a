/* Preempting a thread that spins while another waits to run (threads.c
 * calls it). mrr runs one thread of an address space at a time, so a
 * thread that waits in a loop for memory another thread writes would spin
 * for ever. Such a thread is stopped where it stands and watched at the
 * next few executions of that instruction (a perf breakpoint, one stop
 * each): when its whole state there (every register and the stack) comes
 * back to one it had before, it waits in a loop that changes nothing, and
 * a preemption point recorded there (count 0) is found again at replay at
 * the first pass through that state, after few breakpoint stops. A thread
 * whose state does not repeat (it computes) is resumed untouched: a point
 * in such a loop could need millions of stops to find again.
 *
 * The ambiguous case is a loop that writes memory but leaves every register
 * and the stack as they were (a counter incremented in place): its turns
 * differ only in memory. The point then carries the bytes the loop's body
 * stores to (spinloop.h), which the replay writes at the first turn that
 * matches by registers and stack, and its memory digest checks the rest. */
#ifndef MRR_RECORD_SPIN_H
#define MRR_RECORD_SPIN_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/user.h>

struct recorder;
struct rtask;
struct mrr_event;

enum spin_result {
	SPIN_PREEMPTED = 1, /* t stopped at a recorded point */
	SPIN_STOPPED = 0,   /* t stopped by itself first: handle *status */
	SPIN_NOT = 2,	    /* t does not spin (or not here): resumed */
};

/* t runs user code (a group's runner). Returns SPIN_PREEMPTED with t in a
 * ptrace-stop at an MRR_EV_PREEMPT point just written (resume it with
 * PTRACE_CONT and signal 0); SPIN_STOPPED with t's own wait status in
 * *status (an exit, a syscall, a signal: the caller handles it as any
 * stop; mrr swallows its late kick); SPIN_NOT with t resumed and nothing
 * written; or -errno (t's state unknown: only when it is gone). */
int rec_spin_preempt(struct recorder *rec, struct rtask *t, int *status);

/* Counters for bench/ and MRR_PREEMPT_STATS: probes made, points written,
 * the breakpoint stops the probes took, and the points that carry the
 * bytes their loop stores to; gates made, points at gates, and gate stops
 * where nobody waited. */
struct rec_spin_stats {
	unsigned long probes, preempted, stops, stores;
	unsigned long gates, gate_points, gate_declined;
};
void rec_spin_stats(struct rec_spin_stats *out);

/* Gates. A probe that preempts a task in a loop it can read (spinloop.h)
 * makes the loop's first instruction one of the task's gates (the last
 * SPIN_GATES, one perf breakpoint counter each, signalling each
 * execution, counted from the task's last event as a point's count is).
 * When a gate runs while the task holds its group's slot and another task
 * waits for it, the task waits for that one's store: a point there
 * (counted, found again at replay with one stop) and the other runs at
 * once, instead of after SPIN_CHECK_MS and a probe (threads.c). Where
 * nobody waits, the task runs on, and after SPIN_GATE_DECLINES such stops
 * in one stretch the gate stays shut until the task's next event. */
#define SPIN_GATES	   3
#define SPIN_GATE_DECLINES 256

/* After each event of t (rec_preempt_after_event; not a buffer flush):
 * the gates count from here (none after an exec: another program). */
void rec_spin_gates_restart(struct rtask *t, const struct mrr_event *ev);
/* At a signal-delivery-stop of t, before mrr's other own stops: when it
 * is a gate's, returns true with t either preempted there (parked by
 * rec_sched_spin_gate) or resumed. */
bool rec_spin_gate_stop(struct recorder *rec, struct rtask *t,
			const siginfo_t *si,
			const struct user_regs_struct *regs);
/* Closes t's gates until its next event (a debug register is needed for
 * something else). */
void rec_spin_gates_close(struct rtask *t);
void rec_spin_gates_free(struct rtask *t);

/* threads.c: t, stopped at regs at the count-th run of a gate since its
 * last event, holds its group's slot: when another task waits for it,
 * records the point and hands the slot over (true); else false, nothing
 * written. */
bool rec_sched_spin_gate(struct recorder *rec, struct rtask *t,
			 const struct user_regs_struct *regs, uint64_t count);

#endif
