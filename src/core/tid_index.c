#include "core/tid_index.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static size_t tid_hash(int32_t tid, size_t cap)
{
	return (size_t)(((uint32_t)tid * 2654435761u) & (cap - 1));
}

long tid_index_get(const struct tid_index *ix, int32_t tid)
{
	size_t h;

	if (!ix->cap || !tid)
		return -1;
	for (h = tid_hash(tid, ix->cap); ix->tids[h];
	     h = (h + 1) & (ix->cap - 1))
		if (ix->tids[h] == tid)
			return ix->slots[h];
	return -1;
}

int tid_index_put(struct tid_index *ix, int32_t tid, uint32_t idx)
{
	size_t h;

	if (!tid)
		return 0;
	if ((ix->n + 1) * 2 > ix->cap) {
		struct tid_index big = {0};

		big.cap = ix->cap ? ix->cap * 2 : 64;
		big.tids = calloc(big.cap, sizeof(*big.tids));
		big.slots = calloc(big.cap, sizeof(*big.slots));
		if (!big.tids || !big.slots) {
			tid_index_free(&big);
			return -ENOMEM;
		}
		for (h = 0; h < ix->cap; h++)
			if (ix->tids[h])
				tid_index_put(&big, ix->tids[h], ix->slots[h]);
		tid_index_free(ix);
		*ix = big;
	}
	for (h = tid_hash(tid, ix->cap); ix->tids[h] && ix->tids[h] != tid;
	     h = (h + 1) & (ix->cap - 1))
		;
	if (!ix->tids[h])
		ix->n++;
	ix->tids[h] = tid;
	ix->slots[h] = idx;
	return 0;
}

void tid_index_free(struct tid_index *ix)
{
	free(ix->tids);
	free(ix->slots);
	memset(ix, 0, sizeof(*ix));
}
