/* Trace reader. Everything read from disk is untrusted: every length and count
 * is checked against the file it came from and the format's limits before it
 * is used, and a chunk is only handed out after its checksums and all of its
 * events have been verified (trace-format/FORMAT.md, "Readers"). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <zstd.h>

#include "mrr/trace.h"
#include "trace/format.h"
#include "trace/io.h"
#include "trace/reader_int.h"
#include "trace/xxh64.h"

#define ZSTD_FRAME_MAGIC 0xfd2fb528u

static void set_msg(char *buf, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void set_msg(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;

	if (!buf || !len)
		return;
	va_start(ap, fmt);
	vsnprintf(buf, len, fmt, ap);
	va_end(ap);
}

static int grow(void **buf, size_t *cap, size_t need, size_t elem)
{
	void *nbuf;

	if (need <= *cap)
		return 0;
	nbuf = realloc(*buf, need * elem);
	if (!nbuf)
		return -ENOMEM;
	*buf = nbuf;
	*cap = need;
	return 0;
}

/* Reads a whole small file (at most max bytes) into a new buffer. */
static int read_small_file(int dir_fd, const char *name, size_t max,
			   uint8_t **out, size_t *out_len)
{
	struct stat st;
	uint8_t *buf;
	ssize_t n;
	int fd, ret = 0;

	/* Non-blocking and not following links: a FIFO planted as a trace
	 * file would block the open itself for ever. */
	fd = openat(dir_fd, name,
		    O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOFOLLOW);
	if (fd < 0)
		return errno == ELOOP ? -EFBIG : -errno;
	if (fstat(fd, &st)) {
		ret = -errno;
		goto out_close_fd;
	}
	if (!S_ISREG(st.st_mode) || (uint64_t)st.st_size > max) {
		ret = -EFBIG;
		goto out_close_fd;
	}
	buf = malloc(st.st_size ? (size_t)st.st_size : 1);
	if (!buf) {
		ret = -ENOMEM;
		goto out_close_fd;
	}
	n = trace_pread_all(fd, buf, (size_t)st.st_size, 0);
	if (n < 0) {
		free(buf);
		ret = (int)n;
		goto out_close_fd;
	}
	*out = buf;
	*out_len = (size_t)n;
out_close_fd:
	close(fd);
	return ret;
}

/* Takes a NUL-terminated string field of exactly len bytes at *p. */
static int take_string(const uint8_t **p, size_t len, const char **out)
{
	if (len == 0 || (*p)[len - 1] != 0 ||
	    memchr(*p, 0, len) != *p + len - 1)
		return -1;
	*out = (const char *)*p;
	*p += len;
	return 0;
}

