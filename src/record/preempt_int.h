/* State of preemption at record shared by preempt.c and preempt_cold.c
 * (private to them). */
#ifndef MRR_RECORD_PREEMPT_INT_H
#define MRR_RECORD_PREEMPT_INT_H

#include "core/bpcount.h"
#include "core/events.h"
#include "mrr/trace.h"

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/user.h>

struct rtask;

/* Anchors per task: one debug register stays free for the run-to counter
 * (and mrr's others). */
#define NANCHORS 3
/* CPU time after an event before a task with a timer handler is stopped:
 * bounds the first, uncounted search at replay. Not much shorter: the
 * kernel throttles a perf event that overflows more than
 * perf_event_max_sample_rate / HZ times a tick (400 at 100000 and 250
 * Hz), and a throttled slice stays silent until the next tick. */
#define SLICE_NS 50000ull
/* After the first slice, while anchors run: a counted point every
 * SLICE_LONG_NS of CPU time, so that a later uncounted point (the task
 * left its anchors) never needs a long search. A task that leaves its
 * anchor's loop during this slice and the wait for the anchor (RUNTO_NS)
 * gets a point searched over both: at 2 ms each, openssl speed left its
 * setup loop for a digest loop that runs the point's instruction about
 * 250,000 times per ms, and the replay's search gave up after 1,000,000
 * stops (1 run in about 30). */
#define SLICE_LONG_NS 300000ull
/* Bytes below a return address into the syscall buffer library that its
 * frame's locals may take: left out of a point's deep stack hash. */
#define LIB_FRAME_MARGIN 512
/* Bytes above rsp a point's deep stack hash covers at most. The mapping
 * that holds rsp is a thread's whole stack in C, but in Go it is a heap
 * arena, where the goroutine's stack sits among other goroutines' data
 * (which other threads change: no execution ever matched at replay). */
#define DEEP_HASH_MAX (64u << 10)
/* CPU time the first slice after a syscall waits for the anchor of the
 * task's last counted point before it takes a point where the task is. */
#define LAST_ANCHOR_NS 200000ull
/* CPU time a task may run towards an anchor before mrr gives up waiting
 * for it and records where the task is: at most RUNTO_NS (the cold anchor,
 * a return address, may come once per call of a long function, and a held
 * signal waits that long); for a timeslice point at another anchor, 8 of
 * its periods in the slice, at least RUNTO_HOT_NS. */
#define RUNTO_NS     2000000ull
#define RUNTO_HOT_NS 100000ull
/* A return address found on the stack at a point (retaddr.h) becomes the
 * cold anchor once it ran twice since the task's last event, and was on the
 * stack at a point since (a caller of the code that runs) or ran between
 * each of the last 3 points (a call in the loop's body), not more often than
 * once per COLD_MIN_NS of CPU time (each execution of an anchor costs a
 * debug exception, about 10 us). Then from each point on only the cold
 * anchor counts: the task's hot loop runs at its own speed, and the next
 * point is at the cold anchor's next execution after the long slice, as
 * with other anchors. There its rate is measured at the task's own speed,
 * and it is dropped when it runs too often. When it does not come in
 * RUNTO_NS, the task left that loop: it is dropped, and the point is where
 * the task is (the same bound on a search at replay as without a cold
 * anchor). Judged after JUDGE_NS of CPU time; a candidate that did not
 * qualify in JUDGE_IDLE_NS (while other anchors slow the task) and did not
 * run, or is not on the stack since the task's last event (a stale word, a
 * rare caller, a call of an earlier loop), makes room for the next one. */
#define COLD_MIN_NS   100000ull
#define JUDGE_NS      1000000ull
#define JUDGE_IDLE_NS 200000000ull
/* Return-address candidates a task judges at once. */
#define NRET 2
/* Return addresses judged unfit that a task remembers (not tried again). */
#define NSKIP 16
/* Loop exits (loopexit.h, preempt_exit.c). A plain anchor or a loop exit
 * that ran at least HOT_MIN_RUNS times between two points, more often than
 * once per HOT_NS of CPU time (its debug exceptions included: a loop
 * instruction counted runs about once per 10 us), is hot: at a timeslice
 * point, the hot anchors give way to the first exit of the loops around
 * the point that is not hot itself (it runs once per run of the loop), and
 * hot addresses (NHOT remembered) never become anchors again. While the
 * task stays in that exit's loop, a slice takes no point there (a point in
 * the loop would be searched among all of its iterations at replay): the
 * slice then lasts EXIT_SLICE_NS, and a signal waits for the exit, counted
 * since the task's last point or event, at most EXIT_WAIT_NS of CPU time
 * (loops end by themselves, loopexit.h; one that does not gets its signal
 * where it is, searched). */
#define HOT_NS	      50000ull
#define HOT_MIN_RUNS  4
#define EXIT_SLICE_NS 20000000ull
#define EXIT_WAIT_NS  1000000000ull
#define NHOT	      16

