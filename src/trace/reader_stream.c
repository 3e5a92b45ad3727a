/* Chunks too big to hold in memory (MRR_READER_STREAM). A chunk is still
 * used whole or not at all: a first pass decompresses it piece by piece and
 * checks every event and both checksums without keeping anything; only then
 * does a second pass hand its events out, each event's fixed fields, extra
 * and first TRACE_STREAM_INLINE bytes of writes in memory, the rest read on
 * demand with mrr_trace_read_data(). Memory stays bounded by the format's
 * limits on one event's fixed part and extra, whatever the chunk holds. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "mrr/trace.h"
#include "trace/format.h"
#include "trace/io.h"
#include "trace/reader_int.h"

/* Reads one event's fixed fields and write list from zs into ev (and into
 * writes, when not NULL: it holds MRR_MAX_WRITES_PER_EVENT entries), and the
 * number of data bytes that follow into *data. Returns 0, -1 or -errno. */
static int stream_head(struct trace_zstream *zs, uint32_t kind_max,
		       uint32_t evf_known, struct mrr_event *ev,
		       struct mrr_mem_write *writes, uint64_t *data)
{
	uint64_t v[14], sum;
	int ret;

	for (int i = 0; i < 14; i++) {
		ret = trace_zstream_varint(zs, &v[i]);
		if (ret)
			return ret;
	}
	if (v[0] < MRR_EV_EXEC || v[0] > kind_max ||
	    (v[1] & ~(uint64_t)evf_known))
		return -1;
	int64_t tid = unzigzag(v[2]);

	if (tid < INT32_MIN || tid > INT32_MAX)
		return -1;
	if (v[12] > MRR_MAX_WRITES_PER_EVENT || v[13] > MRR_MAX_EXTRA_BYTES)
		return -1;
	ev->kind = (uint32_t)v[0];
	ev->flags = (uint32_t)v[1];
	ev->tid = (int32_t)tid;
	ev->ip = v[3];
	ev->nr = unzigzag(v[4]);
	for (int i = 0; i < 6; i++)
		ev->args[i] = v[5 + i];
	ev->result = unzigzag(v[11]);
	ev->nwrites = (uint32_t)v[12];
	ev->extra_len = (uint32_t)v[13];
	sum = ev->extra_len;
	for (uint32_t i = 0; i < ev->nwrites; i++) {
		uint64_t addr, len;

		ret = trace_zstream_varint(zs, &addr);
		if (!ret)
			ret = trace_zstream_varint(zs, &len);
		if (ret)
			return ret;
		if (len > MRR_MAX_EVENT_BYTES ||
		    (addr + len < addr && addr + len != 0))
			return -1;
		sum += len;
		if (sum > MRR_MAX_EVENT_BYTES)
			return -1;
		if (writes) {
			writes[i].addr = addr;
			writes[i].len = len;
			writes[i].data = NULL;
		}
	}
	*data = sum;
	return 0;
}

/* The bytes of the decompressed content consumed so far. */
static uint64_t consumed(const struct trace_zstream *zs)
{
	return zs->produced - (zs->out_len - zs->out_pos);
}

static int stream_fail(mrr_trace_reader *r, int ret, const char *why)
{
	trace_stream_end(r);
	return ret < -1 ? ret : trace_bad_chunk(r, why);
}

