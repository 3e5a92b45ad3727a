/* XXH64, the 64-bit xxHash function (the same function zstd uses for its
 * content checksum), one-shot and streaming. Private to src/trace: traces use
 * it for chunk, header and commit checksums and to name stored files.
 * Thread-safe (no shared state).
 */
#ifndef MRR_TRACE_XXH64_H
#define MRR_TRACE_XXH64_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

uint64_t trace_xxh64(const void *data, size_t len, uint64_t seed);

/* Streaming form: init, update any number of times, digest (which leaves the
 * state usable for more updates). */
struct trace_xxh64_state {
	uint64_t v[4];
	uint64_t total;
	uint64_t seed;
	uint8_t buf[32];
	uint32_t buffered;
};

void trace_xxh64_init(struct trace_xxh64_state *st, uint64_t seed);
void trace_xxh64_update(struct trace_xxh64_state *st, const void *data,
			size_t len);
/* The same as trace_xxh64_update with len zero bytes, without reading
 * any (a hole of a sparse file): about three times faster. */
void trace_xxh64_update_zeros(struct trace_xxh64_state *st, uint64_t len);
uint64_t trace_xxh64_digest(const struct trace_xxh64_state *st);

#ifdef __cplusplus
}
#endif

#endif
