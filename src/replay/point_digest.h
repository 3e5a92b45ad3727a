/* Checking the memory digest of a searched preemption point at replay
 * (core/memdigest.h, trace-format/FORMAT.md 7.9). */
#ifndef MRR_REPLAY_POINT_DIGEST_H
#define MRR_REPLAY_POINT_DIGEST_H

struct replayer;
struct ptask;

/* t stands at the point of rp->ev, found by its registers and stack. When
 * the event carries a memory digest (its result), hashes t's process
 * memory the same way and reports a divergence naming the point when it
 * differs: the loop t ran changes memory but no register, and the replay
 * stopped it at another turn than the recording did. Returns 0, or -1
 * after reporting. */
int replay_point_digest(struct replayer *rp, struct ptask *t);

/* Prints the digests' counts and costs on stderr when
 * MRR_PREEMPT_STATS=1 and a digest was checked. */
void replay_point_digest_print_stats(void);

#endif