static int parse_header(mrr_trace_reader *r, size_t len, char *errbuf,
			size_t errlen)
{
	const uint8_t *h = r->header, *p;
	uint32_t version, cwd_len, exe_len, argv_len, env_len;
	uint64_t total;

	if (len < 8 || memcmp(h, TRACE_HEADER_MAGIC, 8)) {
		set_msg(errbuf, errlen,
			"%s is not an mrr trace: its header file has no trace "
			"magic",
			r->dir);
		return MRR_E_NOT_TRACE;
	}
	if (len < 20 || trace_xxh64(h, len - 8, 0) != get_le64(h + len - 8))
		goto corrupt;
	version = get_le32(h + 8);
	if (version < MRR_TRACE_FORMAT_VERSION_MIN ||
	    version > MRR_TRACE_FORMAT_VERSION) {
		set_msg(errbuf, errlen,
			"trace %s has format version %" PRIu32
			"; this mrr reads versions %d to %d",
			r->dir, version, MRR_TRACE_FORMAT_VERSION_MIN,
			MRR_TRACE_FORMAT_VERSION);
		return MRR_E_VERSION;
	}
	/* Kinds a version knows: a version-1 trace holding a later kind is
	 * corrupt, not newer. */
	r->kind_max = version == 1 ? MRR_EV_KIND_MAX_V1 : MRR_EV_KIND_MAX;
	r->evf_known = version < 3 ? TRACE_KNOWN_EVF_V2 : TRACE_KNOWN_EVF;
	if (len < TRACE_HEADER_FIXED + 8 || get_le32(h + 12) != len)
		goto corrupt;
	cwd_len = get_le32(h + 336);
	exe_len = get_le32(h + 340);
	argv_len = get_le32(h + 344);
	env_len = get_le32(h + 348);
	total = (uint64_t)TRACE_HEADER_FIXED + cwd_len + exe_len + argv_len +
		env_len + 8;
	if (total != len)
		goto corrupt;
	if (h[48 + 31] || h[80 + 127] || h[208 + 127])
		goto corrupt;
	r->info.format_version = version;
	r->info.flags = get_le32(h + 16);
	r->info.syscallbuf_abi = get_le32(h + 20);
	r->info.start_time_ns = (int64_t)get_le64(h + 24);
	memcpy(r->info.mrr_version, h + 48, 32);
	memcpy(r->info.kernel, h + 80, 128);
	memcpy(r->info.cpu, h + 208, 128);
	p = h + TRACE_HEADER_FIXED;
	if (take_string(&p, cwd_len, &r->info.cwd) ||
	    take_string(&p, exe_len, &r->info.exe))
		goto corrupt;
	if ((argv_len && p[argv_len - 1]) ||
	    (env_len && p[argv_len + env_len - 1]))
		goto corrupt;
	r->info.argv = (const char *)p;
	r->info.argv_len = argv_len;
	p += argv_len;
	r->info.env = (const char *)p;
	r->info.env_len = env_len;
	r->header_check = get_le64(h + len - 8);
	return 0;
corrupt:
	set_msg(errbuf, errlen,
		"trace %s is corrupt: its header file is damaged", r->dir);
	return MRR_E_CORRUPT;
}

/* Returns 1 for a valid commit, 0 if there is none, MRR_E_CORRUPT if it is
 * damaged, or -errno. */
static int read_commit(mrr_trace_reader *r)
{
	uint8_t *c = NULL;
	size_t len;
	uint32_t mlen, end;
	int ret;

	ret = read_small_file(r->dir_fd, TRACE_COMMIT_NAME,
			      TRACE_COMMIT_FIXED + TRACE_MESSAGE_MAX + 8, &c,
			      &len);
	if (ret == -ENOENT)
		return 0;
	if (ret == -EFBIG)
		return MRR_E_CORRUPT;
	if (ret)
		return ret;
	ret = MRR_E_CORRUPT;
	if (len < TRACE_COMMIT_FIXED + 8 || memcmp(c, TRACE_COMMIT_MAGIC, 8) ||
	    trace_xxh64(c, len - 8, 0) != get_le64(c + len - 8))
		goto out_free;
	mlen = get_le32(c + 48);
	end = get_le32(c + 12);
	if (get_le32(c + 8) != r->info.format_version ||
	    mlen > TRACE_MESSAGE_MAX || TRACE_COMMIT_FIXED + mlen + 8 != len ||
	    end < MRR_END_COMPLETE || end > MRR_END_ERROR ||
	    get_le64(c + 40) != r->header_check ||
	    memchr(c + TRACE_COMMIT_FIXED, 0, mlen))
		goto out_free;
	r->message = malloc(mlen + 1);
	if (!r->message) {
		ret = -ENOMEM;
		goto out_free;
	}
	memcpy(r->message, c + TRACE_COMMIT_FIXED, mlen);
	r->message[mlen] = 0;
	r->end = (enum mrr_trace_end)end;
	r->commit_events = get_le64(c + 16);
	r->commit_chunks = get_le64(c + 24);
	r->commit_stream_len = get_le64(c + 32);
	ret = 1;
out_free:
	free(c);
	return ret;
}

/* Reads one varint; returns 0 or -1 if it runs past end or overflows. */
static int get_varint(const uint8_t **pp, const uint8_t *end, uint64_t *out)
{
	const uint8_t *p = *pp;
	uint64_t v = 0;

	for (int i = 0; i < 10; i++) {
		if (p >= end)
			return -1;
		uint8_t b = *p++;

		if (i == 9 && b > 1)
			return -1;
		v |= (uint64_t)(b & 0x7f) << (7 * i);
		if (!(b & 0x80)) {
			*pp = p;
			*out = v;
			return 0;
		}
	}
	return -1;
}

