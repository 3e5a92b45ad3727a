/* libFuzzer target for the trace reader. The input is laid out as a trace
 * directory and read in full, with and without MRR_READER_FORCE.
 *
 * Input layout (the seed corpus in trace-format/corpus/ uses it too):
 *   u32 LE header_len, u32 LE commit_len (0xffffffff: no commit file),
 *   header_len bytes of "header", commit_len bytes of "commit", and the rest
 *   is "events". Lengths are cut to what the input holds.
 *
 * If the top bit of header_len is set, the "events" part is instead a list of
 * raw chunks, each u32 LE nevents, u32 LE raw_len and raw_len bytes of
 * encoded events; the harness compresses and frames them with valid
 * checksums, so that mutations reach the event decoder behind the checksums.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <zstd.h>

#include "mrr/trace.h"
#include "trace/format.h"
#include "trace/xxh64.h"

static char trace_dir[256];
static volatile uint64_t sink;

static void put_file(const char *name, const uint8_t *data, size_t len)
{
	char path[512];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", trace_dir, name);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		abort();
	while (len > 0) {
		ssize_t n = write(fd, data, len);

		if (n <= 0)
			abort();
		data += n;
		len -= (size_t)n;
	}
	close(fd);
}

static void remove_dir(void)
{
	const char *names[] = {"header", "commit",
			       "events", "files/0123456789abcdef-3",
			       "files",	 ""};
	char path[512];

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", trace_dir, names[i]);
		if (unlink(path))
			rmdir(path);
	}
}

static void setup_dir(void)
{
	const char *bases[] = {"/dev/shm", getenv("TMPDIR"), "/tmp"};
	char path[512];

	for (size_t i = 0; i < sizeof(bases) / sizeof(bases[0]); i++) {
		if (!bases[i])
			continue;
		snprintf(trace_dir, sizeof(trace_dir),
			 "%s/mrr-fuzz-trace-XXXXXX", bases[i]);
		if (mkdtemp(trace_dir))
			break;
		trace_dir[0] = 0;
	}
	if (!trace_dir[0])
		abort();
	atexit(remove_dir);
	snprintf(path, sizeof(path), "%s/files", trace_dir);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/files/0123456789abcdef-3", trace_dir);
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd >= 0) {
		if (write(fd, "abc", 3) != 3)
			abort();
		close(fd);
	}
}

/* Frames raw chunks as a writer would (see the layout above). */
static void put_raw_chunks(const uint8_t *data, size_t size)
{
	uint8_t *out = NULL;
	size_t len = 0;
	uint64_t seq = 0;
	static ZSTD_CCtx *cctx;

	if (!cctx) {
		cctx = ZSTD_createCCtx();
		if (!cctx || ZSTD_isError(ZSTD_CCtx_setParameter(
				     cctx, ZSTD_c_checksumFlag, 1)))
			abort();
	}
	while (size >= 8) {
		uint32_t nevents = get_le32(data);
		uint32_t raw_len = get_le32(data + 4);

		data += 8;
		size -= 8;
		if (raw_len > size)
			raw_len = (uint32_t)size;
		size_t bound = ZSTD_compressBound(raw_len);
		uint8_t *n = realloc(out, len + TRACE_CHUNK_HDR + bound);

		if (!n)
			abort();
		out = n;
		uint8_t *hdr = out + len;
		size_t clen = ZSTD_compress2(cctx, hdr + TRACE_CHUNK_HDR, bound,
					     data, raw_len);

		if (ZSTD_isError(clen))
			abort();
		put_le32(hdr, TRACE_CHUNK_MAGIC);
		put_le32(hdr + 4, (uint32_t)clen);
		put_le32(hdr + 8, raw_len);
		put_le32(hdr + 12, nevents);
		put_le64(hdr + 16, seq);
		put_le32(hdr + 24,
			 (uint32_t)trace_xxh64(hdr + TRACE_CHUNK_HDR, clen, 0));
		put_le32(hdr + 28, (uint32_t)trace_xxh64(hdr, 28, 0));
		len += TRACE_CHUNK_HDR + clen;
		seq += nevents;
		data += raw_len;
		size -= raw_len;
	}
	put_file("events", out ? out : (const uint8_t *)"", len);
	free(out);
}

