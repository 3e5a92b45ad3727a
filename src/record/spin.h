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
 * and the stack as they were (a counter incremented in place): the replay
 * stops it at its first pass, earlier than the recording did. That shows
 * as a divergence at a later event, not here. */
#ifndef MRR_RECORD_SPIN_H
#define MRR_RECORD_SPIN_H

struct recorder;
struct rtask;

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
 * and the breakpoint stops the probes took. */
struct rec_spin_stats {
	unsigned long probes, preempted, stops;
};
void rec_spin_stats(struct rec_spin_stats *out);

#endif
