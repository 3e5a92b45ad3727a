/* bt_jemalloc [ROUNDS]: frees and allocates blocks of 4 KiB to 256 KiB, 64
 * live at a time, touching each (default 3,000 rounds). Run under
 * LD_PRELOAD=libjemalloc.so.2 with MALLOC_CONF=dirty_decay_ms:0,
 * muzzy_decay_ms:0, jemalloc purges every freed extent at once: one
 * madvise per free or so, from a stripped library (bench/backtrace.sh). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
	long rounds = argc > 1 ? atol(argv[1]) : 3000, i;
	void *live[64] = {0};
	unsigned long sum = 0;

	for (i = 0; i < rounds; i++) {
		size_t size = 4096 * (size_t)(1 + (i * 7) % 64);
		int k = (int)(i % 64);

		free(live[k]);
		live[k] = malloc(size);
		if (!live[k]) {
			perror("bt_jemalloc: malloc");
			return 1;
		}
		memset(live[k], (int)i, size);
		sum += ((unsigned char *)live[k])[size / 2];
	}
	printf("bt_jemalloc: %ld rounds, sum %lu\n", rounds, sum);
	return 0;
}
