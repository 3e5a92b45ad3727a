/* Checking the memory digest of a searched preemption point at replay
 * (core/memdigest.h, trace-format/FORMAT.md 7.9). */
#ifndef MRR_REPLAY_POINT_DIGEST_H
#define MRR_REPLAY_POINT_DIGEST_H

struct replayer;
struct ptask;
struct mrr_event;

/* Called after each replayed syscall event ev of t: notes an alternate
 * signal stack set with sigaltstack, which digests leave out as at record
 * (core/memdigest.h). */
void replay_point_digest_note_syscall(struct ptask *t,
				      const struct mrr_event *ev);

/* t stands at an execution of the point of rp->ev whose registers and
 * stack match. When the event carries a memory digest (its result), hashes
 * t's process memory the same way (with the shared anonymous mappings when
 * the trace says so: MRR_INFO_DIGEST_SHARED) and compares. Returns 1 when
 * it matches or there is no digest, 0 when it differs (a loop that
 * changes memory but no register: t stands at another turn than the
 * recording did, and the search goes on), -1 after reporting a divergence
 * (the memory cannot be read). */
int replay_point_digest(struct replayer *rp, struct ptask *t);

/* Prints the digests' counts and costs on stderr when
 * MRR_PREEMPT_STATS=1 and a digest was checked. */
void replay_point_digest_print_stats(void);

#endif
