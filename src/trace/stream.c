/* Piecewise decompression of one chunk (stream.h). Everything it reads is
 * untrusted: the decoder's own checks (and the frame's content checksum) run
 * as the bytes go by, and trace_zstream_finish() adds the chunk's. */
#include "trace/stream.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "trace/io.h"

#define ZS_IN_SIZE  (128u << 10)
#define ZS_OUT_SIZE (64u << 10)

int trace_zstream_open(struct trace_zstream *zs, int fd, uint64_t off,
		       uint64_t clen)
{
	memset(zs, 0, sizeof(*zs));
	zs->fd = fd;
	zs->in_off = off;
	zs->in_end = off + clen;
	zs->ds = ZSTD_createDStream();
	zs->in = malloc(ZS_IN_SIZE);
	zs->out = malloc(ZS_OUT_SIZE);
	if (!zs->ds || !zs->in || !zs->out) {
		trace_zstream_close(zs);
		return -ENOMEM;
	}
	ZSTD_initDStream(zs->ds);
	trace_xxh64_init(&zs->hash, 0);
	return 0;
}

void trace_zstream_close(struct trace_zstream *zs)
{
	ZSTD_freeDStream(zs->ds);
	free(zs->in);
	free(zs->out);
	memset(zs, 0, sizeof(*zs));
}

/* Decompresses into dst (at most cap bytes). Returns the bytes produced
 * (0 only at the end of the frame), -1 or -errno. */
static long zs_fill(struct trace_zstream *zs, uint8_t *dst, size_t cap)
{
	ZSTD_outBuffer out = {dst, cap, 0};

	while (out.pos == 0) {
		ZSTD_inBuffer in;
		size_t ret;

		if (zs->frame_done)
			return 0;
		if (zs->in_pos == zs->in_len && zs->in_off < zs->in_end) {
			size_t want = ZS_IN_SIZE;
			ssize_t n;

			if (zs->in_end - zs->in_off < want)
				want = (size_t)(zs->in_end - zs->in_off);
			n = trace_pread_all(zs->fd, zs->in, want, zs->in_off);
			if (n < 0)
				return n;
			if ((size_t)n < want)
				return -1; /* the file ends inside the frame */
			trace_xxh64_update(&zs->hash, zs->in, want);
			zs->in_off += want;
			zs->in_len = want;
			zs->in_pos = 0;
		}
		in.src = zs->in;
		in.size = zs->in_len;
		in.pos = zs->in_pos;
		ret = ZSTD_decompressStream(zs->ds, &out, &in);
		zs->in_pos = in.pos;
		if (ZSTD_isError(ret))
			return -1;
		if (ret == 0)
			zs->frame_done = 1;
		else if (out.pos == 0 && zs->in_pos == zs->in_len &&
			 zs->in_off == zs->in_end)
			return -1; /* input used up inside the frame */
	}
	zs->produced += out.pos;
	return (long)out.pos;
}

int trace_zstream_read(struct trace_zstream *zs, void *dst, uint64_t len)
{
	uint8_t *d = dst;

	while (len) {
		size_t n = zs->out_len - zs->out_pos;
		long got;

		if (n) {
			if (n > len)
				n = (size_t)len;
			if (d) {
				memcpy(d, zs->out + zs->out_pos, n);
				d += n;
			}
			zs->out_pos += n;
			len -= n;
			continue;
		}
		/* big reads go straight to the caller's buffer */
		if (d && len >= ZS_OUT_SIZE) {
			got = zs_fill(zs, d, len > (1u << 30) ? 1u << 30 : len);
			if (got <= 0)
				return got < 0 ? (int)got : -1;
			d += got;
			len -= (uint64_t)got;
			continue;
		}
		got = zs_fill(zs, zs->out, ZS_OUT_SIZE);
		if (got <= 0)
			return got < 0 ? (int)got : -1;
		zs->out_len = (size_t)got;
		zs->out_pos = 0;
	}
	return 0;
}

int trace_zstream_varint(struct trace_zstream *zs, uint64_t *out)
{
	uint64_t v = 0;

	for (int i = 0; i < 10; i++) {
		uint8_t b;
		int ret = trace_zstream_read(zs, &b, 1);

		if (ret)
			return ret;
		if (i == 9 && b > 1)
			return -1;
		v |= (uint64_t)(b & 0x7f) << (7 * i);
		if (!(b & 0x80)) {
			*out = v;
			return 0;
		}
	}
	return -1;
}

int trace_zstream_finish(struct trace_zstream *zs, uint32_t check)
{
	uint8_t extra;
	long got;

	if (zs->out_pos != zs->out_len)
		return -1; /* content left over */
	/* the decoder must see the frame's end (and its checksum) */
	got = zs_fill(zs, &extra, 1);
	if (got != 0)
		return got < 0 ? (int)got : -1;
	if (zs->in_pos != zs->in_len || zs->in_off != zs->in_end)
		return -1; /* bytes after the frame */
	if ((uint32_t)trace_xxh64_digest(&zs->hash) != check)
		return -1;
	return 0;
}
