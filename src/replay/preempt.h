/* Replaying MRR_EV_PREEMPT (trace-format/FORMAT.md 7.9): drives the task
 * to the recorded point in its user code and checks it. */
#ifndef MRR_REPLAY_PREEMPT_H
#define MRR_REPLAY_PREEMPT_H

#include <stdint.h>

struct replayer;
struct ptask;

/* At most this many breakpoint stops when searching a point by registers
 * (count 0); more is reported as a divergence. */
#define REPLAY_PREEMPT_MAX_SEARCH 1000000ul
/* ...and at most this many seconds: the search keeps mrr busy, where the
 * watchdog (which watches waits) cannot see it, so it bounds itself; below
 * the harness's steps of 48 s (tests with a 120 s timeout), so that a
 * search that cannot succeed ends with its report, not killed silently. */
#define REPLAY_PREEMPT_MAX_SEARCH_S 40

/* ...and at most this many executions whose registers and stack match but
 * whose memory digest does not (each costs a hash of the process's
 * memory). */
#define REPLAY_PREEMPT_MAX_DIGESTS 4096ul

/* A searched point's writes (the bytes its spin loop stores to,
 * FORMAT.md 7.9): at most this many, of at most this many bytes each. */
#define REPLAY_POINT_MAX_WRITES	   8
#define REPLAY_POINT_MAX_WRITE_LEN 16

/* The debug register slot the search uses (hwbp.h). */
#define REPLAY_PREEMPT_SLOT 3

/* Replays rp->ev, a preemption of t. On return t is stopped at the point
 * (t->at_point set), or the replay diverged (reported). A count N > 0
 * costs one stop (a perf breakpoint counter signals the N-th execution);
 * N = 0 costs one stop per execution of the point's instruction until the
 * registers, the stack hashes and the memory digest match (a digest is
 * taken only where the rest matches); after 256 such stops the search
 * patches the code (fastsearch.h), and then only the executions whose
 * registers match stop. */
void replay_preempt(struct replayer *rp, struct ptask *t);

/* Totals over the replay, for bench/ (MRR_PREEMPT_STATS=1 prints them). */
struct replay_preempt_stats {
	unsigned long points, counted, searched, stops, longest_search;
	unsigned long fast; /* searches that patched the code (fastsearch.h) */
};
void replay_preempt_stats(struct replay_preempt_stats *out);
/* Prints them on stderr when MRR_PREEMPT_STATS=1 and a point was seen. */
void replay_preempt_print_stats(void);

#endif