/* Decodes one event at *pp. With writes == NULL it only validates. Returns 0
 * or -1 if the bytes are not a valid event. */
static int parse_event(const uint8_t **pp, const uint8_t *end,
		       uint32_t kind_max, uint32_t evf_known,
		       struct mrr_event *ev, struct mrr_mem_write *writes)
{
	const uint8_t *p = *pp, *data;
	uint64_t v[14], sum;

	for (int i = 0; i < 14; i++) {
		if (get_varint(&p, end, &v[i]))
			return -1;
	}
	if (v[0] < MRR_EV_EXEC || v[0] > kind_max ||
	    (v[1] & ~(uint64_t)evf_known))
		return -1;
	int64_t tid = unzigzag(v[2]);

	if (tid < INT32_MIN || tid > INT32_MAX)
		return -1;
	if (v[12] > MRR_MAX_WRITES_PER_EVENT || v[13] > MRR_MAX_EXTRA_BYTES ||
	    v[12] * 2 > (uint64_t)(end - p))
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

		if (get_varint(&p, end, &addr) || get_varint(&p, end, &len))
			return -1;
		if (len > MRR_MAX_EVENT_BYTES ||
		    (addr + len < addr && addr + len != 0))
			return -1;
		sum += len;
		if (sum > MRR_MAX_EVENT_BYTES)
			return -1;
		if (writes) {
			writes[i].addr = addr;
			writes[i].len = len;
		}
	}
	if (sum > (uint64_t)(end - p))
		return -1;
	ev->extra = ev->extra_len ? p : NULL;
	data = p + ev->extra_len;
	for (uint32_t i = 0; writes && i < ev->nwrites; i++) {
		writes[i].data = data;
		data += writes[i].len;
	}
	ev->writes = writes;
	*pp = p + sum;
	return 0;
}

/* Describes why the chunk at the current position is unusable. */
int trace_bad_chunk(mrr_trace_reader *r, const char *why)
{
	set_msg(r->errmsg, sizeof(r->errmsg),
		"trace %s is corrupt: chunk %" PRIu64 " at byte offset %" PRIu64
		" of the event stream %s",
		r->dir, r->chunk_index, r->offset, why);
	return MRR_E_CORRUPT;
}

/* Checks the parts of the zstd frame header the format pins down: a single
 * regular frame of exactly clen bytes with its content size and content
 * checksum. */
static int check_frame(const uint8_t *f, size_t clen, uint32_t raw_len)
{
	if (clen < 6 || get_le32(f) != ZSTD_FRAME_MAGIC || !(f[4] & 0x04))
		return -1;
	if (ZSTD_findFrameCompressedSize(f, clen) != clen)
		return -1;
	if (ZSTD_getFrameContentSize(f, clen) != raw_len)
		return -1;
	return 0;
}

