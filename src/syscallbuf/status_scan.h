/* Which read data may hold lines of /proc/PID/status that mrr changes for
 * the program (src/record/proc_status.c): "NoNewPrivs:", "TracerPid:",
 * "Seccomp:" and "Seccomp_filters:". Shared by the preload library (libc-free),
 * which flags the record of a buffered read of a /proc file whose data holds
 * one and flushes at once (abi.h), and by the recorder. */
#ifndef MRR_SYSCALLBUF_STATUS_SCAN_H
#define MRR_SYSCALLBUF_STATUS_SCAN_H

#include <stdint.h>

typedef uint64_t __attribute__((may_alias, aligned(1))) mrr_u64_unaligned;

static inline int mrr_status_word_at(const unsigned char *p, unsigned long i,
				     const char *w, unsigned long n)
{
	if (i < n)
		return 0;
	for (unsigned long k = 0; k < n; k++)
		if (p[i - n + k] != (unsigned char)w[k])
			return 0;
	return 1;
}

/* Whether one of the words ends right before the ':' at p[i]. */
static inline int mrr_status_colon(const unsigned char *p, unsigned long i)
{
	return mrr_status_word_at(p, i, "NoNewPrivs", 10) ||
	       mrr_status_word_at(p, i, "TracerPid", 9) ||
	       mrr_status_word_at(p, i, "Seccomp", 7) ||
	       mrr_status_word_at(p, i, "Seccomp_filters", 15);
}

/* 1 when the n bytes at p hold one of the words followed by ':'. Eight
 * bytes at a time to the next ':' (the usual has-zero-byte test on the
 * bytes xor ':'), so that reads of ordinary files pay little. */
static inline int mrr_status_has_token(const unsigned char *p, unsigned long n)
{
	const uint64_t ones = 0x0101010101010101ull, colons = ones * ':';
	unsigned long i = 0;

	for (; i + 8 <= n; i += 8) {
		uint64_t x = *(const mrr_u64_unaligned *)(p + i) ^ colons;
		uint64_t hit = (x - ones) & ~x & (ones << 7);

		/* the lowest flagged byte is a ':'; later ones may not be */
		while (hit) {
			unsigned long k =
				i + (unsigned long)__builtin_ctzll(hit) / 8;

			/* each word ends in 's', 'p' or 'd' */
			if (p[k] == ':' && k &&
			    (p[k - 1] == 's' || p[k - 1] == 'p' ||
			     p[k - 1] == 'd') &&
			    mrr_status_colon(p, k))
				return 1;
			hit &= hit - 1;
		}
	}
	for (; i < n; i++)
		if (p[i] == ':' && mrr_status_colon(p, i))
			return 1;
	return 0;
}

#endif
