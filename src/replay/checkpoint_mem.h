/* The memory of a replayed process that fork does not carry over to a
 * checkpoint's copy, saved beside it: mappings shared with other processes
 * (the copy shares them too, so later writes reach it), other than the
 * replay's file copies (checkpoint_files.h); and MADV_WIPEONFORK ranges
 * (zeroes in the copy). Private to src/replay. */
#ifndef MRR_REPLAY_CHECKPOINT_MEM_H
#define MRR_REPLAY_CHECKPOINT_MEM_H

#include <stddef.h>
#include <stdint.h>

struct ptask;

struct cp_range {
	uint64_t addr;
	uint64_t len;
	unsigned prot; /* PROT_*, for writing it back */
	uint8_t *data;
};

struct cp_mem {
	struct cp_range *ranges;
	size_t n;
};

/* Saves that memory of the stopped task t into m (zeroed by the caller),
 * adding its size to *bytes, which may not pass CHECKPOINT_MAX_SHARED.
 * Mappings of files in tmpdir are left to the file snapshots. Returns 0,
 * or -ENOTSUP (a MADV_DONTFORK range: the copy lacks it), -EFBIG (too
 * much), -EIO, with one sentence naming t's recorded pid in why. m may
 * hold some ranges after a failure: cp_mem_free() it. */
int cp_mem_save(struct cp_mem *m, struct ptask *t, const char *tmpdir,
		uint64_t *bytes, char *why, size_t whylen);

/* Writes the saved ranges back into t, a fork of the copy, stopped. A
 * range without PROT_WRITE is made writable for the time of its write
 * (the kernel refuses a forced write into such a shared mapping). Returns
 * 0 or -errno. */
int cp_mem_restore(const struct cp_mem *m, struct ptask *t);

void cp_mem_free(struct cp_mem *m);

#endif