static int load_chunk_here(mrr_trace_reader *r)
{
	uint8_t hdr[TRACE_CHUNK_HDR];
	uint64_t left = r->stream_end - r->offset;
	uint32_t clen, raw_len, nevents;
	ssize_t n;
	size_t got;
	int ret;

	trace_stream_end(r);
	if (left == 0)
		return 0;
	/* Lengths are checked against what the file really holds, so that no
	 * allocation exceeds it. */
	if (r->offset >= r->file_size)
		left = 0;
	else if (left > r->file_size - r->offset)
		left = r->file_size - r->offset;
	if (left < TRACE_CHUNK_HDR)
		return trace_bad_chunk(r, "is cut short in its header");
	n = trace_pread_all(r->events_fd, hdr, sizeof(hdr), r->offset);
	if (n < 0)
		return (int)n;
	if ((size_t)n < sizeof(hdr))
		return trace_bad_chunk(r, "is cut short in its header");
	if (get_le32(hdr) != TRACE_CHUNK_MAGIC)
		return trace_bad_chunk(r, "has no chunk magic");
	if (get_le32(hdr + 28) != (uint32_t)trace_xxh64(hdr, 28, 0))
		return trace_bad_chunk(r, "has a bad header checksum");
	clen = get_le32(hdr + 4);
	raw_len = get_le32(hdr + 8);
	nevents = get_le32(hdr + 12);
	if (get_le64(hdr + 16) != r->next_seq)
		return trace_bad_chunk(
			r, "does not start with the next event number");
	if (raw_len > TRACE_CHUNK_RAW_READ_MAX || nevents == 0 ||
	    nevents > raw_len / TRACE_EVENT_MIN ||
	    clen > ZSTD_compressBound(raw_len))
		return trace_bad_chunk(r,
				       "has impossible lengths in its header");
	if (clen > left - TRACE_CHUNK_HDR)
		return trace_bad_chunk(
			r, "is cut short (the stream ends inside it)");
	if ((r->flags & MRR_READER_STREAM) && raw_len > TRACE_STREAM_MIN)
		return trace_stream_chunk(r, clen, raw_len, nevents,
					  get_le32(hdr + 24));
	ret = grow((void **)&r->comp, &r->comp_cap, clen ? clen : 1, 1);
	if (ret)
		return ret;
	n = trace_pread_all(r->events_fd, r->comp, clen,
			    r->offset + TRACE_CHUNK_HDR);
	if (n < 0)
		return (int)n;
	if ((size_t)n < clen)
		return trace_bad_chunk(
			r, "is cut short (the stream ends inside it)");
	if (get_le32(hdr + 24) != (uint32_t)trace_xxh64(r->comp, clen, 0))
		return trace_bad_chunk(r, "has a bad payload checksum");
	if (check_frame(r->comp, clen, raw_len))
		return trace_bad_chunk(
			r, "does not hold one well-formed zstd frame");
	ret = grow((void **)&r->raw, &r->raw_cap, raw_len ? raw_len : 1, 1);
	if (ret)
		return ret;
	got = ZSTD_decompressDCtx(r->dctx, r->raw, raw_len, r->comp, clen);
	if (ZSTD_isError(got) || got != raw_len)
		return trace_bad_chunk(r, "fails to decompress");

	/* Verify every event now so a chunk is used whole or not at all. */
	const uint8_t *p = r->raw, *end = r->raw + raw_len;
	struct mrr_event ev;

	uint32_t max_writes = 1;

	for (uint32_t i = 0; i < nevents; i++) {
		if (parse_event(&p, end, r->kind_max, r->evf_known, &ev, NULL))
			return trace_bad_chunk(r, "holds a malformed event");
		if (ev.nwrites > max_writes)
			max_writes = ev.nwrites;
	}
	if (p != end)
		return trace_bad_chunk(r, "has bytes after its last event");
	ret = grow((void **)&r->writes, &r->writes_cap, max_writes,
		   sizeof(*r->writes));
	if (ret)
		return ret;

	r->raw_len = raw_len;
	r->raw_pos = 0;
	r->chunk_left = nevents;
	r->offset += TRACE_CHUNK_HDR + (uint64_t)clen;
	r->chunk_index++;
	r->stats.chunks++;
	r->stats.raw_bytes += raw_len;
	r->stats.compressed_bytes += TRACE_CHUNK_HDR + (uint64_t)clen;
	return 1;
}

/* Loads and fully verifies the chunk at r->offset, and notes where it began
 * in the seek index. Returns 1 when loaded, 0 at the clean end of the
 * stream, MRR_E_CORRUPT (message in r->errmsg) or -errno. */
static int load_chunk(mrr_trace_reader *r)
{
	uint64_t offset = r->offset;
	int ret = load_chunk_here(r);

	if (ret == 1 && trace_index_chunk(r, offset, r->next_seq))
		return -ENOMEM;
	return ret;
}

