/* Reading one chunk's zstd frame a piece at a time, straight from the events
 * file, so that a chunk of any size needs a fixed amount of memory (private
 * to src/trace). */
#ifndef MRR_TRACE_STREAM_H
#define MRR_TRACE_STREAM_H

#include <stddef.h>
#include <stdint.h>

#include <zstd.h>

#include "trace/xxh64.h"

struct trace_zstream {
	int fd;
	uint64_t in_off,
		in_end; /* the frame's bytes in the file still to read */
	ZSTD_DStream *ds;
	struct trace_xxh64_state hash; /* of the compressed bytes read */
	uint8_t *in;		       /* compressed bytes read, not yet used */
	size_t in_len, in_pos;
	uint8_t *out; /* decompressed bytes not yet handed out */
	size_t out_len, out_pos;
	uint64_t produced; /* decompressed bytes so far */
	int frame_done;	   /* the decoder reached the end of the frame */
};

/* Starts reading the clen-byte frame at off in fd. Returns 0 or -ENOMEM. */
int trace_zstream_open(struct trace_zstream *zs, int fd, uint64_t off,
		       uint64_t clen);
void trace_zstream_close(struct trace_zstream *zs);

/* Reads exactly len decompressed bytes into dst (NULL: skips them).
 * Returns 0, -1 when the frame ends first or is invalid, or -errno. */
int trace_zstream_read(struct trace_zstream *zs, void *dst, uint64_t len);

/* Reads one varint. Returns 0, -1 (invalid or past the end) or -errno. */
int trace_zstream_varint(struct trace_zstream *zs, uint64_t *out);

/* After the last byte: checks that the frame ended exactly there, with
 * nothing after it in its clen bytes, and that the compressed bytes hash to
 * check (the chunk's payload checksum, low 32 bits). Returns 0, -1 or
 * -errno. */
int trace_zstream_finish(struct trace_zstream *zs, uint32_t check);

#endif