struct rec_preempt {
	uint64_t anchor[NANCHORS];
	struct bpcount count[NANCHORS];
	int nanchors, next_victim;
	int slice_fd;
	int slice_level;   /* 0: the first slice after an event */
	int timer_handler; /* -1 unknown, 0 no, 1 yes */
	bool was_hot;	   /* an anchor ran before the last event */
	bool emitting;	   /* writing pending points (not events to react to) */
	/* bytes of buffered records at the task's last event or point (taken
	 * or pending): more now means buffered calls ran since */
	uint32_t sbuf_mark;
	bool flushed; /* a buffer flush was written since (buffered calls) */
	/* Points taken but not written yet, oldest first: the counters and
	 * the slice restarted at each as at an event, but a point is only
	 * needed when a later one is written before the task's next event
	 * (a signal or a scheduler switch in the same stretch of user code);
	 * the next event drops them. */
	struct pending_point *pending;
	int npending, cap;
	/* waiting for the next execution of anchor runto_idx, to record a
	 * point there (and deliver held_si, with has_sig); runto_idx -1: of
	 * the instruction after a rep string instruction (an uncounted
	 * point) */
	bool held;
	bool has_sig;
	siginfo_t held_si;
	struct bpcount runto;
	int runto_idx;
	int last_idx; /* the anchor of the task's last counted point, or -1 */
	bool after_syscall; /* no point since the task's last event, a syscall
			     */
	/* anchor i is a return address (a cold candidate, judged by its
	 * executions acc_n in acc_ns of CPU time while it counted) */
	bool ret[NANCHORS];
	uint64_t acc_n[NANCHORS], acc_ns[NANCHORS];
	/* executions since the task's last event (not only across events:
	 * a function that returns once per round of a loop that a signal
	 * ends would never return while it is waited for) */
	uint64_t stretch_n[NANCHORS];
	/* found on the stack at a point since the task's last event */
	bool on_stack[NANCHORS];
	/* restarts of the counters in a row at which it had run since the
	 * previous one */
	int streak[NANCHORS];
	/* CPU time the cold anchor did not run while the other anchors
	 * counted (after events) */
	uint64_t cold_idle_ns;
	int cold_idx;	      /* the cold anchor that serves, or -1 */
	int clock_fd;	      /* the task's CPU clock, or -1 */
	uint64_t restart_ns;  /* its value at the last restart */
	uint64_t skip[NSKIP]; /* return addresses judged unfit */
	int nskip, skip_next;
	/* anchor i is a loop exit; exit_idx the one that serves (or -1),
	 * exit_lo the first instruction of its loop */
	bool exit_anchor[NANCHORS];
	/* anchor i is a loop exit that stepped aside (pre_exit_step_out):
	 * the first to give its slot to a new anchor */
	bool exit_aside[NANCHORS];
	int exit_idx;
	bool exit_fresh; /* it counts since the middle of a stretch */
	bool exit_kept;	 /* it is hot, but no outer loop's exit serves */
	uint64_t exit_lo;
	uint64_t hot[NHOT]; /* addresses judged hot */
	int nhot, hot_next;
};

/* Pending points a task keeps at most (one per SLICE_LONG_NS of a stretch
 * without syscalls); the oldest are written when there would be more. */
#define MAX_PENDING 1024

struct pending_point {
	struct mrr_event ev;
	struct mrr_preempt_extra x;
};

/* Whether addr may be a point or an anchor (preempt.c). */
bool rec_preempt_anchor_ok(struct rtask *t, uint64_t addr);

/* preempt_cold.c: */
/* A slot for a new anchor at addr: returns its index. */
int pre_new_anchor(struct rec_preempt *p, uint64_t addr, bool ret);
/* Forgets anchor i (its slot goes to the last one). */
void pre_remove_anchor(struct rec_preempt *p, int i);
/* Forgets return-address anchor i, judged unfit. */
void pre_drop_return(struct rec_preempt *p, int i);
/* At a restart of the counters (at a point, or at an event when not
 * at_point): measures and judges the return-address anchors. */
void pre_measure(struct rtask *t, struct rec_preempt *p, bool at_point);
/* Whether the cold anchor serves in the current stretch. */
bool pre_cold_active(const struct rec_preempt *p);
/* At a point in a loop: notes and adds return-address candidates. */
void pre_learn_return(struct rtask *t, struct rec_preempt *p,
		      const struct user_regs_struct *regs);

/* preempt_exit.c: */
/* Whether addr was judged hot, or lies in the loop of the serving exit:
 * not to become an anchor. */
bool pre_exit_refuses(const struct rec_preempt *p, uint64_t addr);
/* At a timeslice point (regs), before the counters restart: hot anchors
 * give way to a loop exit (above). */
void pre_exit_judge(struct rtask *t, struct rec_preempt *p,
		    const struct user_regs_struct *regs);
/* Whether t, stopped at regs, is still in the loop of the serving exit. */
bool pre_exit_inside(struct rtask *t, const struct rec_preempt *p,
		     const struct user_regs_struct *regs);
/* At a slice that found t (at regs) in a loop that ends by itself, with
 * no anchor running: its exit serves from now on, uncounted until the next
 * point (a point at it is searched: among the runs of the loop). Returns
 * false when there is none. */
bool pre_exit_enter(struct rtask *t, struct rec_preempt *p,
		    const struct user_regs_struct *regs);
/* The serving exit goes, never to serve again: a signal waited for it in
 * vain. */
void pre_exit_fail(struct rec_preempt *p);
/* The serving exit goes (it runs too often). */
void pre_exit_leave(struct rec_preempt *p);
/* The task left the serving exit's loop (or the exit did not come): the
 * exit no longer serves, but when it counts since the last restart of the
 * counters it stays an anchor, so that the task's next run of that loop
 * gets a counted point at it (pre_exit_enter serves it again). Returns
 * its index when it stays, else -1. */
int pre_exit_step_out(struct rec_preempt *p);
/* Counters for the statistics: exits made anchors, points taken at an
 * exit, signals that waited for one in vain. */
extern unsigned long pre_exit_set, pre_exit_points, pre_exit_lost;

#endif