/* Checks that a committed stream ended where its commit says. */
static int check_commit_end(mrr_trace_reader *r)
{
	if (r->chunk_index != r->commit_chunks ||
	    r->next_seq != r->commit_events) {
		set_msg(r->errmsg, sizeof(r->errmsg),
			"trace %s is corrupt: the commit says it holds %" PRIu64
			" events in %" PRIu64
			" chunks but the stream holds %" PRIu64
			" events in %" PRIu64 " chunks",
			r->dir, r->commit_events, r->commit_chunks, r->next_seq,
			r->chunk_index);
		return MRR_E_CORRUPT;
	}
	if (r->file_size > r->commit_stream_len) {
		set_msg(r->errmsg, sizeof(r->errmsg),
			"trace %s is corrupt: its event stream has %" PRIu64
			" bytes after the end the commit records",
			r->dir, r->file_size - r->commit_stream_len);
		return MRR_E_CORRUPT;
	}
	return 0;
}

static void rewind_stream(mrr_trace_reader *r)
{
	trace_stream_end(r);
	r->offset = 0;
	r->chunk_index = 0;
	r->next_seq = 0;
	r->chunk_left = 0;
	r->raw_len = 0;
	r->raw_pos = 0;
	r->err = 0;
	r->done = 0;
	memset(&r->stats, 0, sizeof(r->stats));
	r->errmsg[0] = 0;
}

/* Counts the events of the longest valid prefix (what FORCE would read). */
static int count_valid_events(mrr_trace_reader *r, uint64_t *count)
{
	int ret;

	while ((ret = load_chunk(r)) == 1)
		r->next_seq += r->chunk_left;
	if (ret < 0 && ret != MRR_E_CORRUPT)
		return ret;
	*count = r->next_seq;
	rewind_stream(r);
	return 0;
}

int mrr_trace_open(const char *dir, unsigned flags, mrr_trace_reader **out,
		   char *errbuf, size_t errlen)
{
	mrr_trace_reader *r;
	struct stat st;
	size_t hlen;
	int ret;

	*out = NULL;
	set_msg(errbuf, errlen, "%s", "");
	if (!dir || (flags & ~(MRR_READER_FORCE | MRR_READER_STREAM))) {
		set_msg(errbuf, errlen, "invalid arguments to mrr_trace_open");
		return -EINVAL;
	}
	r = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	r->dir_fd = -1;
	r->events_fd = -1;
	r->flags = flags;
	r->dir = strdup(dir);
	r->dctx = ZSTD_createDCtx();
	if (!r->dir || !r->dctx) {
		ret = -ENOMEM;
		goto out_close;
	}
	r->dir_fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (r->dir_fd < 0) {
		ret = -errno;
		if (ret == -ENOENT) {
			set_msg(errbuf, errlen, "trace %s does not exist", dir);
		} else if (ret == -ENOTDIR) {
			set_msg(errbuf, errlen,
				"%s is not an mrr trace: it is not a directory",
				dir);
			ret = MRR_E_NOT_TRACE;
		} else {
			set_msg(errbuf, errlen, "cannot open trace %s: %s", dir,
				strerror(-ret));
		}
		goto out_close;
	}
	ret = read_small_file(r->dir_fd, TRACE_HEADER_NAME, TRACE_HEADER_MAX,
			      &r->header, &hlen);
	if (ret == -ENOENT) {
		set_msg(errbuf, errlen,
			"%s is not an mrr trace: it has no header file", dir);
		ret = MRR_E_NOT_TRACE;
		goto out_close;
	}
	if (ret == -EFBIG) {
		set_msg(errbuf, errlen,
			"%s is not an mrr trace: its header is not a small "
			"regular file",
			dir);
		ret = MRR_E_NOT_TRACE;
		goto out_close;
	}
	if (ret) {
		set_msg(errbuf, errlen,
			"cannot read the header of trace %s: %s", dir,
			strerror(-ret));
		goto out_close;
	}
	ret = parse_header(r, hlen, errbuf, errlen);
	if (ret)
		goto out_close;

	r->events_fd = openat(r->dir_fd, TRACE_EVENTS_NAME,
			      O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOFOLLOW);
	if (r->events_fd < 0 && errno != ENOENT && errno != ELOOP) {
		ret = -errno;
		set_msg(errbuf, errlen,
			"cannot open the event stream of trace %s: %s", dir,
			strerror(-ret));
		goto out_close;
	}
	if (r->events_fd < 0 || fstat(r->events_fd, &st) ||
	    !S_ISREG(st.st_mode)) {
		ret = MRR_E_CORRUPT;
		set_msg(errbuf, errlen,
			"trace %s is corrupt: its event stream is missing "
			"or not a regular file",
			dir);
		goto out_close;
	}
	r->file_size = (uint64_t)st.st_size;

	ret = read_commit(r);
	if (ret < 0 && ret != MRR_E_CORRUPT) {
		set_msg(errbuf, errlen,
			"cannot read the commit of trace %s: %s", dir,
			strerror(-ret));
		goto out_close;
	}
	if (ret == MRR_E_CORRUPT && !(flags & MRR_READER_FORCE)) {
		set_msg(errbuf, errlen,
			"trace %s is corrupt: its commit file is damaged "
			"(--force reads the events before the damage)",
			dir);
		goto out_close;
	}
	r->committed = ret == 1;
	if (r->committed) {
		r->stream_end = r->commit_stream_len;
		/* Salvaging never reads past the end of the file. */
		if ((flags & MRR_READER_FORCE) && r->stream_end > r->file_size)
			r->stream_end = r->file_size;
	} else {
		r->stream_end = r->file_size;
	}

	if (!r->committed && !(flags & MRR_READER_FORCE)) {
		uint64_t count = 0;

		ret = count_valid_events(r, &count);
		if (ret) {
			set_msg(errbuf, errlen,
				"cannot read the events of trace %s: %s", dir,
				strerror(-ret));
			goto out_close;
		}
		set_msg(errbuf, errlen,
			"trace %s is incomplete: recording did not finish (the "
			"recorder was killed or crashed); %" PRIu64
			" of its events can be read with --force",
			dir, count);
		ret = MRR_E_INCOMPLETE;
		goto out_close;
	}
	*out = r;
	return 0;
out_close:
	mrr_trace_close(r);
	return ret;
}

