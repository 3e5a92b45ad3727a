/* The trace reader's state, shared by reader.c and reader_stream.c
 * (private to src/trace). */
#ifndef MRR_TRACE_READER_INT_H
#define MRR_TRACE_READER_INT_H

#include <stddef.h>
#include <stdint.h>

#include <zstd.h>

#include "mrr/trace.h"
#include "trace/stream.h"

/* Chunks whose content is bigger than this are decompressed piece by piece
 * (with MRR_READER_STREAM), and an event's writes beyond this many bytes are
 * handed out to be read with mrr_trace_read_data(). Fuzzing builds use small
 * values so that the fuzzer reaches these paths. */
#ifdef MRR_TRACE_FUZZING
#define TRACE_STREAM_MIN    (4u << 10)
#define TRACE_STREAM_INLINE (1u << 10)
#else
#define TRACE_STREAM_MIN    (32u << 20)
#define TRACE_STREAM_INLINE (16u << 20)
#endif

struct mrr_trace_reader {
	char *dir;
	int dir_fd;
	int events_fd;
	unsigned flags;

	struct mrr_trace_info info;
	uint32_t kind_max;  /* the last event kind the trace's version has */
	uint32_t evf_known; /* the event flags the trace's version has */
	uint8_t *header;
	uint64_t header_check;

	int committed;
	enum mrr_trace_end end;
	char *message;
	uint64_t commit_events;
	uint64_t commit_chunks;
	uint64_t commit_stream_len;

	uint64_t stream_end; /* where valid data may end: commit or file size */
	uint64_t file_size;

	/* Position: the next chunk starts at offset. */
	uint64_t offset;
	uint64_t chunk_index;
	uint64_t next_seq;
	uint8_t *raw;
	size_t raw_cap;
	size_t raw_len;
	size_t raw_pos;
	uint32_t chunk_left;
	uint8_t *comp;
	size_t comp_cap;
	struct mrr_mem_write *writes;
	size_t writes_cap;
	ZSTD_DCtx *dctx;

	/* A chunk too big to hold (trace_stream_chunk()): its events are
	 * decoded from zs as they are handed out; writes past the first
	 * TRACE_STREAM_INLINE bytes of an event come with data NULL and are
	 * read with mrr_trace_read_data(). */
	int streaming;
	struct trace_zstream zs;
	uint8_t *evbuf; /* the current event's extra and inline writes */
	size_t evbuf_cap;
	uint32_t cur_nwrites;
	uint32_t stream_idx;  /* the streamed write being read */
	uint64_t stream_off;  /* bytes of it already read */
	uint64_t stream_left; /* streamed bytes of the event not read yet */

	/* The seek index (reader_seek.c): where each chunk loaded so far
	 * starts, in stream order; entry i is chunk i. */
	struct trace_chunk_pos {
		uint64_t offset;
		uint64_t first_seq;
	} * index;
	uint64_t nindex;
	uint64_t index_cap;

	int err;  /* sticky error of mrr_trace_next() */
	int done; /* reached the end of the valid events */
	struct mrr_trace_stats stats;
	char errmsg[512];
};

/* reader.c: describes why the chunk at r->offset is unusable; returns
 * MRR_E_CORRUPT. */
int trace_bad_chunk(mrr_trace_reader *r, const char *why);

/* reader_seek.c: notes that chunk r->chunk_index - 1, just loaded, began
 * at offset with event first_seq. Returns 0 or -ENOMEM. */
int trace_index_chunk(mrr_trace_reader *r, uint64_t offset, uint64_t first_seq);

/* reader_stream.c */
/* Verifies the chunk at r->offset (header hdr already checked) by
 * decompressing it piece by piece, then starts handing out its events.
 * Returns 1, MRR_E_CORRUPT (message set) or -errno. */
int trace_stream_chunk(mrr_trace_reader *r, uint32_t clen, uint32_t raw_len,
		       uint32_t nevents, uint32_t check);
/* The next event of a streamed chunk. Returns 1, MRR_E_CORRUPT or -errno. */
int trace_stream_next(mrr_trace_reader *r, struct mrr_event *ev);
/* Stops streaming the current chunk. */
void trace_stream_end(mrr_trace_reader *r);

#endif