int trace_stream_chunk(mrr_trace_reader *r, uint32_t clen, uint32_t raw_len,
		       uint32_t nevents, uint32_t check)
{
	uint64_t off = r->offset + TRACE_CHUNK_HDR, data;
	uint8_t fh[18]; /* the longest zstd frame header */
	struct mrr_event ev;
	size_t fhlen = clen < sizeof(fh) ? clen : sizeof(fh);
	ssize_t n;
	int ret;

	/* the frame header the format pins down: content size and checksum */
	n = trace_pread_all(r->events_fd, fh, fhlen, off);
	if (n < 0)
		return (int)n;
	if ((size_t)n < fhlen || fhlen < 6 || get_le32(fh) != 0xfd2fb528u ||
	    !(fh[4] & 0x04) || ZSTD_getFrameContentSize(fh, fhlen) != raw_len)
		return trace_bad_chunk(r, "does not hold one well-formed zstd "
					  "frame");

	/* pass 1: check everything, keep nothing */
	ret = trace_zstream_open(&r->zs, r->events_fd, off, clen);
	if (ret)
		return ret;
	r->streaming = 1;
	ZSTD_DCtx_setParameter(r->zs.ds, ZSTD_d_windowLogMax, 27);
	for (uint32_t i = 0; i < nevents; i++) {
		ret = stream_head(&r->zs, r->kind_max, r->evf_known, &ev, NULL,
				  &data);
		if (!ret && data > raw_len - consumed(&r->zs))
			ret = -1;
		if (!ret)
			ret = trace_zstream_read(&r->zs, NULL, data);
		if (ret)
			return stream_fail(r, ret, "holds a malformed event");
	}
	if (consumed(&r->zs) != raw_len)
		return stream_fail(r, -1, "has bytes after its last event");
	ret = trace_zstream_finish(&r->zs, check);
	if (ret)
		return stream_fail(r, ret,
				   "fails to decompress or has a bad "
				   "payload checksum");
	trace_stream_end(r);

	/* pass 2 starts: events are decoded as they are handed out */
	if (!r->writes || r->writes_cap < MRR_MAX_WRITES_PER_EVENT) {
		struct mrr_mem_write *w = realloc(
			r->writes, MRR_MAX_WRITES_PER_EVENT * sizeof(*w));

		if (!w)
			return -ENOMEM;
		r->writes = w;
		r->writes_cap = MRR_MAX_WRITES_PER_EVENT;
	}
	ret = trace_zstream_open(&r->zs, r->events_fd, off, clen);
	if (ret)
		return ret;
	r->streaming = 1;
	ZSTD_DCtx_setParameter(r->zs.ds, ZSTD_d_windowLogMax, 27);
	r->raw_len = 0;
	r->raw_pos = 0;
	r->chunk_left = nevents;
	r->offset += TRACE_CHUNK_HDR + (uint64_t)clen;
	r->chunk_index++;
	r->stats.chunks++;
	r->stats.raw_bytes += raw_len;
	r->stats.compressed_bytes += TRACE_CHUNK_HDR + (uint64_t)clen;
	return 1;
}

/* Skips the streamed bytes of the current event the caller did not read. */
static int skip_rest(mrr_trace_reader *r)
{
	int ret = trace_zstream_read(&r->zs, NULL, r->stream_left);

	r->stream_left = 0;
	return ret;
}

int trace_stream_next(mrr_trace_reader *r, struct mrr_event *ev)
{
	uint64_t data, inline_bytes;
	uint32_t i;
	size_t need;
	int ret;

	ret = skip_rest(r);
	if (!ret)
		ret = stream_head(&r->zs, r->kind_max, r->evf_known, ev,
				  r->writes, &data);
	if (ret)
		goto bad;
	/* the extra, then whole writes while they fit TRACE_STREAM_INLINE */
	inline_bytes = 0;
	for (i = 0; i < ev->nwrites; i++) {
		if (inline_bytes + r->writes[i].len > TRACE_STREAM_INLINE)
			break;
		inline_bytes += r->writes[i].len;
	}
	need = (size_t)(ev->extra_len + inline_bytes);
	if (need > r->evbuf_cap) {
		uint8_t *b = realloc(r->evbuf, need);

		if (!b)
			return -ENOMEM;
		r->evbuf = b;
		r->evbuf_cap = need;
	}
	ret = trace_zstream_read(&r->zs, r->evbuf, need);
	if (ret)
		goto bad;
	ev->extra = ev->extra_len ? r->evbuf : NULL;
	ev->writes = r->writes;
	need = ev->extra_len;
	for (uint32_t k = 0; k < i; k++) {
		r->writes[k].data = r->evbuf + need;
		need += (size_t)r->writes[k].len;
	}
	r->cur_nwrites = ev->nwrites;
	r->stream_idx = i;
	r->stream_off = 0;
	r->stream_left = data - ev->extra_len - inline_bytes;
	return 1;
bad:
	trace_stream_end(r);
	return ret < -1 ? ret : trace_bad_chunk(r, "holds a malformed event");
}

void trace_stream_end(mrr_trace_reader *r)
{
	if (!r->streaming)
		return;
	trace_zstream_close(&r->zs);
	r->streaming = 0;
	r->stream_left = 0;
	r->cur_nwrites = 0;
}

int mrr_trace_read_data(mrr_trace_reader *r, uint32_t i, void *buf, size_t len)
{
	int ret;

	if (!r->streaming || i >= r->cur_nwrites || i < r->stream_idx ||
	    r->writes[i].data)
		return -EINVAL;
	while (r->stream_idx < i) {
		uint64_t rest = r->writes[r->stream_idx].len - r->stream_off;

		ret = trace_zstream_read(&r->zs, NULL, rest);
		if (ret)
			goto bad;
		r->stream_left -= rest;
		r->stream_idx++;
		r->stream_off = 0;
	}
	if (len > r->writes[i].len - r->stream_off)
		return -EINVAL;
	ret = trace_zstream_read(&r->zs, buf, len);
	if (ret)
		goto bad;
	r->stream_off += len;
	r->stream_left -= len;
	return 0;
bad:
	/* pass 1 read the same bytes: only a file changed under us or an
	 * I/O error gets here */
	r->err = ret < -1 ? ret : trace_bad_chunk(r, "changed while read");
	trace_stream_end(r);
	return r->err;
}