void mrr_trace_close(mrr_trace_reader *r)
{
	if (!r)
		return;
	trace_stream_end(r);
	free(r->evbuf);
	if (r->events_fd >= 0)
		close(r->events_fd);
	if (r->dir_fd >= 0)
		close(r->dir_fd);
	ZSTD_freeDCtx(r->dctx);
	free(r->comp);
	free(r->raw);
	free(r->writes);
	free(r->index);
	free(r->header);
	free(r->message);
	free(r->dir);
	free(r);
}

const struct mrr_trace_info *mrr_trace_info(const mrr_trace_reader *r)
{
	return &r->info;
}

int mrr_trace_next(mrr_trace_reader *r, struct mrr_event *ev)
{
	const uint8_t *p;
	int ret;

	if (r->err)
		return r->err;
	if (r->done)
		return 0;
	while (r->chunk_left == 0) {
		ret = load_chunk(r);
		if (ret == 1)
			break;
		if (ret == 0 && r->committed)
			ret = check_commit_end(r);
		if (ret == MRR_E_CORRUPT && (r->flags & MRR_READER_FORCE))
			ret = 0; /* the message says where salvage stopped */
		if (ret == 0) {
			r->done = 1;
			return 0;
		}
		if (ret != MRR_E_CORRUPT)
			set_msg(r->errmsg, sizeof(r->errmsg),
				"cannot read the event stream of trace %s: %s",
				r->dir, strerror(-ret));
		r->err = ret;
		return ret;
	}
	if (r->streaming) {
		ret = trace_stream_next(r, ev);
		if (ret != 1) {
			r->err = ret;
			return ret;
		}
		ev->seq = r->next_seq++;
		r->chunk_left--;
		return 1;
	}
	/* The chunk was verified whole by load_chunk(), which also sized
	 * r->writes for its biggest event. */
	p = r->raw + r->raw_pos;
	if (parse_event(&p, r->raw + r->raw_len, r->kind_max, r->evf_known, ev,
			r->writes)) {
		r->err = trace_bad_chunk(r, "holds a malformed event");
		return r->err;
	}
	ev->seq = r->next_seq++;
	r->raw_pos = (size_t)(p - r->raw);
	r->chunk_left--;
	return 1;
}

