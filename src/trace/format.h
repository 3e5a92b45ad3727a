/* On-disk layout constants and byte helpers shared by the trace writer and
 * reader (private to src/trace). trace-format/FORMAT.md is the normative
 * description; every constant here is named there.
 */
#ifndef MRR_TRACE_FORMAT_H
#define MRR_TRACE_FORMAT_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "mrr/trace.h"

/* File names inside a trace directory. */
#define TRACE_HEADER_NAME "header"
#define TRACE_HEADER_TMP  ".header.tmp"
#define TRACE_EVENTS_NAME "events"
#define TRACE_COMMIT_NAME "commit"
#define TRACE_COMMIT_TMP  ".commit.tmp"
#define TRACE_FILES_DIR	  "files"

/* Header file: magic, version and the trailing checksum are the same in every
 * format version; the rest is version 1's layout. */
#define TRACE_HEADER_MAGIC "MRRTRACE"
#define TRACE_HEADER_FIXED 352u	       /* bytes before the variable strings */
#define TRACE_HEADER_MAX   (64u << 20) /* whole header file */
#define TRACE_STRING_MAX   (16u << 20) /* cwd, exe, argv or env */

/* Commit file. */
#define TRACE_COMMIT_MAGIC "MRRCOMMT"
#define TRACE_COMMIT_FIXED 52u
#define TRACE_MESSAGE_MAX  4096u

/* Chunk framing in the events file. */
#define TRACE_CHUNK_MAGIC 0x4b43524du /* "MRCK" little-endian */
#define TRACE_CHUNK_HDR	  32u
/* An event's fixed fields take at least 14 one-byte varints. */
#define TRACE_EVENT_MIN 14u
/* Fixed fields (14 varints) plus two varints per write, all at most 10 bytes
 * each: the bound on what one event adds beyond its data bytes. */
#define TRACE_EVENT_OVERHEAD_MAX (14u * 10u + MRR_MAX_WRITES_PER_EVENT * 20u)
#define TRACE_CHUNK_RAW_LIMIT                                                  \
	((uint64_t)MRR_MAX_EVENT_BYTES + TRACE_EVENT_OVERHEAD_MAX)
/* Fuzzing builds read at most this much per chunk so that the fuzzer's
 * allocation limit is never hit by a chunk that is valid but huge. */
#ifdef MRR_TRACE_FUZZING
#define TRACE_CHUNK_RAW_READ_MAX (64ull << 20)
#else
#define TRACE_CHUNK_RAW_READ_MAX TRACE_CHUNK_RAW_LIMIT
#endif
/* Writers close a chunk once this many raw bytes are buffered. */
#define TRACE_CHUNK_TARGET (4u << 20)
#ifndef TRACE_ZSTD_LEVEL
#define TRACE_ZSTD_LEVEL 1
#endif
/* log2 of the compression window: one chunk target. */
#define TRACE_ZSTD_WINDOW_LOG 22

/* Event flags each format version knows (version 3 added the digest). */
#define TRACE_KNOWN_EVF_V2                                                     \
	(MRR_EVF_BUFFERED | MRR_EVF_SKIPPED | MRR_EVF_TO_STDOUT |              \
	 MRR_EVF_TO_STDERR)
#define TRACE_KNOWN_EVF (TRACE_KNOWN_EVF_V2 | MRR_EVF_DIGEST)

static inline void put_le32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static inline void put_le64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static inline uint32_t get_le32(const uint8_t *p)
{
	uint32_t v = 0;

	for (int i = 0; i < 4; i++)
		v |= (uint32_t)p[i] << (8 * i);
	return v;
}

static inline uint64_t get_le64(const uint8_t *p)
{
	uint64_t v = 0;

	for (int i = 0; i < 8; i++)
		v |= (uint64_t)p[i] << (8 * i);
	return v;
}

/* LEB128: 7 bits per byte, low group first, high bit set on all but the last.
 * Returns the bytes written (1..10). */
static inline size_t put_varint(uint8_t *p, uint64_t v)
{
	size_t n = 0;

	while (v >= 0x80) {
		p[n++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	p[n++] = (uint8_t)v;
	return n;
}

static inline uint64_t zigzag(int64_t v)
{
	return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
}

static inline int64_t unzigzag(uint64_t v)
{
	return (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
}

/* Stored file names: 16 lowercase hex digits of the content's XXH64, '-',
 * then the size in lowercase hex without leading zeros. Returns 1 if name has
 * exactly that form. */
int trace_valid_stored_name(const char *name);

#endif
