/* XXH64 written from the algorithm's public description (xxHash spec). */
#include "trace/xxh64.h"

#include <string.h>

#define P1 0x9e3779b185ebca87ull
#define P2 0xc2b2ae3d27d4eb4full
#define P3 0x165667b19e3779f9ull
#define P4 0x85ebca77c2b2ae63ull
#define P5 0x27d4eb2f165667c5ull

static inline uint64_t rotl64(uint64_t x, int r)
{
	return (x << r) | (x >> (64 - r));
}

static inline uint64_t rd64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	v = __builtin_bswap64(v);
#endif
	return v;
}

static inline uint32_t rd32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	v = __builtin_bswap32(v);
#endif
	return v;
}

static inline uint64_t lane_round(uint64_t acc, uint64_t lane)
{
	acc += lane * P2;
	acc = rotl64(acc, 31);
	return acc * P1;
}

static inline uint64_t merge_acc(uint64_t acc, uint64_t v)
{
	acc ^= lane_round(0, v);
	return acc * P1 + P4;
}

/* Processes whole 32-byte stripes; returns how many bytes it consumed. */
static size_t stripes(uint64_t v[4], const uint8_t *p, size_t len)
{
	size_t done = 0;

	while (len - done >= 32) {
		v[0] = lane_round(v[0], rd64(p + done));
		v[1] = lane_round(v[1], rd64(p + done + 8));
		v[2] = lane_round(v[2], rd64(p + done + 16));
		v[3] = lane_round(v[3], rd64(p + done + 24));
		done += 32;
	}
	return done;
}

static uint64_t finish(uint64_t acc, const uint8_t *p, size_t len)
{
	while (len >= 8) {
		acc ^= lane_round(0, rd64(p));
		acc = rotl64(acc, 27) * P1 + P4;
		p += 8;
		len -= 8;
	}
	if (len >= 4) {
		acc ^= (uint64_t)rd32(p) * P1;
		acc = rotl64(acc, 23) * P2 + P3;
		p += 4;
		len -= 4;
	}
	while (len > 0) {
		acc ^= (uint64_t)*p * P5;
		acc = rotl64(acc, 11) * P1;
		p++;
		len--;
	}
	acc ^= acc >> 33;
	acc *= P2;
	acc ^= acc >> 29;
	acc *= P3;
	acc ^= acc >> 32;
	return acc;
}

static uint64_t converge(const uint64_t v[4])
{
	uint64_t acc = rotl64(v[0], 1) + rotl64(v[1], 7) + rotl64(v[2], 12) +
		       rotl64(v[3], 18);

	for (int i = 0; i < 4; i++)
		acc = merge_acc(acc, v[i]);
	return acc;
}

static void init_lanes(uint64_t v[4], uint64_t seed)
{
	v[0] = seed + P1 + P2;
	v[1] = seed + P2;
	v[2] = seed;
	v[3] = seed - P1;
}

uint64_t trace_xxh64(const void *data, size_t len, uint64_t seed)
{
	const uint8_t *p = data;
	uint64_t acc;
	size_t done = 0;

	if (len >= 32) {
		uint64_t v[4];

		init_lanes(v, seed);
		done = stripes(v, p, len);
		acc = converge(v);
	} else {
		acc = seed + P5;
	}
	acc += len;
	return finish(acc, p + done, len - done);
}

void trace_xxh64_init(struct trace_xxh64_state *st, uint64_t seed)
{
	memset(st, 0, sizeof(*st));
	st->seed = seed;
	init_lanes(st->v, seed);
}

void trace_xxh64_update(struct trace_xxh64_state *st, const void *data,
			size_t len)
{
	const uint8_t *p = data;

	if (len == 0) /* data may be NULL then (an empty buffer) */
		return;
	st->total += len;
	if (st->buffered) {
		size_t take = 32 - st->buffered;

		if (take > len)
			take = len;
		memcpy(st->buf + st->buffered, p, take);
		st->buffered += take;
		p += take;
		len -= take;
		if (st->buffered < 32)
			return;
		stripes(st->v, st->buf, 32);
		st->buffered = 0;
	}
	size_t done = stripes(st->v, p, len);

	memcpy(st->buf, p + done, len - done);
	st->buffered = len - done;
}

void trace_xxh64_update_zeros(struct trace_xxh64_state *st, uint64_t len)
{
	static const uint8_t zero[32];
	uint64_t a, b, c, d, n;

	if (st->buffered) {
		size_t take = 32 - st->buffered;

		if (take > len)
			take = (size_t)len;
		trace_xxh64_update(st, zero, take);
		len -= take;
		if (st->buffered)
			return;
	}
	/* a round of a zero lane is rotl(acc, 31) * P1: no input to load,
	 * four independent chains */
	a = st->v[0];
	b = st->v[1];
	c = st->v[2];
	d = st->v[3];
	for (n = len / 32; n; n--) {
		a = rotl64(a, 31) * P1;
		b = rotl64(b, 31) * P1;
		c = rotl64(c, 31) * P1;
		d = rotl64(d, 31) * P1;
	}
	st->v[0] = a;
	st->v[1] = b;
	st->v[2] = c;
	st->v[3] = d;
	st->total += len / 32 * 32;
	trace_xxh64_update(st, zero, (size_t)(len % 32));
}

uint64_t trace_xxh64_digest(const struct trace_xxh64_state *st)
{
	uint64_t acc;

	if (st->total >= 32)
		acc = converge(st->v);
	else
		acc = st->seed + P5;
	acc += st->total;
	return finish(acc, st->buf, st->buffered);
}