const char *mrr_trace_error_message(const mrr_trace_reader *r)
{
	return r->errmsg;
}

int mrr_trace_committed(const mrr_trace_reader *r, enum mrr_trace_end *end,
			const char **message)
{
	if (!r->committed)
		return 0;
	if (end)
		*end = r->end;
	if (message)
		*message = r->message;
	return 1;
}

uint64_t mrr_trace_event_count(const mrr_trace_reader *r)
{
	return r->committed ? r->commit_events : 0;
}

struct stats_acc {
	uint64_t files;
	uint64_t bytes;
};

static int count_file(const char *name, uint64_t size, void *arg)
{
	struct stats_acc *acc = arg;

	acc->files++;
	acc->bytes += size;
	return 0;
}

void mrr_trace_stats(const mrr_trace_reader *r, struct mrr_trace_stats *out)
{
	struct stats_acc acc = {0, 0};

	*out = r->stats;
	if (mrr_trace_for_each_file(r, count_file, &acc) == 0) {
		out->files = acc.files;
		out->file_bytes = acc.bytes;
	}
}

int mrr_trace_file_path(const mrr_trace_reader *r, const char *name, char *buf,
			size_t buflen)
{
	struct stat st;
	char rel[MRR_STORED_NAME_MAX + sizeof(TRACE_FILES_DIR) + 1];
	int n;

	if (!trace_valid_stored_name(name))
		return -EINVAL;
	snprintf(rel, sizeof(rel), "%s/%s", TRACE_FILES_DIR, name);
	if (fstatat(r->dir_fd, rel, &st, AT_SYMLINK_NOFOLLOW))
		return -errno;
	if (!S_ISREG(st.st_mode))
		return -ENOENT;
	n = snprintf(buf, buflen, "%s/%s", r->dir, rel);
	if (n < 0 || (size_t)n >= buflen)
		return -ENAMETOOLONG;
	return 0;
}

int mrr_trace_file_verify(const mrr_trace_reader *r, const char *name)
{
	struct trace_xxh64_state hs;
	struct stat st;
	char rel[MRR_STORED_NAME_MAX + sizeof(TRACE_FILES_DIR) + 1];
	uint64_t want_hash, want_size, size = 0;
	char *end;
	int fd, err;

	if (!trace_valid_stored_name(name))
		return -EINVAL;
	want_hash = strtoull(name, &end, 16);
	if (*end != '-')
		return -EINVAL;
	want_size = strtoull(end + 1, NULL, 16);
	snprintf(rel, sizeof(rel), "%s/%s", TRACE_FILES_DIR, name);
	fd = openat(r->dir_fd, rel,
		    O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	if (fd < 0)
		return errno == ELOOP ? -ENOENT : -errno;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		close(fd);
		return -ENOENT;
	}
	trace_xxh64_init(&hs, 0);
	err = trace_hash_file(fd, -1, &hs, &size);
	close(fd);
	if (err)
		return err;
	if (size != want_size || trace_xxh64_digest(&hs) != want_hash)
		return MRR_E_CORRUPT;
	return 0;
}

int mrr_trace_for_each_file(const mrr_trace_reader *r,
			    int (*fn)(const char *name, uint64_t size,
				      void *arg),
			    void *arg)
{
	struct dirent *de;
	struct stat st;
	DIR *d;
	int fd, ret = 0;

	fd = openat(r->dir_fd, TRACE_FILES_DIR,
		    O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? 0 : -errno;
	d = fdopendir(fd);
	if (!d) {
		ret = -errno;
		close(fd);
		return ret;
	}
	while ((de = readdir(d))) {
		/* Leftover temporary files of a crashed writer are skipped. */
		if (!trace_valid_stored_name(de->d_name))
			continue;
		if (fstatat(fd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) ||
		    !S_ISREG(st.st_mode))
			continue;
		ret = fn(de->d_name, (uint64_t)st.st_size, arg);
		if (ret)
			break;
	}
	closedir(d);
	return ret;
}
