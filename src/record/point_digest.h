/* Memory digests of searched preemption points at record (core/memdigest.h,
 * trace-format/FORMAT.md 7.9): the replay finds a searched point again by
 * its registers and stack, which a loop that only changes memory passes
 * at every turn; the digest lets the replay see that it stopped at another
 * turn and report a divergence instead of going on wrongly. */
#ifndef MRR_RECORD_POINT_DIGEST_H
#define MRR_RECORD_POINT_DIGEST_H

#include <stdint.h>

struct recorder;
struct rtask;

/* The digest of t's process memory, t stopped at a searched point in user
 * code, every other task of its process stopped or blocked in a call.
 * Returns 0 (no digest) when another task of the process stands in a call
 * that writes the process's memory (the kernel may have written it, and
 * its event comes after the point: the replay would hash the memory
 * without it), or when the memory cannot be read. The digest covers the
 * shared anonymous mappings too (the trace says so: MRR_INFO_DIGEST_SHARED).
 * MRR_NO_MEM_DIGEST=1 turns digests off (for measurements). */
uint64_t rec_point_digest(struct recorder *rec, struct rtask *t);

/* Called for each syscall event of t: an alternate signal stack set with
 * sigaltstack is left out of later digests (core/memdigest.h); when it
 * cannot be read, later points carry no digest. */
void rec_point_digest_note_syscall(struct rtask *t, long nr, uint64_t arg0,
				   int64_t result);

/* Prints the digests' counts and costs on stderr when
 * MRR_PREEMPT_STATS=1 and a digest was attempted. */
void rec_point_digest_print_stats(void);

#endif
