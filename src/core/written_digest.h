/* A digest of the bytes a write-family call took from the program. The
 * trace does not hold what the program writes (the replay shows its output
 * from the program's own memory), so without this a replay whose program
 * wrote other bytes than at record, with the same registers, would exit 0
 * with other output: a silent wrong replay. The recorder stores the digest
 * in the event (MRR_EVF_DIGEST, trace-format/FORMAT.md 7.1), and the replay
 * computes it again at the same event and reports a divergence when the two
 * differ. Both compute it here, the same way: xxh64 (seed 0) over the first
 * `len` bytes the call's buffers hold, in order (write, pwrite64: one
 * buffer; writev, pwritev, pwritev2: the iovec array). */
#ifndef MRR_CORE_WRITTEN_DIGEST_H
#define MRR_CORE_WRITTEN_DIGEST_H

#include "core/tracee.h"

#include <stdbool.h>
#include <stdint.h>

/* Whether syscall nr is a write-family call whose bytes are digested. */
bool written_digest_call(long nr);

/* The digest of the first len bytes that call nr with arguments args
 * (args[1]: the buffer or the iovec array, args[2]: the iovec count) took
 * from t's memory, read now (t in a ptrace-stop). Returns 0 with *out set,
 * or -errno when the memory cannot be read (-EFAULT: the buffers end before
 * len bytes). */
int written_digest(struct tracee *t, long nr, const uint64_t args[6],
		   uint64_t len, uint64_t *out)
	__attribute__((warn_unused_result));

#endif
