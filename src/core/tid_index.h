/* A tid -> index map, open addressing: per-tid lookups stay constant time
 * however many tasks a trace names (dump, dump -s). */
#ifndef MRR_CORE_TID_INDEX_H
#define MRR_CORE_TID_INDEX_H

#include <stddef.h>
#include <stdint.h>

struct tid_index {
	int32_t *tids;	 /* 0 marks a free slot */
	uint32_t *slots; /* index into the array being indexed */
	size_t cap, n;
};

/* Returns the index stored for tid, or -1 (always for tid 0). */
long tid_index_get(const struct tid_index *ix, int32_t tid);
/* Stores idx for tid; tid 0 is never stored (returns 0). Returns 0 or
 * -ENOMEM. */
int tid_index_put(struct tid_index *ix, int32_t tid, uint32_t idx);
/* Frees the map and leaves it empty, ready for use again. */
void tid_index_free(struct tid_index *ix);

#endif
