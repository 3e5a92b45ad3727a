/* Seeking by event number. Chunks hold their first event number, so the
 * reader notes where each chunk it loads begins; a seek goes back to the
 * nearest noted chunk at or before the event (or reads forward past the last
 * one noted) and skips the events before it in that chunk. */
#include "trace/reader_int.h"

#include <errno.h>
#include <stdlib.h>

int trace_index_chunk(mrr_trace_reader *r, uint64_t offset, uint64_t first_seq)
{
	uint64_t i = r->chunk_index - 1; /* load_chunk counted it already */

	if (i < r->nindex)
		return 0; /* loaded again after a seek: noted then */
	if (r->nindex == r->index_cap) {
		uint64_t cap = r->index_cap ? 2 * r->index_cap : 64;
		struct trace_chunk_pos *p = realloc(r->index, cap * sizeof(*p));

		if (!p)
			return -ENOMEM;
		r->index = p;
		r->index_cap = cap;
	}
	r->index[r->nindex].offset = offset;
	r->index[r->nindex].first_seq = first_seq;
	r->nindex++;
	return 0;
}

/* The last noted chunk that starts at or before seq, or -1 for none. */
static int64_t chunk_before(const mrr_trace_reader *r, uint64_t seq)
{
	uint64_t lo = 0, hi = r->nindex;

	while (lo < hi) { /* first entry starting after seq */
		uint64_t mid = lo + (hi - lo) / 2;

		if (r->index[mid].first_seq <= seq)
			lo = mid + 1;
		else
			hi = mid;
	}
	return (int64_t)lo - 1;
}

int mrr_trace_seek(mrr_trace_reader *r, uint64_t seq)
{
	struct mrr_event ev;
	int64_t k;
	int ret;

	if (r->committed && !(r->flags & MRR_READER_FORCE) &&
	    seq > r->commit_events)
		return -EINVAL;
	trace_stream_end(r);
	k = chunk_before(r, seq);
	r->offset = k < 0 ? 0 : r->index[k].offset;
	r->chunk_index = k < 0 ? 0 : (uint64_t)k;
	r->next_seq = k < 0 ? 0 : r->index[k].first_seq;
	r->chunk_left = 0;
	r->raw_len = 0;
	r->raw_pos = 0;
	r->err = 0;
	r->done = 0;
	r->errmsg[0] = 0;
	while (r->next_seq < seq) {
		ret = mrr_trace_next(r, &ev);
		if (ret == 0)
			return -EINVAL; /* the valid events end before seq */
		if (ret < 0)
			return ret;
	}
	return 0;
}