static int count_file(const char *name, uint64_t size, void *arg)
{
	*(uint64_t *)arg += size + strlen(name);
	return 0;
}

static void read_trace(unsigned flags, const char *name)
{
	mrr_trace_reader *r = NULL;
	struct mrr_event ev;
	char err[256], path[512];
	uint64_t acc = 0;
	int ret;

	ret = mrr_trace_open(trace_dir, flags, &r, err, sizeof(err));
	if (ret) {
		if (r || !err[0])
			abort();
		return;
	}
	const struct mrr_trace_info *info = mrr_trace_info(r);

	acc += strlen(info->cwd) + strlen(info->exe) + strlen(info->kernel);
	for (size_t i = 0; i < info->argv_len; i++)
		acc += (uint8_t)info->argv[i];
	for (size_t i = 0; i < info->env_len; i++)
		acc += (uint8_t)info->env[i];
	while ((ret = mrr_trace_next(r, &ev)) == 1) {
		acc += ev.seq + ev.kind + ev.nwrites;
		for (uint32_t i = 0; i < ev.nwrites; i++) {
			const uint8_t *d = ev.writes[i].data;

			if (!d) {
				/* streamed: read it in odd-sized pieces */
				uint8_t piece[700];
				uint64_t left = ev.writes[i].len;

				if (!(flags & MRR_READER_STREAM))
					abort();
				while (left) {
					size_t n = left < sizeof(piece)
							   ? (size_t)left
							   : sizeof(piece);

					if (mrr_trace_read_data(r, i, piece, n))
						break;
					acc += piece[n - 1];
					left -= n;
				}
				continue;
			}

			for (uint64_t j = 0; j < ev.writes[i].len; j += 61)
				acc += d[j];
			if (ev.writes[i].len)
				acc += d[ev.writes[i].len - 1];
		}
		for (uint32_t i = 0; i < ev.extra_len; i++)
			acc += ((const uint8_t *)ev.extra)[i];
	}
	if (ret < 0 && !mrr_trace_error_message(r)[0])
		abort();
	if ((flags & MRR_READER_FORCE) && ret < 0 && ret > -1000)
		abort(); /* salvage stops cleanly; only I/O may fail */
	enum mrr_trace_end end;
	const char *msg = NULL;

	if (mrr_trace_committed(r, &end, &msg))
		acc += end + strlen(msg);
	acc += mrr_trace_event_count(r);
	struct mrr_trace_stats st;

	mrr_trace_stats(r, &st);
	acc += st.chunks + st.raw_bytes + st.files;
	if (mrr_trace_for_each_file(r, count_file, &acc) < 0)
		abort();
	if (mrr_trace_file_path(r, name, path, sizeof(path)) == 0)
		acc += strlen(path);
	sink += acc;
	mrr_trace_close(r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint32_t hlen, clen;
	char name[72];

	if (!trace_dir[0])
		setup_dir();
	if (size < 8)
		return 0;
	hlen = get_le32(data);
	clen = get_le32(data + 4);
	data += 8;
	size -= 8;
	int raw_mode = !!(hlen & 0x80000000u);

	hlen &= 0x7fffffffu;
	if (hlen > size)
		hlen = (uint32_t)size;
	put_file("header", data, hlen);
	data += hlen;
	size -= hlen;
	char commit_path[512];

	snprintf(commit_path, sizeof(commit_path), "%s/commit", trace_dir);
	if (clen == UINT32_MAX) {
		unlink(commit_path);
	} else {
		if (clen > size)
			clen = (uint32_t)size;
		put_file("commit", data, clen);
		data += clen;
		size -= clen;
	}
	if (raw_mode)
		put_raw_chunks(data, size);
	else
		put_file("events", data, size);

	/* A stored-file name to look up, taken from the input's tail. */
	size_t nlen = size < sizeof(name) - 1 ? size : sizeof(name) - 1;

	memcpy(name, data + size - nlen, nlen);
	name[nlen] = 0;
	read_trace(0, name);
	read_trace(MRR_READER_FORCE, name);
	read_trace(MRR_READER_STREAM, name);
	read_trace(MRR_READER_FORCE | MRR_READER_STREAM, name);
	return 0;
}
