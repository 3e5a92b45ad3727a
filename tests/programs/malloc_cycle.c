/* malloc_cycle: malloc and free of sizes from 16 bytes to 64 MiB, so both
 * glibc's brk heap and its mmap path are used; every block is filled and
 * read back. Also keeps a thousand small blocks alive at once and checks
 * that the program break grew for them. */
#include "mrr_test.h"

#include <stdint.h>

#define MAX_SIZE (64u << 20)
#define NSMALL	 1000

/* Whether all n bytes at p (16-byte aligned, as from malloc) equal v. */
static int verify(const unsigned char *p, size_t n, unsigned char v)
{
	const uint64_t *w = (const uint64_t *)p,
		       want = v * 0x0101010101010101ull;
	size_t i;

	for (i = 0; i < n / 8; i++)
		if (w[i] != want)
			return 0;
	for (i *= 8; i < n; i++)
		if (p[i] != v)
			return 0;
	return 1;
}

int main(void)
{
	static unsigned char *small[NSMALL];
	unsigned long blocks = 0;
	uint64_t bytes = 0;
	void *brk0, *brk1;

	mt_init();
	brk0 = sbrk(0);
	for (int i = 0; i < NSMALL; i++) {
		size_t n = 100 + (i * 37) % 900;
		small[i] = malloc(n);
		MT_CHECK(small[i], "malloc(%zu) failed", n);
		memset(small[i], i & 0xff, n);
	}
	brk1 = sbrk(0);
	MT_CHECK((char *)brk1 > (char *)brk0, "break did not move: %p", brk1);
	for (int i = 0; i < NSMALL; i++) {
		size_t n = 100 + (i * 37) % 900;
		MT_CHECK(verify(small[i], n, i & 0xff), "small block %d", i);
		free(small[i]);
	}
	printf("%d small blocks on the heap; break grew by %ld KiB\n", NSMALL,
	       (long)(((char *)brk1 - (char *)brk0) >> 10));

	/* Powers of two, one byte less, and one and a half; from 1 MiB on
	 * (always the mmap path) only the powers, to keep page faults few. */
	for (size_t s = 16; s <= MAX_SIZE; s *= 2) {
		size_t sizes[3] = {s, s - 1, s + s / 2};
		for (int k = 0; k < 3; k++) {
			size_t n = sizes[k];
			if (k > 0 && s >= (1u << 20))
				break;
			unsigned char v = (unsigned char)(n * 7 + k);
			unsigned char *p = malloc(n);
			MT_CHECK(p, "malloc(%zu) failed", n);
			memset(p, v, n);
			MT_CHECK(verify(p, n, v), "block of %zu bytes", n);
			free(p);
			blocks++;
			bytes += n;
		}
	}
	/* realloc across the mmap threshold keeps the contents. */
	unsigned char *r = malloc(1000);
	MT_CHECK(r, "malloc(1000) failed");
	memset(r, 0x5a, 1000);
	r = realloc(r, 8u << 20);
	MT_CHECK(r && verify(r, 1000, 0x5a), "realloc lost the contents");
	free(r);
	printf("%lu blocks from 15 B to 64 MiB, %llu bytes filled and "
	       "checked\n",
	       blocks, (unsigned long long)bytes);
	mt_pass();
	return 0;
}
